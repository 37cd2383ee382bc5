// Pieces of SqliteSystem shared by its two source files: sqlite.cpp (observation, queries) and
// sqlite_restore.cpp (snapshots, images, restores).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/sqlite.hpp"

namespace prowl::detail {

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

// The schema cookie of a database image: the big-endian 32-bit integer at offset 40 of its
// header.
inline std::uint32_t schema_cookie(const unsigned char* data, std::int64_t size) {
  if (size < 44) return 0;
  return (std::uint32_t{data[40]} << 24) | (std::uint32_t{data[41]} << 16) |
         (std::uint32_t{data[42]} << 8) | std::uint32_t{data[43]};
}

// The recovery record of a SQLite database (sqlite_guard.cpp): PATH.prowl-recovery beside the
// file, the image as sqlite3_serialize gives it after a header with its holder, host, size and
// hash, written to a temporary name, synced and renamed into place. REQUIRES (both): guard_mutex()
// held, as begin_record() and end_record() hold it.
Status write_sqlite_record(const DatabaseGuard& guard, const unsigned char* data,
                           std::int64_t size);
Status remove_sqlite_record(const DatabaseGuard& guard);
// Marks the record as belonging to a run that is alive now (its modification time): a recovery
// refuses to undo changes made to the database after a dead run's last sign of life.
void touch_sqlite_record(const DatabaseGuard& guard);
// Whether guard is a SQLite guard on the database at path.
bool sqlite_guard_covers(const DatabaseGuard& guard, const std::string& path);

}  // namespace prowl::detail

namespace prowl {

// BEGIN on construction, COMMIT by close() or, failing that, the destructor: prowl's connection
// never keeps a read transaction (and its lock) open while the service runs.
class SqliteSystem::ReadTransaction {
 public:
  explicit ReadTransaction(const SqliteSystem& sys) : sys_(sys) {
    const int rc = sqlite3_step(sys_.begin_stmt_);
    sqlite3_reset(sys_.begin_stmt_);
    if (rc != SQLITE_DONE) status_ = sys_.error("cannot begin a read transaction", rc);
  }
  ~ReadTransaction() { (void)close(); }
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;

  const Status& status() const { return status_; }
  Status close() {
    if (closed_) return status_;
    closed_ = true;
    if (!status_) return status_;
    const int rc = sqlite3_step(sys_.commit_stmt_);
    sqlite3_reset(sys_.commit_stmt_);
    if (rc != SQLITE_DONE) {
      sqlite3_exec(sys_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
      status_ = sys_.error("cannot end a read transaction", rc);
    }
    return status_;
  }

 private:
  const SqliteSystem& sys_;
  Status status_;
  bool closed_ = false;
};

}  // namespace prowl
