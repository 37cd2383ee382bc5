// SqliteDb: a Db over one sqlite3 connection to a database file.
//
// Opening sets a busy timeout, turns foreign keys on and, unless told otherwise, switches the file
// to WAL with synchronous=NORMAL (commits without an fsync each, for thousands of requests a
// second). Each statement is reset as soon as its rows are read, so no read transaction outlives
// execute(): between operations the connection holds no lock, and another connection (prowl's
// SqliteSystem) may restore the file; the next statement sees the restored content.
//
// Ownership: owns the connection and its prepared statements, closed by the destructor. Not
// thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "shop_api/db.hpp"
#include "shop_api/status.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace shop {

struct SqliteOptions {
  int busy_timeout_ms = 5000;
  bool wal = true;
};

class SqliteDb final : public Db {
 public:
  // Opens (creating when missing) the database file at `path`; ":memory:" for a private
  // in-memory database. Fails with SQLite's message naming the path.
  static Result<std::unique_ptr<SqliteDb>> open(const std::string& path,
                                                SqliteOptions options = {});
  ~SqliteDb() override;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  Dialect dialect() const override { return Dialect::kSqlite; }
  Result<Rows> execute(std::string_view sql, const Params& params = {}) override;
  // BEGIN IMMEDIATE: takes the write lock at once, so a transaction never fails half-way with
  // SQLITE_BUSY when it first writes.
  Status begin() override;
  Status commit() override;
  // Does nothing when no transaction is open (SQLite may already have rolled back on an error).
  Status rollback() override;

  // The connection, for tests.
  sqlite3* handle() const { return db_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Result<sqlite3_stmt*> prepare(std::string_view sql);
  Status error(std::string_view what, std::string_view sql) const;

  sqlite3* db_;
  std::string path_;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
};

namespace detail {
// Rewrites PostgreSQL placeholders $1..$n to SQLite's ?1..?n, leaving quoted text and quoted
// identifiers alone.
std::string sqlite_placeholders(std::string_view sql);
}  // namespace detail

}  // namespace shop
