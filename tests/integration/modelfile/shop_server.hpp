// A small shop HTTP service for the model file tests: a cpp-httplib server on 127.0.0.1 (a port
// picked at run time, served from a background thread between the constructor and the
// destructor) that keeps every order in a SQLite file through a connection of its own, so that a
// SqliteSystem on the same file restores it. Nothing is kept in memory between requests.
//
// Planted bugs: refund accepts an order that is already refunded (refunded ends up above paid),
// and cancel answers 500 for a paid order.
//
//   GET  /                     200 "shop" (the base URL answers)
//   POST /orders {item, qty}   201 {"id","status":"new"}; 400 unless qty is a JSON integer;
//                              409 once 3 orders exist
//   POST /orders/N/pay         200 {"id","status":"paid"} for a new order; 409 otherwise; 404
//   POST /orders/N/refund      200 {"id","status":"refunded"} for a paid or refunded order (bug)
//   POST /orders/N/cancel      200 for a new order; 500 for a paid one (bug); 409 otherwise
//   GET  /orders/N             200 {"id","item","qty","status","paid","refunded"}; 404
//   GET  /stats                200 {"orders": count, "paid": total paid}
//   GET  /slow                 answers after 1 s
//   GET  /drop                 promises 100 bytes, closes the connection without them
//   GET  /text                 200 "plain text, not JSON"
//   GET  /whoami               200 {"auth": the Authorization header, "key": X-Api-Key}
//   GET  /hostile              200 {"id": "../admin?role=root#x", "ref": "r1\r\nX-Injected: 1",
//                              "dots": "..", "word": "caf\u00e9 & co"}: values made to break out
//                              of a URL or a header
//
// With a token, every request needs "Authorization: Bearer <token>" (401 otherwise). Every
// request's target (path and query, as sent, before any decoding) is recorded: targets().
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "prowl/core/status.hpp"

namespace prowl::testing {

class ShopServer {
 public:
  explicit ShopServer(const std::string& db_path, std::string token = {})
      : token_(std::move(token)) {
    PROWL_CHECK(sqlite3_open(db_path.c_str(), &db_) == SQLITE_OK, "cannot open " + db_path);
    sqlite3_busy_timeout(db_, 5000);
    exec(
        "CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL, "
        "qty INTEGER NOT NULL, status TEXT NOT NULL, paid INTEGER NOT NULL DEFAULT 0, "
        "refunded INTEGER NOT NULL DEFAULT 0)");
    routes();
    port_ = server_.bind_to_any_port("127.0.0.1");
    PROWL_CHECK(port_ > 0, "cannot bind 127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    PROWL_CHECK(server_.is_running(), "the test server did not start");
  }
  ~ShopServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
    sqlite3_close_v2(db_);
  }
  ShopServer(const ShopServer&) = delete;
  ShopServer& operator=(const ShopServer&) = delete;

  int port() const { return port_; }
  // The target of every request received so far, in order.
  std::vector<std::string> targets() {
    std::lock_guard<std::mutex> lock(mutex_);
    return targets_;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Runs SQL on the server's own connection (to set up or read the database in a test).
  void exec(const std::string& sql) {
    std::lock_guard<std::mutex> lock(mutex_);
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    std::string message = err ? err : "";
    sqlite3_free(err);
    PROWL_CHECK(rc == SQLITE_OK, sql + ": " + message);
  }
  long long scalar(const std::string& sql) {
    std::lock_guard<std::mutex> lock(mutex_);
    return scalar_locked(sql);
  }

 private:
  using Json = nlohmann::json;

  long long scalar_locked(const std::string& sql, long long bind = 0) {
    sqlite3_stmt* stmt = nullptr;
    PROWL_CHECK(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK, sql);
    if (sqlite3_bind_parameter_count(stmt) > 0) sqlite3_bind_int64(stmt, 1, bind);
    long long v = -1;
    if (sqlite3_step(stmt) == SQLITE_ROW) v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
  }
  void exec_locked(const std::string& sql, long long id) {
    sqlite3_stmt* stmt = nullptr;
    PROWL_CHECK(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK, sql);
    sqlite3_bind_int64(stmt, 1, id);
    PROWL_CHECK(sqlite3_step(stmt) == SQLITE_DONE, sql);
    sqlite3_finalize(stmt);
  }
  // The order's status, or "" when there is no such order.
  std::string status_locked(long long id) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, "SELECT status FROM orders WHERE id = ?", -1, &stmt, nullptr);
    sqlite3_bind_int64(stmt, 1, id);
    std::string s;
    if (sqlite3_step(stmt) == SQLITE_ROW) {
      s = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    return s;
  }
  static void reply(httplib::Response& res, int status, const Json& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
  }

  void routes() {
    server_.set_keep_alive_max_count(1000);
    server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        targets_.push_back(req.target);
      }
      if (token_.empty() || req.get_header_value("Authorization") == "Bearer " + token_) {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      reply(res, 401, {{"error", "unauthorized"}});
      return httplib::Server::HandlerResponse::Handled;
    });
    server_.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("shop", "text/plain");
    });
    server_.Post("/orders", [this](const httplib::Request& req, httplib::Response& res) {
      const Json body = Json::parse(req.body, nullptr, false);
      if (body.is_discarded() || !body.contains("qty") || !body["qty"].is_number_integer()) {
        return reply(res, 400, {{"error", "qty must be an integer"}});
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (scalar_locked("SELECT count(*) FROM orders") >= 3) {
        return reply(res, 409, {{"error", "too many orders"}});
      }
      sqlite3_stmt* stmt = nullptr;
      sqlite3_prepare_v2(db_, "INSERT INTO orders (item, qty, status) VALUES (?, ?, 'new')", -1,
                         &stmt, nullptr);
      const std::string item = body.value("item", "");
      sqlite3_bind_text(stmt, 1, item.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(stmt, 2, body["qty"].get<long long>());
      PROWL_CHECK(sqlite3_step(stmt) == SQLITE_DONE, "insert failed");
      sqlite3_finalize(stmt);
      reply(res, 201, {{"id", sqlite3_last_insert_rowid(db_)}, {"status", "new"}});
    });
    server_.Post(R"(/orders/(\d+)/(pay|refund|cancel))",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   const long long id = std::stoll(req.matches[1]);
                   const std::string verb = req.matches[2];
                   std::lock_guard<std::mutex> lock(mutex_);
                   const std::string status = status_locked(id);
                   if (status.empty()) return reply(res, 404, {{"error", "no such order"}});
                   std::string next;
                   if (verb == "pay" && status == "new") {
                     exec_locked("UPDATE orders SET status = 'paid', paid = 10 WHERE id = ?", id);
                     next = "paid";
                   } else if (verb == "refund" && (status == "paid" || status == "refunded")) {
                     exec_locked(
                         "UPDATE orders SET status = 'refunded', refunded = refunded + 10 "
                         "WHERE id = ?",
                         id);
                     next = "refunded";
                   } else if (verb == "cancel" && status == "new") {
                     exec_locked("UPDATE orders SET status = 'cancelled' WHERE id = ?", id);
                     next = "cancelled";
                   } else if (verb == "cancel" && status == "paid") {
                     return reply(res, 500, {{"error", "cannot cancel a paid order"}});
                   } else {
                     return reply(res, 409, {{"error", verb + " not allowed"}, {"status", status}});
                   }
                   reply(res, 200, {{"id", id}, {"status", next}});
                 });
    server_.Get(R"(/orders/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
      const long long id = std::stoll(req.matches[1]);
      std::lock_guard<std::mutex> lock(mutex_);
      sqlite3_stmt* stmt = nullptr;
      sqlite3_prepare_v2(db_, "SELECT item, qty, status, paid, refunded FROM orders WHERE id = ?",
                         -1, &stmt, nullptr);
      sqlite3_bind_int64(stmt, 1, id);
      if (sqlite3_step(stmt) != SQLITE_ROW) {
        sqlite3_finalize(stmt);
        return reply(res, 404, {{"error", "no such order"}});
      }
      Json order = {{"id", id},
                    {"item", reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))},
                    {"qty", sqlite3_column_int64(stmt, 1)},
                    {"status", reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2))},
                    {"paid", sqlite3_column_int64(stmt, 3)},
                    {"refunded", sqlite3_column_int64(stmt, 4)}};
      sqlite3_finalize(stmt);
      reply(res, 200, order);
    });
    server_.Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      reply(res, 200,
            {{"orders", scalar_locked("SELECT count(*) FROM orders")},
             {"paid", scalar_locked("SELECT coalesce(sum(paid), 0) FROM orders")}});
    });
    server_.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      res.set_content("{}", "application/json");
    });
    server_.Get("/drop", [](const httplib::Request&, httplib::Response& res) {
      res.set_content_provider(100, "application/json",
                               [](std::size_t, std::size_t, httplib::DataSink&) { return false; });
    });
    server_.Get("/text", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("plain text, not JSON", "text/plain");
    });
    server_.Get("/whoami", [](const httplib::Request& req, httplib::Response& res) {
      reply(res, 200,
            {{"auth", req.get_header_value("Authorization")},
             {"key", req.get_header_value("X-Api-Key")}});
    });
    server_.Get("/hostile", [](const httplib::Request&, httplib::Response& res) {
      reply(res, 200,
            {{"id", "../admin?role=root#x"},
             {"ref", "r1\r\nX-Injected: 1"},
             {"dots", ".."},
             {"word", "caf\u00e9 & co"}});
    });
  }

  std::string token_;
  std::vector<std::string> targets_;  // guarded by mutex_
  sqlite3* db_ = nullptr;
  std::mutex mutex_;
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
};

}  // namespace prowl::testing
