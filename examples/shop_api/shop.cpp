#include "shop_api/shop.hpp"

#include <charconv>
#include <optional>
#include <string>
#include <utility>

#include "shop_api/schema.hpp"

namespace shop {

namespace detail {
struct Order {
  std::int64_t id = 0;
  std::int64_t product_id = 0;
  std::int64_t qty = 0;
  std::string status;
  std::int64_t amount_cents = 0;
  std::int64_t paid_cents = 0;
  std::int64_t refunded_cents = 0;
};
}  // namespace detail

namespace {

// The columns of an order as detail::Order reads them: the row, then its payments and refunds.
constexpr std::string_view kOrderColumns =
    "SELECT o.id, o.product_id, o.qty, o.status, o.amount_cents,"
    " COALESCE((SELECT SUM(l.amount_cents) FROM ledger l"
    " WHERE l.order_id = o.id AND l.kind = 'payment'), 0),"
    " COALESCE((SELECT SUM(l.amount_cents) FROM ledger l"
    " WHERE l.order_id = o.id AND l.kind = 'refund'), 0)"
    " FROM orders o";

// The columns of a product: the row, then the units held by orders that are not cancelled.
constexpr std::string_view kProductColumns =
    "SELECT p.id, p.name, p.price_cents, p.stock, p.received,"
    " COALESCE((SELECT SUM(o.qty) FROM orders o"
    " WHERE o.product_id = p.id AND o.status <> 'cancelled'), 0)"
    " FROM products p";

std::int64_t to_int(const Value& value) {
  std::int64_t n = 0;
  if (value) std::from_chars(value->data(), value->data() + value->size(), n);
  return n;
}

detail::Order parse_order(const Row& row) {
  detail::Order o;
  o.id = to_int(row.at(0));
  o.product_id = to_int(row.at(1));
  o.qty = to_int(row.at(2));
  o.status = row.at(3).value_or("");
  o.amount_cents = to_int(row.at(4));
  o.paid_cents = to_int(row.at(5));
  o.refunded_cents = to_int(row.at(6));
  return o;
}

nlohmann::json order_json(const detail::Order& o) {
  return {{"id", o.id},
          {"product_id", o.product_id},
          {"qty", o.qty},
          {"status", o.status},
          {"amount_cents", o.amount_cents},
          {"paid_cents", o.paid_cents},
          {"refunded_cents", o.refunded_cents},
          {"net_paid_cents", o.paid_cents - o.refunded_cents}};
}

nlohmann::json product_row_json(const Row& row) {
  return {{"id", to_int(row.at(0))},          {"name", row.at(1).value_or("")},
          {"price_cents", to_int(row.at(2))}, {"stock", to_int(row.at(3))},
          {"received", to_int(row.at(4))},    {"committed", to_int(row.at(5))}};
}

Reply db_failure(const Status& status) {
  return error_reply(500, "database error: " + status.message());
}

Reply not_found(std::string_view what, std::int64_t id) {
  return error_reply(404, std::string(what) + " " + std::to_string(id) + " not found");
}

Reply conflict(const detail::Order& order, std::string_view rule) {
  Reply reply = error_reply(
      409, "order " + std::to_string(order.id) + " is " + order.status + "; " + std::string(rule));
  reply.body["status"] = order.status;
  return reply;
}

}  // namespace

Status Shop::init() { return create_schema(db_); }

template <class Fn>
Reply Shop::in_transaction(Fn&& fn) {
  if (auto s = db_.begin(); !s) return db_failure(s);
  Reply reply = fn();
  if (reply.status >= 200 && reply.status < 300) {
    if (auto s = db_.commit(); !s) {
      db_.rollback();
      return db_failure(s);
    }
  } else {
    // A refusal has changed nothing; a failure must not leave half an operation behind.
    db_.rollback();
  }
  return reply;
}

Result<std::optional<detail::Order>> Shop::load_order(std::int64_t order_id) {
  static const std::string sql = std::string(kOrderColumns) + " WHERE o.id = $1";
  auto rows = db_.execute(sql, {std::to_string(order_id)});
  if (!rows) return rows.status();
  if (rows->empty()) return std::optional<detail::Order>();
  return std::optional<detail::Order>(parse_order(rows->front()));
}

Result<std::optional<nlohmann::json>> Shop::product_json(std::int64_t product_id) {
  static const std::string sql = std::string(kProductColumns) + " WHERE p.id = $1";
  auto rows = db_.execute(sql, {std::to_string(product_id)});
  if (!rows) return rows.status();
  if (rows->empty()) return std::optional<nlohmann::json>();
  return std::optional<nlohmann::json>(product_row_json(rows->front()));
}

namespace {

// Moves an order from the status it was read with to `to`. The status in the WHERE clause keeps
// two concurrent operations on PostgreSQL from both acting on the same old status.
Status transition(Db& db, detail::Order& order, std::string_view to) {
  auto rows = db.execute("UPDATE orders SET status = $2 WHERE id = $1 AND status = $3 RETURNING id",
                         {std::to_string(order.id), std::string(to), order.status});
  if (!rows) return rows.status();
  if (rows->empty())
    return Status::error("order " + std::to_string(order.id) + " changed meanwhile");
  order.status = to;
  return Status::ok();
}

Status record(Db& db, detail::Order& order, std::string_view kind) {
  auto rows =
      db.execute("INSERT INTO ledger (order_id, kind, amount_cents) VALUES ($1, $2, $3)",
                 {std::to_string(order.id), std::string(kind), std::to_string(order.amount_cents)});
  if (!rows) return rows.status();
  (kind == "payment" ? order.paid_cents : order.refunded_cents) += order.amount_cents;
  return Status::ok();
}

Status return_to_stock(Db& db, const detail::Order& order) {
  return db
      .execute("UPDATE products SET stock = stock + CAST($2 AS BIGINT) WHERE id = $1",
               {std::to_string(order.product_id), std::to_string(order.qty)})
      .status();
}

}  // namespace

Reply Shop::create_order(std::int64_t product_id, std::int64_t qty) {
  if (qty < 1 || qty > kMaxOrderQty) {
    return error_reply(400, "qty must be between 1 and " + std::to_string(kMaxOrderQty));
  }
  return in_transaction([&]() -> Reply {
    auto product =
        db_.execute("SELECT price_cents FROM products WHERE id = $1", {std::to_string(product_id)});
    if (!product) return db_failure(product.status());
    if (product->empty()) return not_found("product", product_id);
    // Reserve the units only if they are there, in the same statement that takes them.
    auto taken = db_.execute(
        "UPDATE products SET stock = stock - CAST($2 AS BIGINT)"
        " WHERE id = $1 AND stock >= CAST($2 AS BIGINT) RETURNING stock",
        {std::to_string(product_id), std::to_string(qty)});
    if (!taken) return db_failure(taken.status());
    if (taken->empty()) {
      auto left =
          db_.execute("SELECT stock FROM products WHERE id = $1", {std::to_string(product_id)});
      if (!left) return db_failure(left.status());
      const std::int64_t stock = left->empty() ? 0 : to_int(left->front().at(0));
      Reply reply = error_reply(409, "product " + std::to_string(product_id) + " has " +
                                         std::to_string(stock) + " in stock, " +
                                         std::to_string(qty) + " wanted");
      reply.body["stock"] = stock;
      return reply;
    }
    detail::Order order;
    order.product_id = product_id;
    order.qty = qty;
    order.status = "pending";
    order.amount_cents = to_int(product->front().at(0)) * qty;
    auto inserted = db_.execute(
        "INSERT INTO orders (product_id, qty, status, amount_cents)"
        " VALUES ($1, $2, 'pending', $3) RETURNING id",
        {std::to_string(product_id), std::to_string(qty), std::to_string(order.amount_cents)});
    if (!inserted) return db_failure(inserted.status());
    order.id = to_int(inserted->at(0).at(0));
    return {201, order_json(order)};
  });
}

Reply Shop::pay(std::int64_t order_id) {
  return in_transaction([&]() -> Reply {
    auto loaded = load_order(order_id);
    if (!loaded) return db_failure(loaded.status());
    if (!*loaded) return not_found("order", order_id);
    detail::Order& order = **loaded;
    if (order.status != "pending") return conflict(order, "only a pending order can be paid");
    if (auto s = transition(db_, order, "paid"); !s) return db_failure(s);
    if (auto s = record(db_, order, "payment"); !s) return db_failure(s);
    return {200, order_json(order)};
  });
}

Reply Shop::cancel(std::int64_t order_id) {
  return in_transaction([&]() -> Reply {
    auto loaded = load_order(order_id);
    if (!loaded) return db_failure(loaded.status());
    if (!*loaded) return not_found("order", order_id);
    detail::Order& order = **loaded;
    // Seeded bug: only orders that have left the warehouse are refused. A cancelled order is
    // cancelled again, and its units go back to stock a second time.
    if (order.status == "shipped" || order.status == "refunded") {
      return conflict(order, "only a pending or paid order can be cancelled");
    }
    const bool was_paid = order.status == "paid";
    if (auto s = transition(db_, order, "cancelled"); !s) return db_failure(s);
    if (auto s = return_to_stock(db_, order); !s) return db_failure(s);
    if (was_paid) {
      if (auto s = record(db_, order, "refund"); !s) return db_failure(s);
    }
    return {200, order_json(order)};
  });
}

Reply Shop::ship(std::int64_t order_id) {
  return in_transaction([&]() -> Reply {
    auto loaded = load_order(order_id);
    if (!loaded) return db_failure(loaded.status());
    if (!*loaded) return not_found("order", order_id);
    detail::Order& order = **loaded;
    // Seeded bug: "paid" is read from the ledger (a payment exists) instead of the status. A paid
    // order that was then cancelled still has its payment row, so it ships after its money and
    // its units were given back.
    if (order.paid_cents == 0 || order.status == "shipped" || order.status == "refunded") {
      return conflict(order, "only a paid order can be shipped");
    }
    if (auto s = transition(db_, order, "shipped"); !s) return db_failure(s);
    return {200, order_json(order)};
  });
}

Reply Shop::refund(std::int64_t order_id) {
  return in_transaction([&]() -> Reply {
    auto loaded = load_order(order_id);
    if (!loaded) return db_failure(loaded.status());
    if (!*loaded) return not_found("order", order_id);
    detail::Order& order = **loaded;
    // Seeded bug: only orders that were never paid or were cancelled are refused. A refunded
    // order is refunded again.
    if (order.status == "pending" || order.status == "cancelled") {
      return conflict(order, "only a paid or shipped order can be refunded");
    }
    if (auto s = record(db_, order, "refund"); !s) return db_failure(s);
    if (auto s = transition(db_, order, "refunded"); !s) return db_failure(s);
    return {200, order_json(order)};
  });
}

Reply Shop::restock(std::int64_t product_id, std::int64_t qty) {
  if (qty < 1 || qty > kMaxRestockQty) {
    return error_reply(400, "qty must be between 1 and " + std::to_string(kMaxRestockQty));
  }
  return in_transaction([&]() -> Reply {
    auto updated = db_.execute(
        "UPDATE products SET stock = stock + CAST($2 AS BIGINT),"
        " received = received + CAST($2 AS BIGINT) WHERE id = $1 RETURNING id",
        {std::to_string(product_id), std::to_string(qty)});
    if (!updated) return db_failure(updated.status());
    if (updated->empty()) return not_found("product", product_id);
    auto product = product_json(product_id);
    if (!product) return db_failure(product.status());
    return {200, **product};
  });
}

Reply Shop::order(std::int64_t order_id) {
  auto loaded = load_order(order_id);
  if (!loaded) return db_failure(loaded.status());
  if (!*loaded) return not_found("order", order_id);
  return {200, order_json(**loaded)};
}

Reply Shop::orders() {
  static const std::string sql = std::string(kOrderColumns) + " ORDER BY o.id";
  auto rows = db_.execute(sql);
  if (!rows) return db_failure(rows.status());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& row : *rows) list.push_back(order_json(parse_order(row)));
  return {200, {{"orders", std::move(list)}}};
}

Reply Shop::product(std::int64_t product_id) {
  auto product = product_json(product_id);
  if (!product) return db_failure(product.status());
  if (!*product) return not_found("product", product_id);
  return {200, **product};
}

Reply Shop::products() {
  static const std::string sql = std::string(kProductColumns) + " ORDER BY p.id";
  auto rows = db_.execute(sql);
  if (!rows) return db_failure(rows.status());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& row : *rows) list.push_back(product_row_json(row));
  return {200, {{"products", std::move(list)}}};
}

Reply Shop::stats() {
  // One statement, so the figures come from one snapshot without a transaction.
  static const std::string sql = [] {
    std::string s =
        "SELECT (SELECT COUNT(*) FROM orders),"
        " (SELECT COUNT(*) FROM orders WHERE status = 'pending'),"
        " (SELECT COUNT(*) FROM orders WHERE status = 'paid'),"
        " (SELECT COUNT(*) FROM orders WHERE status = 'cancelled'),"
        " (SELECT COUNT(*) FROM orders WHERE status = 'shipped'),"
        " (SELECT COUNT(*) FROM orders WHERE status = 'refunded'),"
        " (SELECT COALESCE(SUM(amount_cents), 0) FROM ledger WHERE kind = 'payment'),"
        " (SELECT COALESCE(SUM(amount_cents), 0) FROM ledger WHERE kind = 'refund'),"
        " (SELECT COALESCE(SUM(stock), 0) FROM products),"
        " (SELECT COALESCE(SUM(received), 0) FROM products),"
        " (SELECT COALESCE(SUM(qty), 0) FROM orders WHERE status <> 'cancelled')";
    int n = 0;
    for (const auto& check : invariant_checks()) {
      s += ", (SELECT COUNT(*) FROM (" + std::string(check.sql) + ") AS v" + std::to_string(++n) +
           ")";
    }
    return s;
  }();
  auto rows = db_.execute(sql);
  if (!rows) return db_failure(rows.status());
  const Row& r = rows->at(0);
  nlohmann::json audit = nlohmann::json::object();
  std::size_t column = 11;
  for (const auto& check : invariant_checks()) {
    audit[std::string(check.audit_field)] = to_int(r.at(column++));
  }
  const std::int64_t paid = to_int(r.at(6));
  const std::int64_t refunded = to_int(r.at(7));
  return {200,
          {{"orders",
            {{"total", to_int(r.at(0))},
             {"pending", to_int(r.at(1))},
             {"paid", to_int(r.at(2))},
             {"cancelled", to_int(r.at(3))},
             {"shipped", to_int(r.at(4))},
             {"refunded", to_int(r.at(5))}}},
           {"money",
            {{"paid_cents", paid}, {"refunded_cents", refunded}, {"net_cents", paid - refunded}}},
           {"stock",
            {{"in_stock", to_int(r.at(8))},
             {"received", to_int(r.at(9))},
             {"committed", to_int(r.at(10))}}},
           {"audit", std::move(audit)}}};
}

Reply Shop::health() {
  auto rows = db_.execute("SELECT 1");
  if (!rows) return {503, {{"status", "unavailable"}, {"error", rows.status().message()}}};
  return {200, {{"status", "ok"}}};
}

Reply error_reply(int status, std::string message) {
  return {status, {{"error", std::move(message)}}};
}

}  // namespace shop
