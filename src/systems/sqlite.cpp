#include "prowl/systems/sqlite.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace prowl {
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
        out += '\'';
        for (std::size_t i = 0; i < n; ++i) {
          if (row[pos + i] == '\'') out += '\'';
          out += row[pos + i];
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

// Resets a statement when the scope ends, so prowl's connection never keeps a read transaction
// (and its lock) open while the service runs.
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~ResetOnExit() { sqlite3_reset(stmt_); }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* stmt_;
};

}  // namespace

void SqliteSystem::Image::Free::operator()(unsigned char* p) const { sqlite3_free(p); }

SqliteSystem::SqliteSystem(std::string name, SqliteOptions options)
    : System(std::move(name)), options_(std::move(options)) {}

SqliteSystem::~SqliteSystem() {
  for (auto& o : observed_) sqlite3_finalize(o.stmt);
  sqlite3_finalize(data_version_stmt_);
  sqlite3_close_v2(db_);
  sqlite3_close_v2(mem_);
}

Result<std::unique_ptr<SqliteSystem>> SqliteSystem::open(std::string name, SqliteOptions options) {
  std::unique_ptr<SqliteSystem> sys(new SqliteSystem(std::move(name), std::move(options)));
  const std::string& path = sys->options_.path;
  int rc = sqlite3_open_v2(path.c_str(), &sys->db_, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    return Status::environment(
        fmt::format("sqlite '{}': cannot open: {}", path,
                    sys->db_ ? sqlite3_errmsg(sys->db_) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(sys->db_, sys->options_.busy_timeout_ms);
  // The file is only read when first queried: read its schema now, so a file that is not a
  // database is reported here rather than in the middle of a run.
  rc = sqlite3_exec(sys->db_, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return sys->error("cannot read the database", rc);
  // prowl's restores need no durability: a run interrupted by a power cut leaves an exploration
  // state in the file anyway. Without syncing, a restore is a few page writes.
  rc = sqlite3_exec(sys->db_, "PRAGMA synchronous = OFF", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return sys->error("cannot set PRAGMA synchronous", rc);
  rc = sqlite3_open_v2(":memory:", &sys->mem_, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    return Status::environment(
        fmt::format("sqlite '{}': cannot open an in-memory database for restores", path));
  }
  rc = sqlite3_prepare_v2(sys->db_, "PRAGMA data_version", -1, &sys->data_version_stmt_, nullptr);
  if (rc != SQLITE_OK) return sys->error("cannot prepare PRAGMA data_version", rc);

  for (const auto& table : sys->options_.tables) {
    sys->observed_.push_back({table, "SELECT * FROM " + quote_identifier(table), true, nullptr});
  }
  for (const auto& query : sys->options_.queries) {
    sys->observed_.push_back({query.name, query.sql, false, nullptr});
  }
  for (auto& o : sys->observed_) {
    if (Status st = sys->prepare(o); !st) return st;
  }
  return sys;
}

Status SqliteSystem::prepare(Observed& o) {
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v3(db_, o.sql.c_str(), static_cast<int>(o.sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &o.stmt, &tail);
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
  return Status::environment(fmt::format("sqlite '{}': {}: {} ({})", options_.path, what,
                                         sqlite3_errmsg(db_), sqlite3_errstr(rc)));
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

Status SqliteSystem::observe(Hasher& hasher) const {
  std::vector<std::string> rows;
  for (const auto& o : observed_) {
    if (Status st = read_rows(o, rows); !st) return st;
    hasher.add(o.name);
    // The column names, so that a changed schema is a changed state.
    const int columns = sqlite3_column_count(o.stmt);
    hasher.add_u64(static_cast<std::uint64_t>(columns));
    for (int c = 0; c < columns; ++c) {
      const char* column = sqlite3_column_name(o.stmt, c);
      hasher.add(std::string_view(column ? column : ""));
    }
    hasher.add_u64(rows.size());
    for (const auto& row : rows) hasher.add(row);
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

Result<SqlRows> SqliteSystem::query(std::string_view sql) const {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  auto failed = [&](int rc) {
    return Status::environment(fmt::format("sqlite '{}': query failed: {} ({}); SQL: {}",
                                           options_.path, sqlite3_errmsg(db_), sqlite3_errstr(rc),
                                           sql));
  };
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
  if (rc != SQLITE_OK) return failed(rc);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(stmt, sqlite3_finalize);
  const char* end = sql.data() + sql.size();
  while (tail && tail < end && (std::isspace(static_cast<unsigned char>(*tail)) || *tail == ';')) {
    ++tail;
  }
  if (stmt == nullptr || (tail && tail < end)) {
    return Status::invalid(
        fmt::format("sqlite '{}': a query must be one statement: {}", options_.path, sql));
  }
  SqlRows out;
  const int columns = sqlite3_column_count(stmt);
  for (int c = 0; c < columns; ++c) {
    const char* column = sqlite3_column_name(stmt, c);
    out.columns.emplace_back(column ? column : "");
  }
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
  if (rc != SQLITE_DONE) return failed(rc);
  return out;
}

Result<std::int64_t> SqliteSystem::data_version() {
  ResetOnExit reset(data_version_stmt_);
  int rc = sqlite3_step(data_version_stmt_);
  if (rc != SQLITE_ROW) return error("cannot read PRAGMA data_version", rc);
  return static_cast<std::int64_t>(sqlite3_column_int64(data_version_stmt_, 0));
}

Result<SqliteSystem::Image> SqliteSystem::serialize() {
  sqlite3_int64 size = 0;
  unsigned char* data = sqlite3_serialize(db_, "main", &size, 0);
  if (data == nullptr) return error("cannot read the database to save it", sqlite3_errcode(db_));
  Image image{std::unique_ptr<unsigned char, Image::Free>(data), size};
  // A WAL file's header says "WAL" (format versions 2); an in-memory copy cannot use a WAL, so
  // the image says "rollback journal" (1). The backup writes 2 again into a WAL file.
  if (size >= 20 && data[18] == 2 && data[19] == 2) data[18] = data[19] = 1;
  return image;
}

Status SqliteSystem::write_back(const Image& image) {
  // The in-memory connection gets its own copy: it keeps pointing at the buffer until the next
  // restore, and the snapshot may be released before that.
  auto* copy =
      static_cast<unsigned char*>(sqlite3_malloc64(static_cast<sqlite3_uint64>(image.size)));
  if (copy == nullptr && image.size > 0) {
    return Status::environment(fmt::format("sqlite '{}': out of memory copying a {} byte snapshot",
                                           options_.path, image.size));
  }
  if (image.size > 0) std::memcpy(copy, image.data.get(), static_cast<std::size_t>(image.size));
  int rc = sqlite3_deserialize(mem_, "main", copy, image.size, image.size,
                               SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) {
    return Status::environment(fmt::format("sqlite '{}': cannot load a snapshot: {}", options_.path,
                                           sqlite3_errmsg(mem_)));
  }
  sqlite3_backup* backup = sqlite3_backup_init(db_, "main", mem_, "main");
  if (backup == nullptr) return error("cannot start writing a snapshot back", sqlite3_errcode(db_));
  // The connection's busy handler already waits for locks; this loop also covers SQLITE_LOCKED
  // and a busy handler that gives up early, within the same bound.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.busy_timeout_ms);
  for (;;) {
    rc = sqlite3_backup_step(backup, -1);
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
    if (std::chrono::steady_clock::now() >= deadline) break;
    sqlite3_sleep(5);
  }
  const int finish = sqlite3_backup_finish(backup);
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
    return Status::environment(fmt::format(
        "sqlite '{}': cannot restore a snapshot: the database stayed locked for {} ms (the "
        "service must be idle, with no open transaction, between requests)",
        options_.path, options_.busy_timeout_ms));
  }
  if (rc != SQLITE_DONE) return error("cannot write a snapshot back", rc);
  if (finish != SQLITE_OK) return error("cannot write a snapshot back", finish);
  return Status::ok();
}

Status SqliteSystem::begin() {
  auto image = serialize();
  if (!image) return image.status();
  initial_ = std::move(*image);
  auto version = data_version();
  if (!version) return version.status();
  current_ = kInitialImage;
  current_version_ = *version;
  return Status::ok();
}

Status SqliteSystem::end() {
  if (initial_.data == nullptr) return Status::ok();  // never begun: nothing to put back
  Status st = reset();
  images_.clear();
  free_.clear();
  initial_ = Image{};
  current_ = kNoImage;
  return st;
}

Result<SnapshotHandle> SqliteSystem::save() {
  auto image = serialize();
  if (!image) return image.status();
  auto version = data_version();
  if (!version) return version.status();
  SnapshotHandle h;
  if (!free_.empty()) {
    h = free_.back();
    free_.pop_back();
    images_[h] = std::move(*image);
  } else {
    h = static_cast<SnapshotHandle>(images_.size());
    images_.push_back(std::move(*image));
  }
  current_ = h;
  current_version_ = *version;
  return h;
}

Status SqliteSystem::restore(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle].data != nullptr,
              "sqlite '" + options_.path + "': restore of an unknown snapshot");
  auto version = data_version();
  if (!version) return version.status();
  if (current_ == handle && *version == current_version_) return Status::ok();
  current_ = kNoImage;
  if (Status st = write_back(images_[handle]); !st) return st;
  current_ = handle;
  current_version_ = *version;  // prowl's own writes do not change its data_version
  return Status::ok();
}

void SqliteSystem::release(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle].data != nullptr,
              "sqlite '" + options_.path + "': release of an unknown snapshot");
  images_[handle] = Image{};
  free_.push_back(handle);
  if (current_ == handle) current_ = kNoImage;
}

Status SqliteSystem::reset() {
  PROWL_CHECK(initial_.data != nullptr, "sqlite '" + options_.path + "': reset before begin()");
  auto version = data_version();
  if (!version) return version.status();
  if (current_ == kInitialImage && *version == current_version_) return Status::ok();
  current_ = kNoImage;
  if (Status st = write_back(initial_); !st) return st;
  current_ = kInitialImage;
  current_version_ = *version;
  return Status::ok();
}

}  // namespace prowl
