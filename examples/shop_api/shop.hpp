// Shop: the shop service's logic, written once over a Db and served both in-process and over HTTP
// (main.cpp is a thin layer over handle()).
//
// Products have stock; an order reserves stock for one product; a ledger records payments and
// refunds. The intended order lifecycle:
//
//   create_order   -> pending     reserves qty units (409 when fewer are in stock)
//   pay      pending -> paid      records a payment of amount_cents
//   cancel   pending | paid -> cancelled
//                                 returns the units to stock; a paid order is refunded
//   ship     paid -> shipped
//   refund   paid | shipped -> refunded
//                                 records a refund; the units are not returned to stock
//   restock  adds units to a product's stock (and to what it has received)
//
// Seeded bugs (README.md has their shortest sequences and the checks that find them): refund also
// accepts a refunded order; cancel also accepts a cancelled order; ship also accepts a cancelled
// order that had been paid.
//
// Every operation runs in one transaction (Db::begin/commit; rolled back when it refuses) and
// returns a Reply: an HTTP status and a JSON object. 2xx bodies are the resource ({"id": 1, ...});
// refusals are {"error": "..."} with 400 (malformed request), 404 (unknown id or path), 405 (method
// not allowed on a known path) or 409 (the order's status forbids it, or too little stock; the body
// then also has the current "status" or "stock"). 500 only when the database fails.
//
// Ownership and threads: a Shop borrows its Db, which must outlive it, and keeps no state of its
// own. Not thread-safe: one call at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shop_api/db.hpp"
#include "shop_api/status.hpp"

namespace shop {

namespace detail {
struct Order;  // an order row with its payments and refunds, as the operations read it
}  // namespace detail

struct Reply {
  int status = 200;
  nlohmann::json body = nlohmann::json::object();
};

// An error reply: STATUS and the body {"error": MESSAGE}.
Reply error_reply(int status, std::string message);

inline constexpr std::int64_t kMaxOrderQty = 100;
inline constexpr std::int64_t kMaxRestockQty = 1000;

class Shop {
 public:
  explicit Shop(Db& db) : db_(db) {}

  // Creates the schema when missing and seeds the products when there are none (schema.hpp).
  Status init();

  // POST /orders {"product_id": P, "qty": Q} -> 201 order. 400 unless 1 <= qty <= kMaxOrderQty.
  Reply create_order(std::int64_t product_id, std::int64_t qty);
  // POST /orders/{id}/pay, /cancel, /ship, /refund -> 200 order.
  Reply pay(std::int64_t order_id);
  Reply cancel(std::int64_t order_id);
  Reply ship(std::int64_t order_id);
  Reply refund(std::int64_t order_id);
  // POST /products/{id}/restock {"qty": Q} -> 200 product. 400 unless 1 <= qty <= kMaxRestockQty.
  Reply restock(std::int64_t product_id, std::int64_t qty);

  // GET /orders/{id}, /orders, /products/{id}, /products, /stats, /health.
  Reply order(std::int64_t order_id);
  Reply orders();
  Reply product(std::int64_t product_id);
  Reply products();
  Reply stats();
  Reply health();

  // The whole HTTP API without sockets: routes a request (method, path with an optional query
  // string, body) to the calls above, parsing and validating the JSON body.
  Reply handle(std::string_view method, std::string_view target, std::string_view body);

 private:
  template <class Fn>
  Reply in_transaction(Fn&& fn);
  Result<std::optional<detail::Order>> load_order(std::int64_t order_id);
  Result<std::optional<nlohmann::json>> product_json(std::int64_t product_id);

  Db& db_;
};

}  // namespace shop
