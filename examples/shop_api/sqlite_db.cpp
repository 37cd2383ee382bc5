#include "shop_api/sqlite_db.hpp"

#include <sqlite3.h>

#include <cctype>
#include <utility>

namespace shop {
namespace {

// Resets a statement and drops its bindings when a call ends, however it ends: a statement left
// mid-step would keep a read transaction (and its lock) open after execute() returns.
class StatementReset {
 public:
  explicit StatementReset(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~StatementReset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  StatementReset(const StatementReset&) = delete;
  StatementReset& operator=(const StatementReset&) = delete;

 private:
  sqlite3_stmt* stmt_;
};

Status exec_pragma(sqlite3* db, const char* sql, const std::string& path) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK) return Status::ok();
  std::string text = message ? message : sqlite3_errmsg(db);
  sqlite3_free(message);
  return Status::error("sqlite '" + path + "': " + text + " (in: " + sql + ")");
}

}  // namespace

namespace detail {

std::string sqlite_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: same result
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '$' && i + 1 < sql.size() &&
               std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      out += '?';
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace detail

Result<std::unique_ptr<SqliteDb>> SqliteDb::open(const std::string& path, SqliteOptions options) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status::error("sqlite '" + path + "': cannot open: " + message);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  std::unique_ptr<SqliteDb> self(new SqliteDb(db, path));
  // The first statement reads the file: a file that is not a database fails here.
  if (auto s = exec_pragma(db, "PRAGMA foreign_keys = ON", path); !s) return s;
  if (options.wal) {
    // NORMAL first: the switch to WAL of a new file is itself a commit, synced once rather than
    // as FULL does.
    if (auto s = exec_pragma(db, "PRAGMA synchronous = NORMAL", path); !s) return s;
    if (auto s = exec_pragma(db, "PRAGMA journal_mode = WAL", path); !s) return s;
  }
  if (auto s = exec_pragma(db, "SELECT count(*) FROM sqlite_master", path); !s) return s;
  return self;
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

Status SqliteDb::error(std::string_view what, std::string_view sql) const {
  return Status::error("sqlite '" + path_ + "': " + std::string(what) + ": " + sqlite3_errmsg(db_) +
                       " (in: " + std::string(sql) + ")");
}

Result<sqlite3_stmt*> SqliteDb::prepare(std::string_view sql) {
  if (auto it = statements_.find(sql); it != statements_.end()) return it->second;
  const std::string translated = detail::sqlite_placeholders(sql);
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, translated.c_str(), static_cast<int>(translated.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK || stmt == nullptr) {
    sqlite3_finalize(stmt);
    return error("cannot prepare", sql);
  }
  statements_.emplace(std::string(sql), stmt);
  return stmt;
}

Result<Rows> SqliteDb::execute(std::string_view sql, const Params& params) {
  auto prepared = prepare(sql);
  if (!prepared) return prepared.status();
  sqlite3_stmt* stmt = *prepared;
  StatementReset reset(stmt);
  if (static_cast<int>(params.size()) != sqlite3_bind_parameter_count(stmt)) {
    return Status::error("sqlite '" + path_ + "': " + std::to_string(params.size()) +
                         " parameters for " + std::to_string(sqlite3_bind_parameter_count(stmt)) +
                         " placeholders (in: " + std::string(sql) + ")");
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    // SQLITE_STATIC: the parameters outlive the statement's use, which ends with `reset`.
    if (sqlite3_bind_text(stmt, static_cast<int>(i + 1), params[i].data(),
                          static_cast<int>(params[i].size()), SQLITE_STATIC) != SQLITE_OK) {
      return error("cannot bind parameter " + std::to_string(i + 1), sql);
    }
  }
  Rows rows;
  const int columns = sqlite3_column_count(stmt);
  while (true) {
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return error("statement failed", sql);
    Row& row = rows.emplace_back();
    row.reserve(columns);
    for (int c = 0; c < columns; ++c) {
      if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
        row.emplace_back();
        continue;
      }
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
      row.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c))));
    }
  }
  return rows;
}

Status SqliteDb::begin() { return execute("BEGIN IMMEDIATE").status(); }

Status SqliteDb::commit() { return execute("COMMIT").status(); }

Status SqliteDb::rollback() {
  if (sqlite3_get_autocommit(db_)) return Status::ok();
  return execute("ROLLBACK").status();
}

}  // namespace shop
