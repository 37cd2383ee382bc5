#include "prowl/systems/sqlite.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"

#include "db_guard_detail.hpp"
#include "sqlite_detail.hpp"

namespace prowl {

using detail::ResetOnExit;

namespace {

// Value tags of the canonical row encoding. Each value is its tag followed by its payload:
// integers and reals as 8 big-endian bytes mapped so that they sort numerically, text and blobs as
// a 4-byte big-endian length and the bytes.
enum Tag : unsigned char { kNull = 0, kInteger = 1, kReal = 2, kText = 3, kBlob = 4 };

void put_be64(std::string& out, std::uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}
std::uint64_t get_be64(const std::string& in, std::size_t& pos) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(in[pos++]);
  return v;
}
void put_bytes(std::string& out, const void* data, int size) {
  const auto n = static_cast<std::uint32_t>(size);
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((n >> shift) & 0xff);
  if (n > 0) out.append(static_cast<const char*>(data), n);
}

constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

void encode_value(sqlite3_stmt* stmt, int col, std::string& out) {
  switch (sqlite3_column_type(stmt, col)) {
    case SQLITE_INTEGER:
      out += static_cast<char>(kInteger);
      put_be64(out, static_cast<std::uint64_t>(sqlite3_column_int64(stmt, col)) ^ kSignBit);
      break;
    case SQLITE_FLOAT: {
      double d = sqlite3_column_double(stmt, col);
      if (d == 0) d = 0;  // one encoding for 0.0 and -0.0, which SQLite compares equal
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      out += static_cast<char>(kReal);
      put_be64(out, (bits & kSignBit) ? ~bits : bits ^ kSignBit);
      break;
    }
    case SQLITE_TEXT: {
      const unsigned char* text = sqlite3_column_text(stmt, col);
      out += static_cast<char>(kText);
      put_bytes(out, text, sqlite3_column_bytes(stmt, col));
      break;
    }
    case SQLITE_BLOB: {
      const void* blob = sqlite3_column_blob(stmt, col);
      out += static_cast<char>(kBlob);
      put_bytes(out, blob, sqlite3_column_bytes(stmt, col));
      break;
    }
    default:
      out += static_cast<char>(kNull);
      break;
  }
}

// "(1, 2.5, 'it''s', x'00ff', NULL)" from an encoded row.
std::string render_row(const std::string& row) {
  std::string out = "(";
  std::size_t pos = 0;
  while (pos < row.size()) {
    if (pos > 0) out += ", ";
    const auto tag = static_cast<unsigned char>(row[pos++]);
    if (tag == kNull) {
      out += "NULL";
    } else if (tag == kInteger) {
      out += fmt::format("{}", static_cast<std::int64_t>(get_be64(row, pos) ^ kSignBit));
    } else if (tag == kReal) {
      std::uint64_t bits = get_be64(row, pos);
      bits = (bits & kSignBit) ? bits ^ kSignBit : ~bits;
      double d;
      std::memcpy(&d, &bits, sizeof d);
      std::string text = fmt::format("{}", d);
      // "3.0", not "3": a real reads differently from an integer.
      if (text.find_first_of(".en") == std::string::npos) text += ".0";
      out += text;
    } else {
      std::uint32_t n = 0;
      for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(row[pos++]);
      if (tag == kText) {
        // One line of a state's description: line breaks and control characters are escaped,
        // so a value cannot start a line of its own (escape_text).
        out += '\'';
        for (char c : escape_text(std::string_view(row).substr(pos, n))) {
          if (c == '\'') out += '\'';
          out += c;
        }
        out += '\'';
      } else {
        out += "x'";
        for (std::size_t i = 0; i < n; ++i) {
          out += fmt::format("{:02x}", static_cast<unsigned char>(row[pos + i]));
        }
        out += '\'';
      }
      pos += n;
    }
  }
  out += ')';
  return out;
}

std::string quote_identifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// Appends what Hasher::add_u64 and Hasher::add(std::string_view) would add: the observation is
// kept as the exact bytes it adds to a fingerprint.
void append_u64(std::string& out, std::uint64_t v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  out.append(bytes, sizeof v);
}
void append_text(std::string& out, std::string_view s) {
  append_u64(out, s.size());
  out.append(s.data(), s.size());
}

// The most statements query() keeps prepared.
constexpr std::size_t kKeptQueries = 32;

// Whether a statement may call one of SQLite's built-in functions whose value can differ on the
// same rows. Every word of the text is looked at, quoted or not: a false alarm only costs reuse.
bool may_vary(std::string_view sql) {
  static constexpr std::string_view kVarying[] = {
      "random",       "randomblob", "changes",      "total_changes", "last_insert_rowid",
      "date",         "time",       "datetime",     "julianday",     "unixepoch",
      "strftime",     "timediff",   "current_date", "current_time",  "current_timestamp",
      "sqlite_offset"};
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
  };
  std::string word;
  for (std::size_t i = 0; i <= sql.size(); ++i) {
    if (i < sql.size() && word_char(sql[i])) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(sql[i])));
      continue;
    }
    if (word.rfind("pragma", 0) == 0) return true;  // PRAGMA functions read the file's header
    for (std::string_view v : kVarying) {
      if (word == v) return true;
    }
    word.clear();
  }
  return false;
}

}  // namespace

void SqliteSystem::Image::Free::operator()(unsigned char* p) const { sqlite3_free(p); }

SqliteSystem::SqliteSystem(std::string name, SqliteOptions options)
    : System(std::move(name)), options_(std::move(options)) {}

SqliteSystem::~SqliteSystem() {
  if (recording_) detail::abandon_record(*guard_);
  for (auto& o : observed_) sqlite3_finalize(o.stmt);
  for (auto& q : queries_) sqlite3_finalize(q.stmt);
  sqlite3_finalize(data_version_stmt_);
  sqlite3_finalize(begin_stmt_);
  sqlite3_finalize(commit_stmt_);
  sqlite3_finalize(read_cookie_stmt_);
  sqlite3_finalize(write_cookie_stmt_);
  sqlite3_finalize(lower_cookie_stmt_);
  sqlite3_close_v2(db_);
  sqlite3_close_v2(writer_);
  sqlite3_close_v2(mem_);
}

Result<std::unique_ptr<SqliteSystem>> SqliteSystem::open(std::string name, SqliteOptions options,
                                                         std::shared_ptr<DatabaseGuard> guard) {
  std::unique_ptr<SqliteSystem> sys(new SqliteSystem(std::move(name), std::move(options)));
  const std::string& path = sys->options_.path;
  // The lock first: a file another run holds is not opened, and one a run left changed is put
  // back before prowl reads it.
  if (guard == nullptr) {
    auto taken = guard_sqlite(path);
    if (!taken) return taken.status();
    guard = std::move(*taken);
  }
  PROWL_CHECK(detail::sqlite_guard_covers(*guard, path),
              "SqliteSystem::open('" + path + "') given the guard of " + guard->database());
  sys->guard_ = std::move(guard);
  for (sqlite3** db : {&sys->db_, &sys->writer_}) {
    int rc = sqlite3_open_v2(path.c_str(), db, SQLITE_OPEN_READWRITE, nullptr);
    if (rc != SQLITE_OK) {
      return Status::environment(fmt::format("sqlite '{}': cannot open: {}", path,
                                             *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc)));
    }
    sqlite3_busy_timeout(*db, sys->options_.busy_timeout_ms);
    // The file is only read when first queried: read its schema now, so a file that is not a
    // database is reported here rather than in the middle of a run.
    rc = sqlite3_exec(*db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return sys->error_on(*db, "cannot read the database", rc);
    // prowl's restores need no durability: a run interrupted by a power cut leaves an
    // exploration state in the file anyway. Without syncing, a restore is a few page writes.
    rc = sqlite3_exec(*db, "PRAGMA synchronous = OFF", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return sys->error_on(*db, "cannot set PRAGMA synchronous", rc);
  }
  // Observations, queries and saves only read: the reading connection cannot write, whatever SQL
  // it is given. Restores write through writer_.
  int rc = sqlite3_exec(sys->db_, "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return sys->error("cannot set PRAGMA query_only", rc);
  rc = sqlite3_open_v2(":memory:", &sys->mem_, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    return Status::environment(
        fmt::format("sqlite '{}': cannot open an in-memory database for restores", path));
  }
  const std::pair<const char*, sqlite3_stmt**> statements[] = {
      {"PRAGMA data_version", &sys->data_version_stmt_},
      {"BEGIN", &sys->begin_stmt_},
      {"COMMIT", &sys->commit_stmt_},
  };
  for (const auto& [sql, stmt] : statements) {
    rc = sqlite3_prepare_v3(sys->db_, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr);
    if (rc != SQLITE_OK) return sys->error(fmt::format("cannot prepare {}", sql), rc);
  }

  for (const auto& table : sys->options_.tables) {
    sys->observed_.push_back({table, "SELECT * FROM " + quote_identifier(table), true, nullptr});
  }
  for (const auto& query : sys->options_.queries) {
    sys->observed_.push_back({query.name, query.sql, false, nullptr});
    if (may_vary(query.sql)) sys->observation_reusable_ = false;
  }
  for (auto& o : sys->observed_) {
    if (Status st = sys->prepare(o); !st) return st;
  }
  return sys;
}

Result<std::vector<std::string>> SqliteSystem::table_names(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close_v2);
  auto failed = [&](int code) {
    return Status::environment(fmt::format("sqlite '{}': cannot list the tables: {} ({})", path,
                                           db ? sqlite3_errmsg(db.get()) : "out of memory",
                                           sqlite3_errstr(code)));
  };
  if (rc != SQLITE_OK) return failed(rc);
  sqlite3_stmt* stmt = nullptr;
  int step = sqlite3_prepare_v2(db.get(),
                                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT "
                                "LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
                                -1, &stmt, nullptr);
  if (step != SQLITE_OK) return failed(step);
  std::vector<std::string> names;
  while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
    names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  }
  sqlite3_finalize(stmt);
  if (step != SQLITE_DONE) return failed(step);
  return names;
}

Status SqliteSystem::prepare(Observed& o) {
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v3(db_, o.sql.c_str(), static_cast<int>(o.sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &o.stmt, &tail);
  // A declared table the file does not have is a mistake in the model (a misspelt name).
  if (rc == SQLITE_ERROR && o.is_table &&
      std::string_view(sqlite3_errmsg(db_)).starts_with("no such table")) {
    return Status::invalid(
        fmt::format("table '{}' does not exist in sqlite '{}'", o.name, options_.path));
  }
  if (rc != SQLITE_OK) return error_in(o, rc);
  const std::string kind = o.is_table ? "table" : "query";
  if (o.stmt == nullptr) {
    return Status::invalid(fmt::format("sqlite '{}': {} '{}' has no SQL statement: {}",
                                       options_.path, kind, o.name, o.sql));
  }
  while (tail &&
         (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == '\r' || *tail == ';')) {
    ++tail;
  }
  if (tail && *tail != '\0') {
    return Status::invalid(fmt::format("sqlite '{}': {} '{}' must be one statement: {}",
                                       options_.path, kind, o.name, o.sql));
  }
  // Observing must not change the state it observes.
  if (!sqlite3_stmt_readonly(o.stmt)) {
    return Status::invalid(fmt::format("sqlite '{}': {} '{}' writes to the database: {}",
                                       options_.path, kind, o.name, o.sql));
  }
  return Status::ok();
}

Status SqliteSystem::error(const std::string& what, int rc) const {
  return error_on(db_, what, rc);
}

Status SqliteSystem::error_on(sqlite3* db, const std::string& what, int rc) const {
  return Status::environment(fmt::format("sqlite '{}': {}: {} ({})", options_.path, what,
                                         sqlite3_errmsg(db), sqlite3_errstr(rc)));
}

Status SqliteSystem::error_in(const Observed& o, int rc) const {
  return Status::environment(fmt::format("sqlite '{}': {} '{}' failed: {} ({}); SQL: {}",
                                         options_.path, o.is_table ? "table" : "query", o.name,
                                         sqlite3_errmsg(db_), sqlite3_errstr(rc), o.sql));
}

Status SqliteSystem::read_rows(const Observed& o, std::vector<std::string>& rows) const {
  rows.clear();
  ResetOnExit reset(o.stmt);
  for (;;) {
    int rc = sqlite3_step(o.stmt);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return error_in(o, rc);
    std::string row;
    const int n = sqlite3_data_count(o.stmt);
    for (int c = 0; c < n; ++c) encode_value(o.stmt, c, row);
    rows.push_back(std::move(row));
  }
  if (o.is_table) std::sort(rows.begin(), rows.end());
  return Status::ok();
}

Result<SqliteSystem::ContentId> SqliteSystem::current_content() const {
  auto version = data_version();
  if (!version) return version.status();
  if (content_ == kUnknownContent || *version != content_version_) {
    content_ = new_content_id();
    content_version_ = *version;
  }
  return content_;
}

Status SqliteSystem::refresh_observation() const {
  // When the observation is of the content last seen, the content is read in a transaction of its
  // own first: if it is still that one, that is all there is to do. Otherwise the file holds
  // another content (a restored one, or a new one), and the tables are read.
  if (observation_reusable_ && observation_content_ != kUnknownContent &&
      observation_content_ == content_) {
    auto content = current_content();
    if (!content) return content.status();
    if (*content == observation_content_) {
      ++observations_reused_;
      return Status::ok();
    }
  }
  ReadTransaction txn(*this);
  if (!txn.status()) return txn.status();
  auto content = current_content();
  if (!content) return content.status();
  observation_content_ = kUnknownContent;
  observation_.clear();
  for (const auto& o : observed_) {
    if (Status st = read_rows(o, rows_scratch_); !st) return st;
    append_text(observation_, o.name);
    // The column names, so that a changed schema is a changed state.
    const int columns = sqlite3_column_count(o.stmt);
    append_u64(observation_, static_cast<std::uint64_t>(columns));
    for (int c = 0; c < columns; ++c) {
      const char* column = sqlite3_column_name(o.stmt, c);
      append_text(observation_, column ? column : "");
    }
    append_u64(observation_, rows_scratch_.size());
    for (const auto& row : rows_scratch_) append_text(observation_, row);
  }
  if (Status st = txn.close(); !st) return st;
  ++observations_read_;
  if (observation_reusable_) observation_content_ = *content;
  return Status::ok();
}

Status SqliteSystem::observe(Hasher& hasher) const {
  if (Status st = refresh_observation(); !st) return st;
  hasher.add_bytes(observation_.data(), observation_.size());
  // The run's sign of life on its recovery record, at most once a second: a later recovery
  // refuses to undo what was written to the file after the last one (sqlite_guard.cpp).
  if (recording_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_heartbeat_ >= std::chrono::seconds(1)) {
      detail::touch_sqlite_record(*guard_);
      last_heartbeat_ = now;
    }
  }
  return Status::ok();
}

std::string SqliteSystem::describe() const {
  std::string out;
  std::vector<std::string> rows;
  for (const auto& o : observed_) {
    if (!out.empty()) out += '\n';
    out += o.name + ": ";
    if (Status st = read_rows(o, rows); !st) {
      out += "error: " + st.message();
      continue;
    }
    if (rows.empty()) out += "(no rows)";
    for (std::size_t i = 0; i < rows.size() && out.size() <= options_.describe_limit; ++i) {
      if (i > 0) out += ", ";
      out += render_row(rows[i]);
    }
    if (out.size() > options_.describe_limit) break;
  }
  if (out.size() > options_.describe_limit) {
    out.resize(options_.describe_limit);
    out += "...";
  }
  return out;
}

Result<SqliteSystem::CachedQuery*> SqliteSystem::query_statement(std::string_view sql) const {
  for (std::size_t i = queries_.size(); i-- > 0;) {
    if (queries_[i].sql != sql) continue;
    // Most recently used last.
    std::rotate(queries_.begin() + static_cast<std::ptrdiff_t>(i),
                queries_.begin() + static_cast<std::ptrdiff_t>(i) + 1, queries_.end());
    return &queries_.back();
  }
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
  if (rc != SQLITE_OK) {
    return Status::environment(fmt::format("sqlite '{}': query failed: {} ({}); SQL: {}",
                                           options_.path, sqlite3_errmsg(db_), sqlite3_errstr(rc),
                                           sql));
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(stmt, sqlite3_finalize);
  const char* end = sql.data() + sql.size();
  while (tail && tail < end && (std::isspace(static_cast<unsigned char>(*tail)) || *tail == ';')) {
    ++tail;
  }
  if (stmt == nullptr || (tail && tail < end)) {
    return Status::invalid(
        fmt::format("sqlite '{}': a query must be one statement: {}", options_.path, sql));
  }
  // Invariants only read (the connection's query_only would refuse the write anyway, later and
  // with SQLite's words).
  if (!sqlite3_stmt_readonly(stmt)) {
    return Status::invalid(
        fmt::format("sqlite '{}': query writes to the database: {}", options_.path, sql));
  }
  if (queries_.size() >= kKeptQueries) {
    sqlite3_finalize(queries_.front().stmt);
    queries_.erase(queries_.begin());
  }
  CachedQuery& q = queries_.emplace_back();
  q.sql = std::string(sql);
  q.stmt = owned.release();
  q.reusable = !may_vary(sql);
  return &q;
}

Status SqliteSystem::run_query(CachedQuery& q, SqlRows& out) const {
  ++queries_run_;
  sqlite3_stmt* stmt = q.stmt;
  ResetOnExit reset(stmt);
  out.columns.clear();
  out.rows.clear();
  const int columns = sqlite3_column_count(stmt);
  for (int c = 0; c < columns; ++c) {
    const char* column = sqlite3_column_name(stmt, c);
    out.columns.emplace_back(column ? column : "");
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    auto& row = out.rows.emplace_back();
    for (int c = 0; c < columns; ++c) {
      if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
        row.emplace_back(std::nullopt);
        continue;
      }
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
      row.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c))));
    }
  }
  if (rc != SQLITE_DONE) {
    return Status::environment(fmt::format("sqlite '{}': query failed: {} ({}); SQL: {}",
                                           options_.path, sqlite3_errmsg(db_), sqlite3_errstr(rc),
                                           q.sql));
  }
  return Status::ok();
}

Result<SqlRows> SqliteSystem::query(std::string_view sql) const {
  auto cached = query_statement(sql);
  if (!cached) return cached.status();
  CachedQuery& q = **cached;
  SqlRows out;
  if (!q.reusable) {
    if (Status st = run_query(q, out); !st) return st;
    return out;
  }
  // As in refresh_observation(): rows of another content than the last seen cannot be reused.
  if (q.content != kUnknownContent && q.content == content_) {
    auto content = current_content();
    if (!content) return content.status();
    if (q.content == *content) {
      ++queries_reused_;
      return q.rows;
    }
  }
  ReadTransaction txn(*this);
  if (!txn.status()) return txn.status();
  auto content = current_content();
  if (!content) return content.status();
  q.content = kUnknownContent;
  if (Status st = run_query(q, out); !st) return st;
  if (Status st = txn.close(); !st) return st;
  q.rows = out;
  q.content = *content;
  return out;
}

}  // namespace prowl
