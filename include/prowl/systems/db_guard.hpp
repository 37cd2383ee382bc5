// DatabaseGuard: a run's exclusive hold on one database (a SQLite file, a PostgreSQL database),
// taken before anything touches it, with the recovery of a run that did not end.
//
// The lock. Only one process at a time holds a database: a second prowl run on it stops with
// Status::environment naming the database and the run that holds it, instead of testing a file
// that another run keeps changing under it.
//   SQLite      an flock(LOCK_EX | LOCK_NB) on a lock file beside the database (its canonical
//               path + ".prowl-lock"), holding the holder's pid and start time as text. The
//               kernel drops the lock with the process, even on SIGKILL, so a file left behind
//               never blocks. The last holder in the process removes the file when it lets go.
//               The database file need not exist yet: a service may create it after prowl has
//               locked it. Hard links are different databases to prowl (one lock file per path).
//   PostgreSQL  a session-level advisory lock (pg_try_advisory_lock with prowl's key pair) on a
//               connection the guard keeps open, whose application_name is "prowl pid N since
//               T". The server drops it when the connection ends, however the process ended.
// Within one process the lock is shared: a second guard on the same database (SQLite: the same
// canonical path, or the same device and inode; PostgreSQL: the same server host, port or socket
// and database name, as libpq reports them after connecting) succeeds and is counted, and the
// lock is let go when the last guard on it is destroyed.
//
// Recovery. SqliteSystem and PostgresSystem write a recovery record of the database's initial
// content when they begin (SQLite: PATH.prowl-recovery beside the file; PostgreSQL: the schema
// prowl_recovery in the database itself) and remove it when they end cleanly. A guard that takes
// a lock no other guard in the process holds looks for such a record: its run is necessarily gone
// (the lock was free), so the guard writes the recorded content back, removes the record and says
// so in recovered(). A record that cannot be read is Status::environment naming it and saying how
// to remove it by hand; it is never dropped silently.
//
// Guards are shared (std::shared_ptr): the model-file layer takes one before it starts any
// service, and the systems it opens later share the same lock. Everything here is thread-safe: one
// mutex in the process guards the table of held locks.
#pragma once

#include <memory>
#include <string>

#include "prowl/core/status.hpp"

namespace prowl {

namespace detail {
struct GuardEntry;
struct GuardAccess;
}  // namespace detail

class DatabaseGuard {
 public:
  // Lets go of this holder's share of the lock; the last one in the process releases it.
  ~DatabaseGuard();
  DatabaseGuard(const DatabaseGuard&) = delete;
  DatabaseGuard& operator=(const DatabaseGuard&) = delete;

  // How messages name the database: "sqlite '/x/shop.db'" (the path as given) or
  // "postgres 'host=h dbname=shop'" (the DSN, password redacted).
  const std::string& database() const { return database_; }
  // One line per recovery this guard performed when it was taken ("recovered /x/shop.db: put back
  // its content from before the run of pid 4242 (begun 2026-11-25 13:00:01) that did not end");
  // empty if none (always empty for a guard that shared a lock already held in the process).
  const std::string& recovered() const { return recovered_; }

 private:
  friend struct detail::GuardAccess;
  DatabaseGuard(detail::GuardEntry* entry, std::string database, std::string recovered);

  detail::GuardEntry* entry_;  // the held lock, shared with the other guards on it
  std::string database_;
  std::string recovered_;
};

// Takes (or shares) the lock of the SQLite database at path, then recovers a run that did not
// end. Status::environment when another process holds it ("sqlite '/x/shop.db' is in use by
// another prowl run (pid 4242, since 2026-11-25 13:00:01); wait for it to end, or stop it"), when
// the lock file cannot be created, or when a recovery record cannot be read or written back.
// How a guard is taken.
struct GuardOptions {
  // Recover even a database that was changed after the run that left the record stopped, or a
  // file that replaced the one the record was written for (`prowl recover --force`). Without it
  // such a recovery is refused with an environment Status that says both ways out. (SQLite only:
  // a PostgreSQL record is put back without that check.)
  bool force_recovery = false;
};

Result<std::shared_ptr<DatabaseGuard>> guard_sqlite(const std::string& path,
                                                    GuardOptions options = {});

// The same for the PostgreSQL database a libpq DSN names (keyword/value or URI). The guard keeps
// one connection open for its lifetime. Status::environment when the server cannot be reached,
// when another session holds the lock (naming its pid, from its application_name, or its backend
// pid and client address when it is not prowl's), or when a recovery fails.
Result<std::shared_ptr<DatabaseGuard>> guard_postgres(const std::string& dsn,
                                                      GuardOptions options = {});

}  // namespace prowl
