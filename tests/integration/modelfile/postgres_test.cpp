// A model file whose database is PostgreSQL: a cpp-httplib service on a loopback port keeps its
// orders in a database of its own (through its own libpq connection), and the model's postgres
// system (snapshot mode) restores the table and its sequence between branches. Needs
// PROWL_TEST_PG_DSN (see tests/support/pg_test_env.hpp); skipped without it.
#include <gtest/gtest.h>
#include <httplib.h>
#include <libpq-fe.h>

#include <mutex>
#include <string>
#include <thread>

#include "prowl/explore/explorer.hpp"
#include "prowl/modelfile/http_model.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/strategy/factory.hpp"
#include "support/pg_test_env.hpp"

namespace prowl::modelfile {
namespace {

// POST /orders -> 201 {"id"}; POST /orders/N/pay (new -> paid, paid = 10);
// POST /orders/N/refund (paid or refunded -> refunded += 10: the planted bug); 409 otherwise.
class PgShop {
 public:
  explicit PgShop(const std::string& dsn) : db_(dsn) {
    db_.exec(
        "CREATE TABLE orders (id serial PRIMARY KEY, status text NOT NULL, "
        "paid integer NOT NULL DEFAULT 0, refunded integer NOT NULL DEFAULT 0)");
    server_.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("shop", "text/plain");
    });
    server_.Post("/orders", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      const std::string id = db_.one("INSERT INTO orders (status) VALUES ('new') RETURNING id");
      res.status = 201;
      res.set_content(R"({"id":)" + id + "}", "application/json");
    });
    server_.Post(R"(/orders/(\d+)/(pay|refund))", [this](const httplib::Request& req,
                                                         httplib::Response& res) {
      const std::string id = req.matches[1];
      const bool pay = req.matches[2] == "pay";
      std::lock_guard<std::mutex> lock(mutex_);
      const auto changed =
          db_.rows(pay ? "UPDATE orders SET status = 'paid', paid = 10 WHERE id = " + id +
                             " AND status = 'new' RETURNING id"
                       : "UPDATE orders SET status = 'refunded', refunded = refunded + 10 "
                         "WHERE id = " +
                             id + " AND status IN ('paid', 'refunded') RETURNING id");
      res.status = changed.empty() ? 409 : 200;
      res.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~PgShop() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  testing::PgConnection& db() { return db_; }

 private:
  testing::PgConnection db_;
  std::mutex mutex_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

class ModelFilePostgres : public testing::PgTest {};

TEST_F(ModelFilePostgres, BfsFindsTheDoubleRefundAndLeavesTheDatabaseAsFound) {
  PgShop shop(dsn());
  std::string text = R"(name: pgshop
base_url: @URL@
systems:
  - {name: db, type: postgres, dsn: "@DSN@", tables: [orders]}
actions:
  - {name: create_order, method: POST, path: /orders, ok: 201, bind: {order_id: /id},
     max_per_path: 1}
  - {name: pay, method: POST, path: "/orders/${order_id}/pay", ok: 200, rejected: 409}
  - {name: refund, method: POST, path: "/orders/${order_id}/refund", ok: 200, rejected: 409}
invariants:
  - name: refund_at_most_paid
    severity: critical
    sql: SELECT id, paid, refunded FROM orders WHERE refunded > paid AND id = ${order_id}
)";
  text.replace(text.find("@URL@"), 5, shop.url());
  text.replace(text.find("@DSN@"), 5, dsn());
  auto spec = parse_model(text, "pgshop.yaml", "/");
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  HttpModel model(std::move(*spec));
  auto strategy = make_strategy("bfs", model, {});
  ASSERT_TRUE(strategy.is_ok());
  Options options;
  options.max_depth = 4;
  auto report = explore(model, **strategy, options);
  ASSERT_TRUE(report.is_ok()) << report.status().message();

  EXPECT_EQ(report->restore_mode, RestoreMode::kSnapshot);
  EXPECT_EQ(report->stats.states, 5u);
  ASSERT_EQ(report->findings.size(), 1u);
  const Finding& f = report->findings[0];
  EXPECT_EQ(f.name, "refund_at_most_paid");
  EXPECT_TRUE(f.confirmed);
  EXPECT_EQ(f.message, "1 offending row: (id=1, paid=10, refunded=20)");
  ASSERT_EQ(f.steps.size(), 4u);
  EXPECT_EQ(f.steps[0].detail, "POST " + shop.url() + R"(/orders -> 201 {"id":1})");
  EXPECT_EQ(f.steps[3].action, "refund");
  // The table and its sequence are back where they were: the next order is number 1 again.
  EXPECT_EQ(shop.db().one("SELECT count(*) FROM orders"), "0");
  EXPECT_EQ(shop.db().one("INSERT INTO orders (status) VALUES ('new') RETURNING id"), "1");
}

TEST(ModelFilePostgresDown, AnUnreachableDatabaseIsAnEnvironmentFailure) {
  auto spec = parse_model(R"(base_url: http://127.0.0.1:1
systems:
  - {type: postgres, dsn: "host=127.0.0.1 port=1 dbname=shop connect_timeout=2"}
actions: [{name: a, path: /a}]
)",
                          "down.yaml", "/");
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  HttpModel model(std::move(*spec));
  auto strategy = make_strategy("bfs", model, {});
  auto report = explore(model, **strategy, {});
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kEnvironment);
  EXPECT_NE(report.status().message().find("host=127.0.0.1 port=1 dbname=shop"), std::string::npos)
      << report.status().message();
}

}  // namespace
}  // namespace prowl::modelfile
