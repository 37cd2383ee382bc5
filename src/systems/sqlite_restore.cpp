#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "db_guard_detail.hpp"
#include "prowl/systems/sqlite.hpp"
#include "sqlite_detail.hpp"

namespace prowl {

using detail::ResetOnExit;
using detail::schema_cookie;

namespace {
// How long end() waits for other connections' readers before it truncates the WAL.
constexpr int kCheckpointWaitMs = 200;
// Image ids and content numbers, unique in the process: an image saved by one copy of a
// database keeps its meaning in another (several workers, one thread each).
std::atomic<std::uint64_t> g_last_image_id{0};
std::atomic<std::uint64_t> g_last_content{0};
}  // namespace

SqliteSystem::ContentId SqliteSystem::new_content_id() { return ++g_last_content; }

Result<std::int64_t> SqliteSystem::data_version() const {
  ResetOnExit reset(data_version_stmt_);
  int rc = sqlite3_step(data_version_stmt_);
  if (rc != SQLITE_ROW) return error("cannot read PRAGMA data_version", rc);
  return static_cast<std::int64_t>(sqlite3_column_int64(data_version_stmt_, 0));
}

Result<SqliteSystem::Image> SqliteSystem::serialize() {
  sqlite3_int64 size = 0;
  unsigned char* data = sqlite3_serialize(db_, "main", &size, 0);
  if (data == nullptr) return error("cannot read the database to save it", sqlite3_errcode(db_));
  Image image;
  image.data.reset(data);
  image.size = size;
  image.id = ++g_last_image_id;
  // A WAL file's header says "WAL" (format versions 2); an in-memory copy cannot use a WAL, so
  // the image says "rollback journal" (1). The backup writes 2 again into a WAL file.
  if (size >= 20 && data[18] == 2 && data[19] == 2) data[18] = data[19] = 1;
  return image;
}

Result<SqliteSystem::Image> SqliteSystem::save_image() {
  // The image and the number of its content from one read transaction: one state.
  ReadTransaction txn(*this);
  if (!txn.status()) return txn.status();
  auto content = current_content();
  if (!content) return content.status();
  auto image = serialize();
  if (!image) return image.status();
  if (Status st = txn.close(); !st) return st;
  image->content = *content;
  if (observation_content_ == *content) image->observation = observation_;
  for (const CachedQuery& q : queries_) {
    if (q.content == *content) image->results.push_back({q.sql, q.rows});
  }
  current_ = image->id;  // the file holds the image
  current_version_ = content_version_;
  return image;
}

Status SqliteSystem::load_memory(const Image& image) {
  // The in-memory connection gets its own copy: it keeps pointing at the buffer until the next
  // load, and the snapshot may be released before that.
  loaded_image_ = 0;
  auto* copy =
      static_cast<unsigned char*>(sqlite3_malloc64(static_cast<sqlite3_uint64>(image.size)));
  if (copy == nullptr && image.size > 0) {
    return Status::environment(fmt::format("sqlite '{}': out of memory copying a {} byte snapshot",
                                           options_.path, image.size));
  }
  if (image.size > 0) std::memcpy(copy, image.data.get(), static_cast<std::size_t>(image.size));
  const int rc = sqlite3_deserialize(mem_, "main", copy, image.size, image.size,
                                     SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) {
    return Status::environment(fmt::format("sqlite '{}': cannot load a snapshot: {}", options_.path,
                                           sqlite3_errmsg(mem_)));
  }
  loaded_image_ = image.id;
  return Status::ok();
}

Status SqliteSystem::write_back(const Image& image) {
  // A snapshot restored again (for the next sibling of a state) is still loaded.
  if (loaded_image_ != image.id) {
    if (Status st = load_memory(image); !st) return st;
  }
  // The backup runs on a connection of its own: it resets the schema of the connection it writes
  // with, and prowl's reading connection keeps its schema and its prepared statements.
  sqlite3_backup* backup = sqlite3_backup_init(writer_, "main", mem_, "main");
  if (backup == nullptr) {
    return error_on(writer_, "cannot start writing a snapshot back", sqlite3_errcode(writer_));
  }
  // The connection's busy handler already waits for locks; this loop also covers SQLITE_LOCKED
  // and a busy handler that gives up early, within the same bound.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.busy_timeout_ms);
  auto locked = [&] {
    return Status::environment(fmt::format(
        "sqlite '{}': cannot restore a snapshot: the database stayed locked for {} ms (the "
        "service must be idle, with no open transaction, between requests)",
        options_.path, options_.busy_timeout_ms));
  };
  // With the cookie kept, the backup runs inside a write transaction of prowl's that has set the
  // file's cookie one below the initial one: the backup writes its own cookie as one more than
  // the one it finds, so the restore is one commit with the initial cookie.
  bool cookie_set = false;
  int rc = SQLITE_OK;
  if (keep_cookie_) {
    auto kept = lower_schema_cookie(image, deadline);
    if (!kept) {
      sqlite3_backup_finish(backup);
      sqlite3_exec(writer_, "ROLLBACK", nullptr, nullptr, nullptr);
      return kept.status();
    }
    cookie_set = *kept;
  }
  for (;;) {
    rc = sqlite3_backup_step(backup, -1);
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
    if (std::chrono::steady_clock::now() >= deadline) break;
    sqlite3_sleep(5);
  }
  const int finish = sqlite3_backup_finish(backup);
  // The backup committed prowl's transaction (or rolled it back on failure); this only ends it
  // for the connection.
  if (!sqlite3_get_autocommit(writer_))
    sqlite3_exec(writer_, "ROLLBACK", nullptr, nullptr, nullptr);
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) return locked();
  if (rc != SQLITE_DONE) return error_on(writer_, "cannot write a snapshot back", rc);
  if (finish != SQLITE_OK) return error_on(writer_, "cannot write a snapshot back", finish);
  if (cookie_set) {
    if (Status st = check_schema_cookie(); !st) return st;
  }
  // The file holds the image's content from here on.
  content_ = kUnknownContent;
  // Written by prowl's other connection: the reading connection's data_version has moved on.
  auto version = data_version();
  if (!version) return version.status();
  content_ = image.content;
  content_version_ = *version;
  if (!image.observation.empty()) {
    observation_ = image.observation;
    observation_content_ = image.content;
  }
  for (const QueryResult& r : image.results) {
    for (CachedQuery& q : queries_) {
      if (q.sql != r.sql) continue;
      q.rows = r.rows;
      q.content = image.content;
    }
  }
  return Status::ok();
}

Result<bool> SqliteSystem::lower_schema_cookie(const Image& image,
                                               std::chrono::steady_clock::time_point deadline) {
  keep_cookie_ = false;  // until shown to be safe again
  // The image was saved with a different schema: the cookie must move on.
  if (schema_cookie(image.data.get(), image.size) != initial_cookie_) return false;
  int rc;
  while ((rc = sqlite3_exec(writer_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr)) ==
             SQLITE_BUSY &&
         std::chrono::steady_clock::now() < deadline) {
    sqlite3_sleep(5);
  }
  if (rc != SQLITE_OK) {
    if (rc == SQLITE_BUSY) {
      return Status::environment(fmt::format(
          "sqlite '{}': cannot restore a snapshot: the database stayed locked for {} ms (the "
          "service must be idle, with no open transaction, between requests)",
          options_.path, options_.busy_timeout_ms));
    }
    return error_on(writer_, "cannot start writing a snapshot back", rc);
  }
  rc = sqlite3_step(read_cookie_stmt_);
  const auto cookie = static_cast<std::uint32_t>(sqlite3_column_int64(read_cookie_stmt_, 0));
  sqlite3_reset(read_cookie_stmt_);
  if (rc != SQLITE_ROW) return error_on(writer_, "cannot read the schema cookie", rc);
  // A different cookie in the file: a schema change since begin(). Another connection may hold
  // a schema cached under the initial cookie: the cookie must move on.
  if (cookie != initial_cookie_) return false;
  rc = sqlite3_step(lower_cookie_stmt_);
  sqlite3_reset(lower_cookie_stmt_);
  if (rc != SQLITE_DONE) return error_on(writer_, "cannot set the schema cookie", rc);
  return true;
}

Status SqliteSystem::check_schema_cookie() {
  int rc = sqlite3_step(read_cookie_stmt_);
  const auto cookie = static_cast<std::uint32_t>(sqlite3_column_int64(read_cookie_stmt_, 0));
  sqlite3_reset(read_cookie_stmt_);
  if (rc != SQLITE_ROW) return error_on(writer_, "cannot read the schema cookie", rc);
  if (cookie == initial_cookie_) {
    keep_cookie_ = true;
    return Status::ok();
  }
  // A backup that did not count from the cookie it found in the transaction: the file still had
  // the initial cookie and the image has it too, so every state has the initial schema and the
  // initial cookie can be put back, in a transaction of its own.
  rc = sqlite3_step(write_cookie_stmt_);
  sqlite3_reset(write_cookie_stmt_);
  if (rc != SQLITE_DONE) return error_on(writer_, "cannot put the schema cookie back", rc);
  keep_cookie_ = true;
  return Status::ok();
}

Status SqliteSystem::begin() {
  content_ = kUnknownContent;
  auto image = save_image();
  if (!image) return image.status();
  initial_ = std::move(*image);
  initial_cookie_ = schema_cookie(initial_.data.get(), initial_.size);
  for (sqlite3_stmt** stmt : {&read_cookie_stmt_, &write_cookie_stmt_, &lower_cookie_stmt_}) {
    sqlite3_finalize(*stmt);
    *stmt = nullptr;
  }
  // PRAGMA schema_version takes a signed 32-bit value (and wraps, as the 32-bit cookie does).
  auto set = [](std::uint32_t cookie) {
    return fmt::format("PRAGMA schema_version = {}", static_cast<std::int32_t>(cookie));
  };
  for (const auto& [sql, stmt] :
       {std::pair{std::string("PRAGMA schema_version"), &read_cookie_stmt_},
        std::pair{set(initial_cookie_), &write_cookie_stmt_},
        std::pair{set(initial_cookie_ - 1), &lower_cookie_stmt_}}) {
    const int rc =
        sqlite3_prepare_v3(writer_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr);
    if (rc != SQLITE_OK) return error_on(writer_, "cannot prepare " + sql, rc);
  }
  keep_cookie_ = true;
  // Before anything changes the file: what to put back if this run does not end.
  if (options_.recovery_record) {
    Status st = detail::begin_record(*guard_, [this] {
      return detail::write_sqlite_record(*guard_, initial_.data.get(), initial_.size);
    });
    if (!st) return st;
    recording_ = true;
  }
  return Status::ok();
}

Status SqliteSystem::end() {
  if (initial_.data == nullptr) return Status::ok();  // never begun: nothing to put back
  Status st = reset();
  images_.clear();
  free_.clear();
  initial_ = Image{};
  current_ = kNoImage;
  // Leave no WAL the size of the run's busiest moment beside the file. Another connection may
  // still read from it: then it is truncated as far as it allows, after a short wait, and that is
  // not an error.
  sqlite3_busy_timeout(writer_, std::min(options_.busy_timeout_ms, kCheckpointWaitMs));
  sqlite3_exec(writer_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  sqlite3_busy_timeout(writer_, options_.busy_timeout_ms);
  if (recording_) {
    recording_ = false;
    if (!st) {
      // The initial content is not back: the record stays for the next guard.
      detail::abandon_record(*guard_);
      return st;
    }
    st = detail::end_record(*guard_, [this] { return detail::remove_sqlite_record(*guard_); });
  }
  return st;
}

Result<SnapshotHandle> SqliteSystem::save() {
  auto image = save_image();
  if (!image) return image.status();
  SnapshotHandle h;
  if (!free_.empty()) {
    h = free_.back();
    free_.pop_back();
    images_[h] = std::move(*image);
  } else {
    h = static_cast<SnapshotHandle>(images_.size());
    images_.push_back(std::move(*image));
  }
  return h;
}

Status SqliteSystem::put(const Image& image) {
  if (current_ == image.id) {
    auto version = data_version();
    if (!version) return version.status();
    if (*version == current_version_) return Status::ok();
  }
  current_ = kNoImage;
  if (Status st = write_back(image); !st) return st;
  current_ = image.id;
  current_version_ = content_version_;
  return Status::ok();
}

Status SqliteSystem::restore(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle].data != nullptr,
              "sqlite '" + options_.path + "': restore of an unknown snapshot");
  return put(images_[handle]);
}

void SqliteSystem::release(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle].data != nullptr,
              "sqlite '" + options_.path + "': release of an unknown snapshot");
  if (current_ == images_[handle].id) current_ = kNoImage;
  images_[handle] = Image{};
  free_.push_back(handle);
}

Status SqliteSystem::reset() {
  PROWL_CHECK(initial_.data != nullptr, "sqlite '" + options_.path + "': reset before begin()");
  return put(initial_);
}

Result<SystemImagePtr> SqliteSystem::capture() {
  auto image = save_image();
  if (!image) return image.status();
  return SystemImagePtr(std::make_shared<const Image>(std::move(*image)));
}

Status SqliteSystem::load(const SystemImagePtr& image) {
  const auto* mine = dynamic_cast<const Image*>(image.get());
  PROWL_CHECK(mine != nullptr && mine->data != nullptr,
              "sqlite '" + options_.path + "': load of an image another kind of system captured");
  return put(*mine);
}

}  // namespace prowl
