// Helpers for the shop_api tests: a temporary directory, a PostgreSQL database created per test
// from PROWL_TEST_PG_DSN (skipped when unset, a failure when CI=true), and a Shop over either
// database.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "shop_api/db.hpp"
#include "shop_api/postgres_db.hpp"
#include "shop_api/schema.hpp"
#include "shop_api/shop.hpp"
#include "shop_api/sqlite_db.hpp"

namespace shop::testing {

// A directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "shop_api_test.XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// PROWL_TEST_PG_DSN, or nullopt. Tests call it through SHOP_REQUIRE_PG_DSN.
inline std::optional<std::string> pg_admin_dsn() {
  const char* dsn = std::getenv("PROWL_TEST_PG_DSN");
  if (dsn == nullptr || *dsn == '\0') return std::nullopt;
  return std::string(dsn);
}

inline bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// In a test body or SetUp(): binds `var` to the admin DSN, or skips the test (fails it in CI).
#define SHOP_REQUIRE_PG_DSN(var)                                                     \
  const auto var##_optional = ::shop::testing::pg_admin_dsn();                       \
  if (!var##_optional) {                                                             \
    if (::shop::testing::running_in_ci()) {                                          \
      FAIL() << "PROWL_TEST_PG_DSN is not set, and CI=true requires the PostgreSQL " \
                "tests to run";                                                      \
    }                                                                                \
    GTEST_SKIP() << "PROWL_TEST_PG_DSN is not set";                                  \
  }                                                                                  \
  const std::string var = *var##_optional

// libpq's quoting for a value in a key=value connection string.
inline std::string conninfo_quote(const std::string& value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// `dsn` (key=value or URI) with its dbname replaced, as a key=value string.
inline std::string dsn_with_dbname(const std::string& dsn, const std::string& dbname) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(dsn.c_str(), &error);
  if (options == nullptr) {
    ADD_FAILURE() << "bad PROWL_TEST_PG_DSN: " << (error ? error : "?");
    PQfreemem(error);
    return dsn;
  }
  std::string out;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr || std::string(o->keyword) == "dbname") continue;
    out += std::string(o->keyword) + "=" + conninfo_quote(o->val) + " ";
  }
  PQconninfoFree(options);
  return out + "dbname=" + conninfo_quote(dbname);
}

// Runs one statement on a new connection to `dsn`; returns the error message, empty on success.
inline std::string pg_admin_exec(const std::string& dsn, const std::string& sql) {
  PGconn* conn = PQconnectdb(dsn.c_str());
  std::string error;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
  } else {
    PGresult* result = PQexec(conn, sql.c_str());
    if (PQresultStatus(result) != PGRES_COMMAND_OK) error = PQresultErrorMessage(result);
    PQclear(result);
  }
  PQfinish(conn);
  return error;
}

// A database created on the server of PROWL_TEST_PG_DSN with a unique name, dropped (with any
// connection still open to it) by the destructor.
class PgTestDatabase {
 public:
  explicit PgTestDatabase(std::string admin_dsn) : admin_dsn_(std::move(admin_dsn)) {
    static std::atomic<int> counter{0};
    std::random_device random;
    name_ = "shop_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter) + "_" +
            std::to_string(random() % 1000000);
    const std::string error = pg_admin_exec(admin_dsn_, "CREATE DATABASE " + name_);
    created_ = error.empty();
    if (!created_) ADD_FAILURE() << "CREATE DATABASE " << name_ << ": " << error;
    dsn_ = dsn_with_dbname(admin_dsn_, name_);
  }
  ~PgTestDatabase() {
    if (!created_) return;
    const std::string error =
        pg_admin_exec(admin_dsn_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    if (!error.empty()) ADD_FAILURE() << "DROP DATABASE " << name_ << ": " << error;
  }
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;

  bool created() const { return created_; }
  const std::string& name() const { return name_; }
  const std::string& dsn() const { return dsn_; }

 private:
  std::string admin_dsn_;
  std::string name_;
  std::string dsn_;
  bool created_ = false;
};

enum class Backend { kSqlite, kPostgres };

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

inline void PrintTo(Backend backend, std::ostream* out) {
  *out << (backend == Backend::kSqlite ? "sqlite" : "postgres");
}

// The rows of `sql` as text, NULL as "NULL": one string per row, values joined by '|'.
inline std::vector<std::string> query(Db& db, std::string_view sql) {
  auto rows = db.execute(sql);
  if (!rows) {
    ADD_FAILURE() << rows.status().message();
    return {};
  }
  std::vector<std::string> out;
  for (const auto& row : *rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) line += '|';
      line += row[i].value_or("NULL");
    }
    out.push_back(line);
  }
  return out;
}

// The SQL check of the invariant called `name`.
inline std::string_view check_sql(std::string_view name) {
  for (const auto& check : invariant_checks()) {
    if (check.name == name) return check.sql;
  }
  ADD_FAILURE() << "no invariant " << name;
  return "SELECT 1";
}

// Every table's rows in a stable order: the whole state of the shop, to compare before and after.
inline std::vector<std::string> dump_tables(Db& db) {
  std::vector<std::string> out;
  for (const char* sql :
       {"SELECT 'product', id, name, price_cents, stock, received FROM products ORDER BY id",
        "SELECT 'order', id, product_id, qty, status, amount_cents FROM orders ORDER BY id",
        "SELECT 'ledger', id, order_id, kind, amount_cents FROM ledger ORDER BY id"}) {
    for (auto& line : query(db, sql)) out.push_back(std::move(line));
  }
  return out;
}

}  // namespace shop::testing
