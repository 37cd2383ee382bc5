// Db: the small SQL interface the shop's logic is written against, once, with one implementation
// per database (SqliteDb, PostgresDb).
//
// SQL text uses PostgreSQL's positional placeholders $1..$n; SqliteDb rewrites them to ?1..?n.
// Parameters and result values are text, a NULL value is nullopt; each database converts a
// parameter by the type of the column or expression it meets, so SQL that mixes a parameter into
// arithmetic should CAST it. Write SQL that both databases accept: no `::` casts, no booleans in
// results (use CASE ... THEN 1 ELSE 0), RETURNING for rows changed.
//
// Transactions: begin(), commit() and rollback() bracket one shop operation; they do not nest.
// Outside them every statement is its own transaction. An implementation keeps no transaction
// open between operations.
//
// Ownership and threads: a Db is one database connection. It is not thread-safe; one thread uses
// it at a time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shop_api/status.hpp"

namespace shop {

using Value = std::optional<std::string>;
using Row = std::vector<Value>;
using Rows = std::vector<Row>;
using Params = std::vector<std::string>;

enum class Dialect { kSqlite, kPostgres };

class Db {
 public:
  virtual ~Db() = default;

  virtual Dialect dialect() const = 0;

  // Runs one statement and returns its rows (none for a statement without RETURNING). The
  // statement is prepared on first use and the prepared form is kept for the connection's life,
  // keyed by the SQL text. Fails with the database's message, which names the SQL.
  virtual Result<Rows> execute(std::string_view sql, const Params& params = {}) = 0;

  virtual Status begin() = 0;
  virtual Status commit() = 0;
  // Undoes everything since begin(). Also called after a failed statement.
  virtual Status rollback() = 0;
};

}  // namespace shop
