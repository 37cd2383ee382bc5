// guard_postgres(): prowl's advisory lock on a PostgreSQL database, held by a connection of the
// guard's own whose application_name names the run; and who holds it when it is taken.
#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "db_guard_detail.hpp"
#include "postgres_detail.hpp"
#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/postgres.hpp"

namespace prowl {
namespace detail {
namespace {

// Who holds prowl's lock: the message that names it, and whether it is a prowl process of this
// machine that is gone (killed, or this process after it let go: the server has not yet noticed
// that its session ended).
struct HeldBy {
  std::string message;
  bool gone = false;
};

// Who holds prowl's lock on the database conn is connected to; nullopt when nobody does (any
// more).
Result<std::optional<HeldBy>> holder_of(PGconn* conn, const std::string& database) {
  const std::string sql = fmt::format(
      "SELECT l.pid, a.application_name, coalesce(host(a.client_addr), '') "
      "FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
      "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = {} AND l.objid = {} "
      "AND l.objsubid = 2 "
      "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      kLockKey1, kLockKey2);
  PgResult r(PQexec(conn, sql.c_str()));
  if (!ok(r.get())) {
    return Status::environment(fmt::format("{}: cannot tell which session holds prowl's lock: {}",
                                           database, result_message(r.get(), conn)));
  }
  if (PQntuples(r.get()) == 0) return std::optional<HeldBy>();
  const std::string backend = PQgetvalue(r.get(), 0, 0);
  const std::string client = PQgetvalue(r.get(), 0, 2);
  const bool local = client.empty() || client == "127.0.0.1" || client == "::1";
  if (!PQgetisnull(r.get(), 0, 1)) {
    if (auto holder = parse_holder_text(PQgetvalue(r.get(), 0, 1))) {
      // This process itself, when it holds no guard on the database (guard() asks after looking
      // for its own): a session it closed a moment ago, which the server has not ended yet.
      const bool gone =
          local && (holder->pid == static_cast<decltype(holder->pid)>(getpid()) ||
                    (::kill(static_cast<pid_t>(holder->pid), 0) != 0 && errno == ESRCH));
      return std::optional<HeldBy>(HeldBy{fmt::format("{} is in use by another prowl run (pid {}, "
                                                      "since {}); wait for it to end, or stop it",
                                                      database, holder->pid, holder->since),
                                          gone});
    }
  }
  return std::optional<HeldBy>(HeldBy{
      fmt::format("{} is in use by another prowl run (backend pid {}, client {}, which does not "
                  "name itself as prowl); wait for it to end, or stop it",
                  database, backend, client.empty() ? "on a local socket" : client),
      false});
}

}  // namespace

std::string server_key(PGconn* conn) {
  auto text = [](const char* s) { return std::string(s ? s : ""); };
  return text(PQhost(conn)) + '\n' + text(PQport(conn)) + '\n' + text(PQdb(conn));
}

PostgresEntry::~PostgresEntry() {
  // Closing the connection ends the session and with it the lock. A forked child shares the
  // parent's socket: closing it there would end the parent's session.
  if (conn != nullptr && getpid() == owner) PQfinish(conn);
}

bool postgres_guard_covers(const DatabaseGuard& guard, PGconn* conn) {
  const auto* entry = dynamic_cast<const PostgresEntry*>(&GuardAccess::entry(guard));
  return entry != nullptr && entry->key == server_key(conn);
}

}  // namespace detail

Result<std::shared_ptr<DatabaseGuard>> guard_postgres(const std::string& dsn,
                                                      GuardOptions /*options*/) {
  using detail::PostgresEntry;
  const std::string database = fmt::format("postgres '{}'", redact_dsn(dsn));
  // The DSN's own connect_timeout wins over the default; prowl's application_name wins over the
  // DSN's: it is how another run learns who holds the lock.
  const std::string name = detail::holder_text(detail::current_holder());
  const char* keys[] = {"connect_timeout", "dbname", "application_name", nullptr};
  const char* values[] = {"10", dsn.c_str(), name.c_str(), nullptr};
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdbParams(keys, values, 1), PQfinish);
  if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) {
    return Status::environment(
        fmt::format("{}: cannot connect: {}", database,
                    conn ? detail::one_line(PQerrorMessage(conn.get())) : "out of memory"));
  }
  // The record's DDL tells of what it drops; nobody needs to read that.
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  const std::string key = detail::server_key(conn.get());

  std::lock_guard<std::mutex> lock(detail::guard_mutex());
  for (const auto& e : detail::guard_entries()) {
    auto* entry = dynamic_cast<PostgresEntry*>(e.get());
    if (entry != nullptr && entry->owner == getpid() && entry->key == key) {
      return detail::GuardAccess::make(entry, std::string());
    }
  }
  const std::string sql =
      fmt::format("SELECT pg_try_advisory_lock({}, {})", detail::kLockKey1, detail::kLockKey2);
  bool locked = false;
  // The holder may let go between the attempt and the question who it is: then try again. A
  // prowl of this machine that was killed holds the lock until the server notices that its
  // session ended, a moment later: wait for that, up to a few seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int unseen = 0; unseen < 3 && !locked;) {
    detail::PgResult r(PQexec(conn.get(), sql.c_str()));
    if (!detail::ok(r.get())) {
      return Status::environment(fmt::format("{}: cannot take prowl's lock: {}", database,
                                             detail::result_message(r.get(), conn.get())));
    }
    locked = PQgetvalue(r.get(), 0, 0)[0] == 't';
    if (locked) break;
    auto holder = detail::holder_of(conn.get(), database);
    if (!holder) return holder.status();
    if (!*holder) {
      ++unseen;
      continue;
    }
    if (!(*holder)->gone || std::chrono::steady_clock::now() >= deadline) {
      return Status::environment((*holder)->message);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!locked) {
    return Status::environment(fmt::format(
        "{}: cannot take prowl's lock: it is held, but the session that holds it cannot be seen",
        database));
  }
  auto entry = std::make_unique<PostgresEntry>();
  entry->database = database;
  entry->owner = getpid();
  entry->key = key;
  entry->conn = conn.release();
  // On failure the entry goes away, and the lock with its connection.
  auto recovered = detail::recover(entry->conn, database);
  if (!recovered) return recovered.status();
  return detail::add_entry(std::move(entry), std::move(*recovered));
}

}  // namespace prowl
