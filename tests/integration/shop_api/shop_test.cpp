// shop::Shop on real databases: a SQLite file in a temporary directory, and a fresh PostgreSQL
// database per test when PROWL_TEST_PG_DSN is set. Every legal and illegal transition, and each
// seeded bug reproduced by its documented shortest sequence, with its SQL check silent before the
// last step and reporting exactly the broken rows after it.
#ifdef PROWL_HAVE_SHOP_API

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "unit/shop_api/shop_test_support.hpp"

namespace shop::testing {
namespace {

using nlohmann::json;

class ShopCore : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kSqlite) {
      auto db = SqliteDb::open(dir_.file("shop.db"));
      ASSERT_TRUE(db) << db.status().message();
      db_ = std::move(*db);
    } else {
      SHOP_REQUIRE_PG_DSN(admin);
      pg_ = std::make_unique<PgTestDatabase>(admin);
      ASSERT_TRUE(pg_->created());
      auto db = PostgresDb::connect(pg_->dsn());
      ASSERT_TRUE(db) << db.status().message();
      db_ = std::move(*db);
    }
    shop_ = std::make_unique<Shop>(*db_);
    const Status init = shop_->init();
    ASSERT_TRUE(init) << init.message();
  }
  void TearDown() override {
    shop_.reset();
    db_.reset();  // closes the connection before the database is dropped
    pg_.reset();
  }

  Shop& shop() { return *shop_; }
  Db& db() { return *db_; }

  // A new order for one widget (product 1), checked to be created.
  std::int64_t create() {
    const Reply reply = shop().create_order(1, 1);
    EXPECT_EQ(reply.status, 201) << reply.body;
    return reply.body.value("id", std::int64_t{0});
  }
  std::vector<std::string> violations(std::string_view invariant) {
    return query(db(), check_sql(invariant));
  }
  // No invariant is broken.
  void expect_all_hold() {
    for (const auto& check : invariant_checks()) {
      EXPECT_EQ(query(db(), check.sql), std::vector<std::string>{}) << check.name;
    }
  }
  json product1() { return shop().product(1).body; }

  TempDir dir_;
  std::unique_ptr<PgTestDatabase> pg_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<Shop> shop_;
};

json order_body(std::int64_t id, const std::string& status, std::int64_t paid,
                std::int64_t refunded) {
  return {{"id", id},
          {"product_id", 1},
          {"qty", 1},
          {"status", status},
          {"amount_cents", 1200},
          {"paid_cents", paid},
          {"refunded_cents", refunded},
          {"net_paid_cents", paid - refunded}};
}

json widget(std::int64_t stock, std::int64_t received, std::int64_t committed) {
  return {{"id", 1},        {"name", "widget"},     {"price_cents", 1200},
          {"stock", stock}, {"received", received}, {"committed", committed}};
}

TEST_P(ShopCore, InitCreatesTheSchemaAndSeedsTheProductsOnce) {
  ASSERT_TRUE(shop().init());
  EXPECT_EQ(dump_tables(db()),
            (std::vector<std::string>{"product|1|widget|1200|2|2", "product|2|gadget|2500|1|1"}));
  const Reply products = shop().products();
  EXPECT_EQ(products.status, 200);
  EXPECT_EQ(products.body, (json{{"products",
                                  {widget(2, 2, 0),
                                   {{"id", 2},
                                    {"name", "gadget"},
                                    {"price_cents", 2500},
                                    {"stock", 1},
                                    {"received", 1},
                                    {"committed", 0}}}}}));
  expect_all_hold();
}

TEST_P(ShopCore, CreateOrderReservesStock) {
  const Reply reply = shop().create_order(1, 1);
  EXPECT_EQ(reply.status, 201);
  EXPECT_EQ(reply.body, order_body(1, "pending", 0, 0));
  EXPECT_EQ(product1(), widget(1, 2, 1));
  EXPECT_EQ(shop().order(1).body, order_body(1, "pending", 0, 0));
  expect_all_hold();
}

TEST_P(ShopCore, CreateOrderChargesPriceTimesQuantity) {
  const Reply reply = shop().create_order(1, 2);
  EXPECT_EQ(reply.status, 201);
  EXPECT_EQ(reply.body["amount_cents"], 2400);
  EXPECT_EQ(reply.body["qty"], 2);
  EXPECT_EQ(product1(), widget(0, 2, 2));
}

TEST_P(ShopCore, CreateOrderRefusesWhenTooLittleIsInStock) {
  create();
  create();
  const Reply reply = shop().create_order(1, 1);
  EXPECT_EQ(reply.status, 409);
  EXPECT_EQ(reply.body, (json{{"error", "product 1 has 0 in stock, 1 wanted"}, {"stock", 0}}));
  EXPECT_EQ(shop().orders().body["orders"].size(), 2u);
  EXPECT_EQ(product1(), widget(0, 2, 2));
}

TEST_P(ShopCore, CreateOrderRejectsUnknownProductsAndBadQuantities) {
  EXPECT_EQ(shop().create_order(3, 1).status, 404);
  EXPECT_EQ(shop().create_order(3, 1).body, (json{{"error", "product 3 not found"}}));
  EXPECT_EQ(shop().create_order(1, 0).status, 400);
  EXPECT_EQ(shop().create_order(1, -1).status, 400);
  EXPECT_EQ(shop().create_order(1, kMaxOrderQty + 1).status, 400);
  EXPECT_EQ(shop().create_order(1, 0).body, (json{{"error", "qty must be between 1 and 100"}}));
  EXPECT_EQ(dump_tables(db()),
            (std::vector<std::string>{"product|1|widget|1200|2|2", "product|2|gadget|2500|1|1"}));
}

TEST_P(ShopCore, PayMovesAPendingOrderToPaidAndRecordsThePayment) {
  const auto id = create();
  const Reply reply = shop().pay(id);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, order_body(id, "paid", 1200, 0));
  EXPECT_EQ(query(db(), "SELECT order_id, kind, amount_cents FROM ledger ORDER BY id"),
            std::vector<std::string>{"1|payment|1200"});
  expect_all_hold();
}

TEST_P(ShopCore, CancelOfAPendingOrderReturnsItsStock) {
  const auto id = create();
  const Reply reply = shop().cancel(id);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, order_body(id, "cancelled", 0, 0));
  EXPECT_EQ(product1(), widget(2, 2, 0));
  EXPECT_EQ(query(db(), "SELECT COUNT(*) FROM ledger"), std::vector<std::string>{"0"});
  expect_all_hold();
}

TEST_P(ShopCore, CancelOfAPaidOrderReturnsItsStockAndItsMoney) {
  const auto id = create();
  shop().pay(id);
  const Reply reply = shop().cancel(id);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, order_body(id, "cancelled", 1200, 1200));
  EXPECT_EQ(product1(), widget(2, 2, 0));
  EXPECT_EQ(query(db(), "SELECT kind, amount_cents FROM ledger ORDER BY id"),
            (std::vector<std::string>{"payment|1200", "refund|1200"}));
  expect_all_hold();
}

TEST_P(ShopCore, ShipMovesAPaidOrderToShipped) {
  const auto id = create();
  shop().pay(id);
  const Reply reply = shop().ship(id);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, order_body(id, "shipped", 1200, 0));
  EXPECT_EQ(product1(), widget(1, 2, 1));
  expect_all_hold();
}

TEST_P(ShopCore, RefundOfAPaidOrderGivesTheMoneyBackButNotTheStock) {
  const auto id = create();
  shop().pay(id);
  const Reply reply = shop().refund(id);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, order_body(id, "refunded", 1200, 1200));
  EXPECT_EQ(product1(), widget(1, 2, 1));
  expect_all_hold();
}

TEST_P(ShopCore, RefundOfAShippedOrderGivesTheMoneyBack) {
  const auto id = create();
  shop().pay(id);
  shop().ship(id);
  const Reply reply = shop().refund(id);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, order_body(id, "refunded", 1200, 1200));
  EXPECT_EQ(product1(), widget(1, 2, 1));
  expect_all_hold();
}

TEST_P(ShopCore, RestockAddsToStockAndToWhatWasReceived) {
  create();
  const Reply reply = shop().restock(1, 5);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, widget(6, 7, 1));
  EXPECT_EQ(shop().restock(9, 5).status, 404);
  EXPECT_EQ(shop().restock(1, 0).status, 400);
  EXPECT_EQ(shop().restock(1, kMaxRestockQty + 1).status, 400);
  EXPECT_EQ(product1(), widget(6, 7, 1));
  expect_all_hold();
}

// Brings order `id` (just created, pending) to `status` by legal steps.
void drive_to(Shop& shop, std::int64_t id, const std::string& status) {
  if (status == "pending") return;
  if (status == "cancelled") {
    shop.cancel(id);
    return;
  }
  shop.pay(id);
  if (status == "shipped") shop.ship(id);
  if (status == "refunded") shop.refund(id);
}

struct Refusal {
  const char* from;
  const char* operation;
  const char* rule;
};

TEST_P(ShopCore, IllegalTransitionsAreRefusedWith409AndChangeNothing) {
  const Refusal refusals[] = {
      {"paid", "pay", "only a pending order can be paid"},
      {"cancelled", "pay", "only a pending order can be paid"},
      {"shipped", "pay", "only a pending order can be paid"},
      {"refunded", "pay", "only a pending order can be paid"},
      {"shipped", "cancel", "only a pending or paid order can be cancelled"},
      {"refunded", "cancel", "only a pending or paid order can be cancelled"},
      {"pending", "ship", "only a paid order can be shipped"},
      {"cancelled", "ship", "only a paid order can be shipped"},  // never paid
      {"shipped", "ship", "only a paid order can be shipped"},
      {"refunded", "ship", "only a paid order can be shipped"},
      {"pending", "refund", "only a paid or shipped order can be refunded"},
      {"cancelled", "refund", "only a paid or shipped order can be refunded"},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(std::string(r.operation) + " from " + r.from);
    ASSERT_EQ(shop().restock(1, 1).status, 200);  // room for one more order
    const auto id = create();
    drive_to(shop(), id, r.from);
    ASSERT_EQ(shop().order(id).body["status"], r.from);
    const std::vector<std::string> before = dump_tables(db());
    const std::string op = r.operation;
    const Reply reply = op == "pay"      ? shop().pay(id)
                        : op == "cancel" ? shop().cancel(id)
                        : op == "ship"   ? shop().ship(id)
                                         : shop().refund(id);
    EXPECT_EQ(reply.status, 409);
    EXPECT_EQ(reply.body,
              (json{{"error", "order " + std::to_string(id) + " is " + r.from + "; " + r.rule},
                    {"status", r.from}}));
    EXPECT_EQ(dump_tables(db()), before);
  }
  expect_all_hold();
}

TEST_P(ShopCore, UnknownOrdersAre404) {
  const json missing = {{"error", "order 42 not found"}};
  for (const Reply& reply :
       {shop().order(42), shop().pay(42), shop().cancel(42), shop().ship(42), shop().refund(42)}) {
    EXPECT_EQ(reply.status, 404);
    EXPECT_EQ(reply.body, missing);
  }
  EXPECT_EQ(shop().product(7).status, 404);
}

// Seeded bug 1: refund accepts an order that is already refunded.
TEST_P(ShopCore, Bug1DoubleRefundGivesTheMoneyBackTwice) {
  const auto id = create();
  EXPECT_EQ(shop().pay(id).status, 200);
  EXPECT_EQ(shop().refund(id).status, 200);
  expect_all_hold();
  const Reply second = shop().refund(id);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, order_body(id, "refunded", 1200, 2400));
  EXPECT_EQ(violations("refunds_within_payments"), std::vector<std::string>{"1|1200|2400"});
  EXPECT_EQ(violations("stock_conserved"), std::vector<std::string>{});
  EXPECT_EQ(violations("shipped_orders_paid"), std::vector<std::string>{});
  EXPECT_EQ(shop().stats().body["audit"], (json{{"over_refunded_orders", 1},
                                                {"stock_mismatched_products", 0},
                                                {"unpaid_shipped_orders", 0}}));
}

// Seeded bug 2: cancel accepts an order that is already cancelled.
TEST_P(ShopCore, Bug2DoubleCancelReturnsTheStockTwice) {
  const auto id = create();
  EXPECT_EQ(shop().cancel(id).status, 200);
  expect_all_hold();
  const Reply second = shop().cancel(id);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.body, order_body(id, "cancelled", 0, 0));
  EXPECT_EQ(product1(), widget(3, 2, 0));
  EXPECT_EQ(violations("stock_conserved"), std::vector<std::string>{"1|3|2|0"});
  EXPECT_EQ(violations("refunds_within_payments"), std::vector<std::string>{});
  EXPECT_EQ(violations("shipped_orders_paid"), std::vector<std::string>{});
  EXPECT_EQ(shop().stats().body["audit"], (json{{"over_refunded_orders", 0},
                                                {"stock_mismatched_products", 1},
                                                {"unpaid_shipped_orders", 0}}));
  // The phantom unit sells: three orders for two widgets ever received.
  create();
  create();
  create();
  EXPECT_EQ(product1(), widget(0, 2, 3));
}

// Seeded bug 3: ship accepts a cancelled order that had been paid.
TEST_P(ShopCore, Bug3ShipAfterCancelSendsGoodsThatWereGivenBack) {
  const auto id = create();
  EXPECT_EQ(shop().pay(id).status, 200);
  EXPECT_EQ(shop().cancel(id).status, 200);
  expect_all_hold();
  const Reply shipped = shop().ship(id);
  EXPECT_EQ(shipped.status, 200);
  EXPECT_EQ(shipped.body, order_body(id, "shipped", 1200, 1200));
  EXPECT_EQ(violations("shipped_orders_paid"), std::vector<std::string>{"1|1200|0"});
  // The units went back to stock on cancel and left again on ship: one unit too many.
  EXPECT_EQ(violations("stock_conserved"), std::vector<std::string>{"1|2|2|1"});
  EXPECT_EQ(violations("refunds_within_payments"), std::vector<std::string>{});
  EXPECT_EQ(shop().stats().body["audit"], (json{{"over_refunded_orders", 0},
                                                {"stock_mismatched_products", 1},
                                                {"unpaid_shipped_orders", 1}}));
}

TEST_P(ShopCore, StatsSumsOrdersMoneyAndStock) {
  const auto a = create();
  shop().pay(a);
  shop().ship(a);
  const auto b = create();
  shop().cancel(b);
  shop().restock(2, 3);
  const Reply stats = shop().stats();
  EXPECT_EQ(stats.status, 200);
  EXPECT_EQ(stats.body,
            (json{{"orders",
                   {{"total", 2},
                    {"pending", 0},
                    {"paid", 0},
                    {"cancelled", 1},
                    {"shipped", 1},
                    {"refunded", 0}}},
                  {"money", {{"paid_cents", 1200}, {"refunded_cents", 0}, {"net_cents", 1200}}},
                  {"stock", {{"in_stock", 5}, {"received", 6}, {"committed", 1}}},
                  {"audit",
                   {{"over_refunded_orders", 0},
                    {"stock_mismatched_products", 0},
                    {"unpaid_shipped_orders", 0}}}}));
}

TEST_P(ShopCore, HealthAnswersOk) {
  const Reply health = shop().health();
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, (json{{"status", "ok"}}));
}

TEST_P(ShopCore, OrdersListsEveryOrderById) {
  const auto a = create();
  const auto b = create();
  shop().pay(b);
  EXPECT_EQ(shop().orders().body,
            (json{{"orders", {order_body(a, "pending", 0, 0), order_body(b, "paid", 1200, 0)}}}));
}

INSTANTIATE_TEST_SUITE_P(Databases, ShopCore,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), backend_name);

}  // namespace
}  // namespace shop::testing

#endif  // PROWL_HAVE_SHOP_API
