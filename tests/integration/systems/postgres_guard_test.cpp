// guard_postgres() and PostgresSystem's recovery record, against the real server: the advisory
// lock against a second process, the lock shared within one, and the content a killed run left
// changed, put back by the next guard (compared with pg_dump).
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/postgres.hpp"
#include "support/pg_test_env.hpp"
#include "unit/systems/sqlite_helpers.hpp"

namespace prowl {

// How gtest shows a test's mode (found by argument-dependent lookup).
static void PrintTo(PostgresMode mode, std::ostream* os) {
  *os << (mode == PostgresMode::kSavepoint ? "savepoint" : "snapshot");
}

namespace {

using testing::Child;
using testing::is_time_between;
using testing::pg_dump;
using testing::PgConnection;
using testing::PgTest;

// The guard, once the server has noticed that a killed holder's connection is gone.
Result<std::shared_ptr<DatabaseGuard>> guard_when_free(const std::string& dsn) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    auto guard = guard_postgres(dsn);
    if (guard || guard.status().message().find("is in use") == std::string::npos ||
        std::chrono::steady_clock::now() > deadline) {
      return guard;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// How many sessions hold prowl's lock on the test's database.
int lock_holders(const std::string& dsn) {
  return std::stoi(PgConnection(dsn).one(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = "
      "x'70726f77'::int AND objid = x'6c6f636b'::int AND objsubid = 2 AND database = (SELECT "
      "oid FROM pg_database WHERE datname = current_database())"));
}

void create_accounts(const std::string& dsn) {
  PgConnection(dsn).exec(
      "CREATE TABLE accounts (id serial PRIMARY KEY, name text, balance numeric);"
      "INSERT INTO accounts (name, balance) VALUES ('alice', 10.5), ('bob', 3);"
      "CREATE TABLE audit (line text)");
}

// A recovered line: "recovered postgres '...': put back its content from before the run of pid
// P (begun T) that did not end", with T between from and to.
void expect_recovered(const std::string& line, const std::string& dsn, pid_t pid, std::time_t from,
                      std::time_t to) {
  const std::string head = "recovered postgres '" + redact_dsn(dsn) +
                           "': put back its content from before the run of pid " +
                           std::to_string(pid) + " (begun ";
  const std::string tail = ") that did not end";
  ASSERT_GT(line.size(), head.size() + tail.size()) << line;
  EXPECT_EQ(line.substr(0, head.size()), head);
  EXPECT_EQ(line.substr(line.size() - tail.size()), tail);
  EXPECT_TRUE(
      is_time_between(line.substr(head.size(), line.size() - head.size() - tail.size()), from, to))
      << line;
}

class PostgresGuard : public PgTest {};

TEST_F(PostgresGuard, AnotherProcessHoldingTheDatabaseIsNamedAndItsLockDiesWithIt) {
  create_accounts(dsn());
  Child holder([&] {
    static std::shared_ptr<DatabaseGuard> kept;
    auto guard = guard_postgres(dsn());
    if (!guard) return guard.status().message();
    kept = *guard;
    return std::string("ready");
  });
  ASSERT_EQ(holder.line(), "ready");
  // The holder's connection names it.
  const std::string prefix = "prowl pid " + std::to_string(holder.pid()) + " since ";
  const std::string name = PgConnection(dsn()).one(
      "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE '" + prefix +
      "%'");
  const std::string since = name.substr(prefix.size());

  auto refused = guard_postgres(dsn());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(refused.status().message(), "postgres '" + redact_dsn(dsn()) +
                                            "' is in use by another prowl run (pid " +
                                            std::to_string(holder.pid()) + ", since " + since +
                                            "); wait for it to end, or stop it");
  // PostgresSystem takes the same lock before it connects, in both modes.
  for (PostgresMode mode : {PostgresMode::kSnapshot, PostgresMode::kSavepoint}) {
    auto sys = PostgresSystem::open("db", {.dsn = dsn(), .mode = mode, .tables = {"accounts"}});
    ASSERT_FALSE(sys);
    EXPECT_EQ(sys.status().message(), refused.status().message());
  }

  ASSERT_TRUE(holder.kill_now());
  auto taken = guard_when_free(dsn());
  ASSERT_TRUE(taken) << taken.status().message();
  EXPECT_EQ((*taken)->recovered(), "");
  EXPECT_EQ((*taken)->database(), "postgres '" + redact_dsn(dsn()) + "'");
  EXPECT_EQ(lock_holders(dsn()), 1);
}

TEST_F(PostgresGuard, OneProcessSharesItsLockUntilTheLastHolderLetsGo) {
  create_accounts(dsn());
  auto first = guard_postgres(dsn());
  ASSERT_TRUE(first) << first.status().message();
  // Another DSN for the same database is the same lock.
  auto second = guard_postgres(testing::pg_dsn_with(dsn(), "application_name", "other"));
  ASSERT_TRUE(second) << second.status().message();
  auto sys = PostgresSystem::open("db", {.dsn = dsn(), .tables = {"accounts"}}, *first);
  ASSERT_TRUE(sys) << sys.status().message();
  EXPECT_EQ((*sys)->guard(), *first);
  EXPECT_EQ(lock_holders(dsn()), 1);

  auto try_in_child = [&] {
    Child other([&] {
      auto guard = guard_postgres(dsn());
      return guard ? std::string("taken") : guard.status().message();
    });
    return other.line();
  };
  const std::string busy = "postgres '" + redact_dsn(dsn()) +
                           "' is in use by another prowl run (pid " + std::to_string(getpid()) +
                           ", since ";
  first->reset();
  sys->reset();
  EXPECT_EQ(try_in_child().substr(0, busy.size()), busy);
  second->reset();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (lock_holders(dsn()) > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(try_in_child(), "taken");
}

// A process that let go of the lock takes it again at once, although the server may not have
// ended its old session yet (found by CI: the old session's lock, held in this process's name,
// was taken for another run's).
TEST_F(PostgresGuard, AProcessThatLetGoTakesTheLockAgainAtOnce) {
  create_accounts(dsn());
  for (int i = 0; i < 30; ++i) {
    auto guard = guard_postgres(dsn());
    ASSERT_TRUE(guard) << "round " << i << ": " << guard.status().message();
  }
}

TEST_F(PostgresGuard, ASessionThatIsNotProwlsIsNamedByItsBackend) {
  PgConnection other(dsn());
  other.exec("SELECT pg_advisory_lock(x'70726f77'::int, x'6c6f636b'::int)");
  const std::string backend = std::to_string(PQbackendPID(other.get()));
  auto refused = guard_postgres(dsn());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().message(),
            "postgres '" + redact_dsn(dsn()) + "' is in use by another prowl run (backend pid " +
                backend +
                ", client 127.0.0.1, which does not name itself as prowl); wait for it to end, or "
                "stop it");
}

// A run killed between begin() and end() in each mode: the next guard puts the database back as
// pg_dump saw it before the run.
class PostgresRecovery : public PgTest, public ::testing::WithParamInterface<PostgresMode> {};

TEST_P(PostgresRecovery, TheNextGuardPutsBackWhatARunKilledMidwayLeftChanged) {
  create_accounts(dsn());
  const std::string original = pg_dump(dsn());
  const std::time_t from = std::time(nullptr);
  Child run([&] {
    // Nothing of the run may end cleanly: the system is never destroyed.
    auto sys = PostgresSystem::open(
        "db", {.dsn = dsn(), .mode = GetParam(), .tables = {"accounts", "audit"}});
    if (!sys) return sys.status().message();
    PostgresSystem* db = sys->release();
    if (Status st = db->begin(); !st) return st.message();
    if (GetParam() == PostgresMode::kSavepoint) {
      // The code under test, in prowl's transaction: the server rolls the rows back, not the
      // sequence.
      PGresult* r = PQexec(db->connection(),
                           "INSERT INTO accounts (name, balance) VALUES ('carol', 1), ('dan', 2)");
      const bool inserted = PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
      return std::string(inserted ? "ready" : "insert failed");
    }
    auto* service = new PgConnection(dsn());
    service->exec("INSERT INTO accounts (name, balance) VALUES ('carol', 1)");
    auto h = db->save();
    if (!h) return h.status().message();
    service->exec("DELETE FROM accounts WHERE name = 'alice'; INSERT INTO audit VALUES ('x')");
    if (Status st = db->restore(*h); !st) return st.message();
    service->exec("UPDATE accounts SET balance = 99; INSERT INTO accounts (name) VALUES ('eve')");
    return std::string("ready");
  });
  ASSERT_EQ(run.line(), "ready");
  const std::time_t to = std::time(nullptr);
  const pid_t child = run.pid();
  ASSERT_TRUE(run.kill_now());
  // The record is in the database, committed.
  EXPECT_EQ(PgConnection(dsn()).one("SELECT pid FROM prowl_recovery.run"), std::to_string(child));

  auto guard = guard_when_free(dsn());
  ASSERT_TRUE(guard) << guard.status().message();
  expect_recovered((*guard)->recovered(), dsn(), child, from, to);
  EXPECT_EQ(pg_dump(dsn()), original);
  EXPECT_EQ(PgConnection(dsn()).one("SELECT to_regnamespace('prowl_recovery') IS NULL"), "t");
}

TEST_P(PostgresRecovery, ACleanRunLeavesNoRecordAndTheDumpAsItWas) {
  create_accounts(dsn());
  const std::string original = pg_dump(dsn());
  PgConnection service(dsn());
  {
    auto sys = PostgresSystem::open(
        "db", {.dsn = dsn(), .mode = GetParam(), .tables = {"accounts", "audit"}});
    ASSERT_TRUE(sys) << sys.status().message();
    ASSERT_TRUE((*sys)->begin());
    // Committed before the first change: another session sees it.
    EXPECT_EQ(service.one("SELECT count(*) FROM prowl_recovery.run"), "1");
    PGconn* writer = GetParam() == PostgresMode::kSavepoint ? (*sys)->connection() : service.get();
    PQclear(PQexec(writer, "INSERT INTO accounts (name) VALUES ('carol'); DELETE FROM audit"));
    if (GetParam() == PostgresMode::kSnapshot) {
      auto h = (*sys)->save();
      ASSERT_TRUE(h);
      service.exec("DELETE FROM accounts");
      ASSERT_TRUE((*sys)->restore(*h));
    }
    ASSERT_TRUE((*sys)->end());
    EXPECT_EQ(service.one("SELECT to_regnamespace('prowl_recovery') IS NULL"), "t");
  }
  EXPECT_EQ(pg_dump(dsn()), original);
}

INSTANTIATE_TEST_SUITE_P(PostgresModes, PostgresRecovery,
                         ::testing::Values(PostgresMode::kSnapshot, PostgresMode::kSavepoint),
                         [](const auto& info) {
                           return info.param == PostgresMode::kSavepoint ? "savepoint" : "snapshot";
                         });

TEST_F(PostgresGuard, ARoleThatMayNotCreateASchemaKeepsTheRecordInItsOwnSchema) {
  // A role of this test's own (roles belong to the whole server), dropped before the database.
  struct Role {
    std::string dsn, name;
    ~Role() { PgConnection(dsn).exec("DROP OWNED BY " + name + "; DROP ROLE " + name); }
  } role{dsn(), db_->name() + "_app"};
  PgConnection(dsn()).exec("CREATE ROLE " + role.name + " LOGIN; GRANT ALL ON SCHEMA public TO " +
                           role.name);
  const std::string app = testing::pg_dsn_with(dsn(), "user", role.name);
  PgConnection(app).exec(
      "CREATE TABLE orders (id serial PRIMARY KEY, item text);"
      "INSERT INTO orders (item) VALUES ('pen')");
  const std::string original = pg_dump(dsn());
  const std::time_t from = std::time(nullptr);
  Child run([&] {
    auto sys = PostgresSystem::open("db", {.dsn = app, .tables = {"orders"}});
    if (!sys) return sys.status().message();
    PostgresSystem* db = sys->release();
    if (Status st = db->begin(); !st) return st.message();
    auto* service = new PgConnection(app);
    service->exec("DELETE FROM orders; INSERT INTO orders (item) VALUES ('ink'), ('cap')");
    return std::string("ready");
  });
  ASSERT_EQ(run.line(), "ready");
  const std::time_t to = std::time(nullptr);
  const pid_t child = run.pid();
  ASSERT_TRUE(run.kill_now());
  EXPECT_EQ(PgConnection(dsn()).one("SELECT pid FROM public.prowl_recovery_run"),
            std::to_string(child));
  auto guard = guard_when_free(app);
  ASSERT_TRUE(guard) << guard.status().message();
  expect_recovered((*guard)->recovered(), app, child, from, to);
  EXPECT_EQ(pg_dump(dsn()), original);
  guard->reset();
  // A clean run of the same role leaves nothing either.
  {
    auto sys = PostgresSystem::open("db", {.dsn = app, .tables = {"orders"}});
    ASSERT_TRUE(sys) << sys.status().message();
    ASSERT_TRUE((*sys)->begin());
    PgConnection(app).exec("INSERT INTO orders (item) VALUES ('nib')");
    ASSERT_TRUE((*sys)->end());
  }
  EXPECT_EQ(pg_dump(dsn()), original);
}

TEST_F(PostgresGuard, ARecordThatCannotBeReadIsAnErrorNamingItAndIsKept) {
  create_accounts(dsn());
  PgConnection admin(dsn());
  const std::string prefix = "postgres '" + redact_dsn(dsn()) +
                             "': the recovery record of a run that did not end (schema "
                             "prowl_recovery) cannot be read (";
  const std::string suffix =
      "); the database may still hold that run's changes: check it, then remove the record by "
      "hand (DROP SCHEMA prowl_recovery CASCADE)";
  admin.exec("CREATE SCHEMA prowl_recovery");
  EXPECT_EQ(guard_postgres(dsn()).status().message(),
            prefix + "relation \"prowl_recovery.run\" does not exist (SQLSTATE 42P01)" + suffix);
  admin.exec(
      "CREATE TABLE prowl_recovery.run (format int, pid bigint, begun text, host text, setval "
      "text)");
  EXPECT_EQ(guard_postgres(dsn()).status().message(),
            prefix + "prowl_recovery.run has 0 rows, not 1" + suffix);
  admin.exec("INSERT INTO prowl_recovery.run VALUES (2, 1, '', '', '')");
  auto refused = guard_postgres(dsn());
  EXPECT_EQ(refused.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(refused.status().message(), prefix + "format 2, not 1" + suffix);
  // Kept, and the lock let go with the failure.
  EXPECT_EQ(admin.one("SELECT format FROM prowl_recovery.run"), "2");
  EXPECT_EQ(lock_holders(dsn()), 0);
}

TEST_F(PostgresGuard, TableNamesListsTheUserTablesAsSqlNamesThem) {
  create_accounts(dsn());
  PgConnection(dsn()).exec(
      "CREATE SCHEMA other; CREATE TABLE other.t (x int); CREATE TABLE \"Mixed\" (x int);"
      "CREATE TABLE parts (k int) PARTITION BY RANGE (k);"
      "CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (10);"
      "CREATE VIEW v AS SELECT 1");
  auto names = PostgresSystem::table_names(dsn());
  ASSERT_TRUE(names) << names.status().message();
  EXPECT_EQ(*names,
            (std::vector<std::string>{"\"Mixed\"", "accounts", "audit", "other.t", "parts"}));
}

}  // namespace
}  // namespace prowl
