// Shop::handle, the HTTP API without sockets, on an in-memory SQLite database: routing, methods,
// ids and JSON bodies. The operations behind the routes are tested in shop_test.cpp.
#ifdef PROWL_HAVE_SHOP_API

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "unit/shop_api/shop_test_support.hpp"

namespace shop::testing {
namespace {

using nlohmann::json;

class ShopRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = SqliteDb::open(":memory:");
    ASSERT_TRUE(db) << db.status().message();
    db_ = std::move(*db);
    shop_ = std::make_unique<Shop>(*db_);
    ASSERT_TRUE(shop_->init());
  }
  Reply call(std::string_view method, std::string_view target, std::string_view body = "") {
    return shop_->handle(method, target, body);
  }

  std::unique_ptr<Db> db_;
  std::unique_ptr<Shop> shop_;
};

TEST_F(ShopRoutes, EveryRouteReachesItsOperation) {
  EXPECT_EQ(call("GET", "/health").body, (json{{"status", "ok"}}));
  EXPECT_EQ(call("GET", "/products").body["products"].size(), 2u);
  EXPECT_EQ(call("GET", "/products/2").body["name"], "gadget");
  const Reply created = call("POST", "/orders", R"({"product_id": 1, "qty": 1})");
  EXPECT_EQ(created.status, 201);
  EXPECT_EQ(created.body["id"], 1);
  EXPECT_EQ(call("GET", "/orders/1").body["status"], "pending");
  EXPECT_EQ(call("POST", "/orders/1/pay").body["status"], "paid");
  EXPECT_EQ(call("POST", "/orders/1/ship").body["status"], "shipped");
  EXPECT_EQ(call("POST", "/orders/1/refund").body["status"], "refunded");
  EXPECT_EQ(call("POST", "/orders", R"({"product_id": 1})").body["id"], 2);
  EXPECT_EQ(call("POST", "/orders/2/cancel").body["status"], "cancelled");
  EXPECT_EQ(call("GET", "/orders").body["orders"].size(), 2u);
  EXPECT_EQ(call("POST", "/products/2/restock", R"({"qty": 4})").body["stock"], 5);
  EXPECT_EQ(call("GET", "/stats").body["orders"]["total"], 2);
}

TEST_F(ShopRoutes, QueryStringsAreIgnoredAndHeadIsGet) {
  EXPECT_EQ(call("GET", "/products/1?verbose=1").body["name"], "widget");
  EXPECT_EQ(call("HEAD", "/health").status, 200);
}

TEST_F(ShopRoutes, QtyDefaultsToOne) {
  EXPECT_EQ(call("POST", "/orders", R"({"product_id": 1})").body["qty"], 1);
}

TEST_F(ShopRoutes, UnknownPathsAndIdsAre404) {
  for (const char* path :
       {"/", "", "/nope", "/orders/abc", "/orders/0", "/orders/-1", "/orders/1/explode",
        "/orders/1/pay/now", "/orders//pay", "/orders/", "/products/x", "/products/1/restock/2",
        "/orders/1234567890123456789", "/health/"}) {
    SCOPED_TRACE(path);
    const Reply reply = call("GET", path);
    EXPECT_EQ(reply.status, 404);
    EXPECT_EQ(reply.body, (json{{"error", std::string("no such resource: ") + path}}));
  }
  EXPECT_EQ(call("GET", "/orders/99").body, (json{{"error", "order 99 not found"}}));
  EXPECT_EQ(call("POST", "/orders/99/pay").body, (json{{"error", "order 99 not found"}}));
  EXPECT_EQ(call("POST", "/products/99/restock", R"({"qty": 1})").status, 404);
  EXPECT_EQ(call("POST", "/orders", R"({"product_id": 99})").status, 404);
}

TEST_F(ShopRoutes, WrongMethodsAre405AndNameTheAllowedOnes) {
  EXPECT_EQ(call("DELETE", "/orders").body,
            (json{{"error", "method DELETE is not allowed on /orders"}, {"allow", "GET, POST"}}));
  EXPECT_EQ(call("GET", "/orders/1/pay").status, 405);
  EXPECT_EQ(call("GET", "/orders/1/pay").body["allow"], "POST");
  EXPECT_EQ(call("POST", "/health").status, 405);
  EXPECT_EQ(call("PUT", "/orders/1").status, 405);
  EXPECT_EQ(call("POST", "/products/1").status, 405);
  EXPECT_EQ(call("GET", "/products/1/restock").status, 405);
  EXPECT_EQ(call("POST", "/stats").status, 405);
}

TEST_F(ShopRoutes, BadBodiesAre400AndChangeNothing) {
  const struct {
    const char* body;
    const char* error;
  } cases[] = {
      {"", "a JSON object body is required"},
      {"{", "the body is not valid JSON"},
      {"product_id=1", "the body is not valid JSON"},
      {"[1]", "the body must be a JSON object"},
      {"{}", "\"product_id\" is required"},
      {R"({"product_id": "1"})", "\"product_id\" must be an integer"},
      {R"({"product_id": 1.5})", "\"product_id\" must be an integer"},
      {R"({"product_id": 18446744073709551615})", "\"product_id\" must be an integer"},
      {R"({"product_id": 1, "qty": null})", "\"qty\" must be an integer"},
      {R"({"product_id": 1, "qty": 0})", "qty must be between 1 and 100"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    const Reply reply = call("POST", "/orders", c.body);
    EXPECT_EQ(reply.status, 400);
    EXPECT_EQ(reply.body, (json{{"error", c.error}}));
  }
  EXPECT_EQ(call("POST", "/products/1/restock", "{}").body,
            (json{{"error", "\"qty\" is required"}}));
  EXPECT_EQ(call("POST", "/products/1/restock", "nope").status, 400);
  EXPECT_EQ(dump_tables(*db_),
            (std::vector<std::string>{"product|1|widget|1200|2|2", "product|2|gadget|2500|1|1"}));
}

TEST_F(ShopRoutes, ActionsIgnoreTheirBody) {
  call("POST", "/orders", R"({"product_id": 1})");
  EXPECT_EQ(call("POST", "/orders/1/pay", "not json").status, 200);
}

}  // namespace
}  // namespace shop::testing

#endif  // PROWL_HAVE_SHOP_API
