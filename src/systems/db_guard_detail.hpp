// The inside of DatabaseGuard (include/prowl/systems/db_guard.hpp), shared by db_guard.cpp (the
// table of held locks, recovery records' bookkeeping), sqlite_guard.cpp and postgres_guard.cpp
// (the two kinds of lock), and the systems that write recovery records (sqlite_restore.cpp,
// postgres_modes.cpp).
//
// Every GuardEntry lives in one table for the process, guarded by one mutex: entries are created,
// shared, counted and destroyed only while it is held, so that a lock is never let go by one
// thread while another takes it anew.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/systems/db_guard.hpp"

namespace prowl::detail {

// Who holds a lock, or began a run that a recovery record belongs to.
struct Holder {
  long pid = 0;
  std::string since;  // local time, "2026-11-25 13:00:01"
};

// This process, now.
Holder current_holder();
// "prowl pid 4242 since 2026-11-25 13:00:01": the text of a SQLite lock file and the
// application_name of a PostgreSQL guard's connection.
std::string holder_text(const Holder& holder);
// The holder that text names; nullopt when it is not holder_text()'s form.
std::optional<Holder> parse_holder_text(std::string_view text);
// "2026-11-25 13:00:01", local time.
std::string local_time_text(std::time_t t);
// The name of this machine (gethostname), "unknown" when it has none.
std::string host_name();

// One held lock, shared by every DatabaseGuard on the same database in the process. Each kind
// releases its lock in its destructor.
struct GuardEntry {
  virtual ~GuardEntry() = default;

  std::string database;  // as messages name it: "sqlite '/x/shop.db'", "postgres '...'"
  pid_t owner = 0;       // the process that took the lock (a forked child must not release it)
  int holders = 0;       // the DatabaseGuards on this entry
  // Recovery record bookkeeping: the runs (systems between begin() and end()) that count on the
  // record, and whether one of them was destroyed without ending (then the record stays for the
  // next guard to recover, whatever the others do).
  int record_users = 0;
  bool record_abandoned = false;
};

// The mutex of the table of entries; held by every function below that says so.
std::mutex& guard_mutex();
// The entries. REQUIRES: guard_mutex() held.
std::vector<std::unique_ptr<GuardEntry>>& guard_entries();

struct GuardAccess {
  // A new guard on entry (counted). REQUIRES: guard_mutex() held.
  static std::shared_ptr<DatabaseGuard> make(GuardEntry* entry, std::string recovered);
  static GuardEntry& entry(const DatabaseGuard& guard) { return *guard.entry_; }
};

// Adds entry to the table and returns the first guard on it. REQUIRES: guard_mutex() held.
std::shared_ptr<DatabaseGuard> add_entry(std::unique_ptr<GuardEntry> entry, std::string recovered);

// The entry of a guard, as its kind. REQUIRES: the guard is of that kind.
template <class Entry>
Entry& entry_of(const DatabaseGuard& guard) {
  auto* e = dynamic_cast<Entry*>(&GuardAccess::entry(guard));
  PROWL_CHECK(e != nullptr, "the guard of " + guard.database() + " is of another kind");
  return *e;
}

// A system's run counts on the database's recovery record from begin() to end(). The first
// run in the process writes it (write(), with guard_mutex() held); the others find it written.
Status begin_record(const DatabaseGuard& guard, const std::function<Status()>& write);
// The run ended cleanly, the initial content back in the database: the last run removes the
// record (remove(), with guard_mutex() held), unless a run of this process left it unfinished.
Status end_record(const DatabaseGuard& guard, const std::function<Status()>& remove);
// The run did not end (its system was destroyed without end()): the record stays, for the next
// guard that takes the lock to recover.
void abandon_record(const DatabaseGuard& guard);

}  // namespace prowl::detail
