// PostgresDb: a Db over one libpq connection, in one of two forms.
//
//  - connect(dsn): owns its connection, closed by the destructor. begin(), commit() and
//    rollback() are BEGIN, COMMIT and ROLLBACK. Server notices ("relation already exists,
//    skipping") are dropped.
//  - borrow(conn): uses a connection the caller owns, typically while the caller holds a
//    transaction open around it (prowl's savepoint mode runs the shop in-process inside its own
//    transaction). It never issues BEGIN, COMMIT or ROLLBACK: begin() is SAVEPOINT, commit() is
//    RELEASE SAVEPOINT and rollback() is ROLLBACK TO SAVEPOINT then RELEASE SAVEPOINT, so a failed
//    operation leaves the caller's transaction usable and as it was.
//    REQUIRES for begin(): the connection is inside a transaction block (else begin() fails).
//    A statement run outside begin()/commit() that fails aborts the caller's transaction.
//
// Statements are prepared on first use under names unique to this PostgresDb
// (shop_<instance>_<n>), so several PostgresDb on one connection do not collide; a borrowing
// PostgresDb deallocates its statements when destroyed. Identity columns draw from sequences,
// which no ROLLBACK undoes: ids are not reused after a rollback.
//
// Ownership: see above; a borrowed connection must outlive the PostgresDb. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "shop_api/db.hpp"
#include "shop_api/status.hpp"

struct pg_conn;

namespace shop {

class PostgresDb final : public Db {
 public:
  // Connects with a libpq connection string ("host=127.0.0.1 port=5432 dbname=shop" or a
  // postgresql:// URI). Fails with libpq's message.
  static Result<std::unique_ptr<PostgresDb>> connect(const std::string& dsn);
  // REQUIRES: conn is an open connection that outlives the returned PostgresDb.
  static std::unique_ptr<PostgresDb> borrow(pg_conn* conn);
  ~PostgresDb() override;
  PostgresDb(const PostgresDb&) = delete;
  PostgresDb& operator=(const PostgresDb&) = delete;

  Dialect dialect() const override { return Dialect::kPostgres; }
  Result<Rows> execute(std::string_view sql, const Params& params = {}) override;
  Status begin() override;
  Status commit() override;
  Status rollback() override;

  bool owns_connection() const { return owned_; }
  pg_conn* connection() const { return conn_; }

 private:
  PostgresDb(pg_conn* conn, bool owned);
  Status command(const char* sql);

  pg_conn* conn_;
  bool owned_;
  bool in_savepoint_ = false;
  std::string prefix_;
  std::map<std::string, std::string, std::less<>> statements_;  // SQL -> prepared name
};

}  // namespace shop
