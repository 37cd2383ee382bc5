// The shop's tables, its seed products and the SQL checks of its invariants.
//
// Tables (SQL that SQLite and PostgreSQL both accept; ids are INTEGER PRIMARY KEY rowids on
// SQLite and identity columns, backed by sequences, on PostgreSQL):
//   products(id, name, price_cents, stock, received)   received: units ever put into stock
//   orders(id, product_id, qty, status, amount_cents)   status: pending | paid | cancelled |
//                                                       shipped | refunded
//   ledger(id, order_id, kind, amount_cents)            kind: payment | refund
// The tables hold the whole state of the shop: the service keeps nothing in memory.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "shop_api/db.hpp"
#include "shop_api/status.hpp"

namespace shop {

struct SeedProduct {
  std::string_view name;
  std::int64_t price_cents;
  std::int64_t stock;
};

// Inserted, in this order (ids 1 and 2), when the products table is empty.
inline constexpr std::array<SeedProduct, 2> kSeedProducts = {{
    {"widget", 1200, 2},
    {"gadget", 2500, 1},
}};

// An invariant of the shop as SQL: the query returns one row per violation and no row while the
// invariant holds. Each seeded bug breaks one of them (README.md).
struct InvariantCheck {
  std::string_view name;
  std::string_view description;
  std::string_view audit_field;  // the counter of violations in GET /stats, under "audit"
  std::string_view sql;
};

const std::array<InvariantCheck, 3>& invariant_checks();

// Creates the tables and indexes when missing, and inserts kSeedProducts when the products table
// is empty; all in one transaction. Idempotent.
Status create_schema(Db& db);

}  // namespace shop
