#include "prowl/systems/postgres.hpp"

#include <libpq-fe.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"
#include "prowl/world/world.hpp"
#include "support/pg_test_env.hpp"

namespace prowl {

// How gtest shows a test's mode (found by argument-dependent lookup).
static void PrintTo(PostgresMode mode, std::ostream* os) {
  *os << (mode == PostgresMode::kSavepoint ? "savepoint" : "snapshot");
}

namespace {

using testing::PgConnection;
using testing::PgTest;

std::unique_ptr<PostgresSystem> open_system(PostgresOptions options) {
  auto sys = PostgresSystem::open("db", std::move(options));
  PROWL_CHECK(sys.is_ok(), sys.status().message());
  return std::move(*sys);
}

Fingerprint fingerprint_of(const PostgresSystem& sys) {
  Hasher h;
  Status st = sys.observe(h);
  PROWL_CHECK(st.is_ok(), st.message());
  return h.finish();
}

// Runs SQL on a connection; false (and the message in *error) when it failed.
bool try_exec(PGconn* c, const std::string& sql, std::string* error = nullptr) {
  PGresult* r = PQexec(c, sql.c_str());
  const auto status = PQresultStatus(r);
  if (error) *error = PQresultErrorMessage(r);
  PQclear(r);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}
void exec(PGconn* c, const std::string& sql) {
  std::string error;
  PROWL_CHECK(try_exec(c, sql, &error), sql + ": " + error);
}
std::string value(PGconn* c, const std::string& sql) {
  PGresult* r = PQexec(c, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
  std::string out = ok ? PQgetvalue(r, 0, 0) : PQresultErrorMessage(r);
  PQclear(r);
  PROWL_CHECK(ok, sql + ": " + out);
  return out;
}

const std::vector<std::string> kAliceBob = {"1|alice|10.5", "2|bob|3"};

void create_accounts(const std::string& dsn) {
  PgConnection(dsn).exec(
      "CREATE TABLE accounts (id serial PRIMARY KEY, name text, balance numeric);"
      "INSERT INTO accounts (name, balance) VALUES ('alice', 10.5), ('bob', 3);"
      "CREATE TABLE audit (line text)");
}

// ---- Savepoint mode.

class PostgresSavepoint : public PgTest {};

TEST_F(PostgresSavepoint, PushAndRollbackBringBackRowsAndSequences) {
  create_accounts(dsn());
  PgConnection other(dsn());
  auto sys = open_system(
      {.dsn = dsn(), .mode = PostgresMode::kSavepoint, .tables = {"accounts"}, .queries = {}});
  EXPECT_EQ(sys->capabilities().stack, true);
  EXPECT_EQ(sys->capabilities().snapshot, false);
  EXPECT_EQ(sys->sequences(), std::vector<std::string>{"accounts_id_seq"});
  PGconn* c = sys->connection();
  ASSERT_TRUE(sys->begin());
  const Fingerprint initial = fingerprint_of(*sys);
  exec(c, "INSERT INTO accounts (name, balance) VALUES ('carol', 1)");
  ASSERT_TRUE(sys->push());
  exec(c,
       "DELETE FROM accounts WHERE name = 'alice'; UPDATE accounts SET balance = 0 WHERE id = 2;"
       "INSERT INTO accounts (name, balance) VALUES ('dave', 2)");
  ASSERT_TRUE(sys->push());
  exec(c, "INSERT INTO accounts (name, balance) VALUES ('erin', 5)");
  EXPECT_EQ(sys->depth(), 2u);
  EXPECT_EQ(sys->describe(),
            "accounts: (2, 'bob', 0), (3, 'carol', 1), (4, 'dave', 2), (5, 'erin', 5)\n"
            "accounts_id_seq: (5, true)");
  // Another connection sees nothing of prowl's transaction.
  EXPECT_EQ(other.rows("SELECT * FROM accounts ORDER BY id"), kAliceBob);

  ASSERT_TRUE(sys->rollback(2));
  EXPECT_EQ(sys->describe(),
            "accounts: (2, 'bob', 0), (3, 'carol', 1), (4, 'dave', 2)\n"
            "accounts_id_seq: (4, true)");
  ASSERT_TRUE(sys->rollback(1));
  EXPECT_EQ(sys->depth(), 1u);
  EXPECT_EQ(sys->describe(),
            "accounts: (1, 'alice', 10.5), (2, 'bob', 3), (3, 'carol', 1)\n"
            "accounts_id_seq: (3, true)");
  ASSERT_TRUE(sys->rollback(0));
  EXPECT_EQ(sys->depth(), 0u);
  EXPECT_EQ(fingerprint_of(*sys), initial);
  // The sequence came back with the rows: the next id is 3 again.
  EXPECT_EQ(value(c, "INSERT INTO accounts (name, balance) VALUES ('erin', 5) RETURNING id"), "3");
  ASSERT_TRUE(sys->reset());
  EXPECT_EQ(fingerprint_of(*sys), initial);
  exec(c, "INSERT INTO accounts (name, balance) VALUES ('frank', 6)");
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(other.rows("SELECT * FROM accounts ORDER BY id"), kAliceBob);
  EXPECT_EQ(other.one("SELECT last_value, is_called FROM accounts_id_seq"), "2|t");
}

TEST_F(PostgresSavepoint, GuardedRollsBackTheWorkOfAFailedStatementAndKeepsTheTransaction) {
  PgConnection(dsn()).exec(
      "CREATE TABLE tags (tag text PRIMARY KEY); INSERT INTO tags VALUES ('a')");
  auto sys = open_system({.dsn = dsn(), .mode = PostgresMode::kSavepoint, .tables = {"tags"}});
  PGconn* c = sys->connection();
  ASSERT_TRUE(sys->begin());
  auto kept = sys->guarded([&] { exec(c, "INSERT INTO tags VALUES ('b')"); });
  ASSERT_TRUE(kept);
  EXPECT_TRUE(*kept);
  auto failed = sys->guarded([&] {
    exec(c, "INSERT INTO tags VALUES ('c')");
    EXPECT_FALSE(try_exec(c, "INSERT INTO tags VALUES ('a')"));  // duplicate key
    EXPECT_FALSE(try_exec(c, "INSERT INTO tags VALUES ('d')"));  // the transaction is aborted
  });
  ASSERT_TRUE(failed);
  EXPECT_FALSE(*failed);
  EXPECT_EQ(sys->describe(), "tags: ('a'), ('b')");
  exec(c, "INSERT INTO tags VALUES ('e')");
  EXPECT_EQ(sys->describe(), "tags: ('a'), ('b'), ('e')");
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(PgConnection(dsn()).rows("SELECT tag FROM tags"), std::vector<std::string>{"a"});
}

TEST_F(PostgresSavepoint, ReportsATransactionThatTheCodeUnderTestAbortedOrEnded) {
  PgConnection(dsn()).exec(
      "CREATE TABLE tags (tag text PRIMARY KEY); INSERT INTO tags VALUES ('a')");
  auto sys = open_system({.dsn = dsn(), .mode = PostgresMode::kSavepoint, .tables = {"tags"}});
  PGconn* c = sys->connection();
  ASSERT_TRUE(sys->begin());
  ASSERT_TRUE(sys->push());
  exec(c, "INSERT INTO tags VALUES ('b')");
  EXPECT_FALSE(try_exec(c, "INSERT INTO tags VALUES ('a')"));
  const std::string aborted =
      "postgres '" + sys->dsn() +
      "': prowl's transaction is aborted: a statement on the shared connection failed and the "
      "action did not handle it (last error: ERROR: duplicate key value violates unique "
      "constraint \"tags_pkey\" DETAIL: Key (tag)=(a) already exists.); run statements that may "
      "fail under a savepoint of their own (PostgresSystem::guarded), or return Outcome::error "
      "from the action";
  Hasher h;
  Status st = sys->observe(h);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(), aborted);
  EXPECT_EQ(sys->query("SELECT 1").status().message(), aborted);
  EXPECT_EQ(sys->push().message(), aborted);
  // Rolling back to a savepoint is how prowl leaves an action that failed (Outcome::error).
  ASSERT_TRUE(sys->rollback(1));
  EXPECT_EQ(sys->describe(), "tags: ('a')");

  exec(c, "COMMIT");
  st = sys->push();
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(), "postgres '" + sys->dsn() +
                              "': prowl's transaction was ended on the shared connection (a "
                              "COMMIT or ROLLBACK by the code under test); in savepoint mode the "
                              "code must use savepoints, never end the transaction; what it "
                              "committed stays in the database");
  EXPECT_EQ(sys->end().message(), st.message());
}

// ---- Snapshot mode.

class PostgresSnapshot : public PgTest {};

TEST_F(PostgresSnapshot, RestoresRowsAndSequencesThatTheServiceChanged) {
  PgConnection service(dsn());
  service.exec(
      "CREATE TABLE orders (id serial PRIMARY KEY, item text, qty int);"
      "INSERT INTO orders (item, qty) VALUES ('pen', 1), ('ink', 2);"
      "CREATE TABLE lines (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
      "  order_id int REFERENCES orders, note text, twice int GENERATED ALWAYS AS (2 * order_id)"
      "  STORED);"
      "INSERT INTO lines (order_id, note) VALUES (1, 'first')");
  auto sys = open_system({.dsn = dsn(), .tables = {"orders", "lines"}});
  EXPECT_EQ(sys->capabilities().snapshot, true);
  EXPECT_EQ(sys->capabilities().stack, false);
  EXPECT_EQ(sys->sequences(), (std::vector<std::string>{"lines_id_seq", "orders_id_seq"}));
  ASSERT_TRUE(sys->begin());
  auto h = sys->save();
  ASSERT_TRUE(h);
  const std::string first = service.one(
      "INSERT INTO orders (item, qty) VALUES ('cap', 3) "
      "RETURNING id");
  EXPECT_EQ(first, "3");
  service.exec(
      "DELETE FROM lines; UPDATE orders SET qty = 9 WHERE id = 1;"
      "INSERT INTO lines (order_id, note) VALUES (3, 'new')");
  const Fingerprint changed = fingerprint_of(*sys);
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(service.rows("SELECT * FROM orders ORDER BY id"),
            (std::vector<std::string>{"1|pen|1", "2|ink|2"}));
  EXPECT_EQ(service.rows("SELECT * FROM lines"), std::vector<std::string>{"1|1|first|2"});
  // The sequences came back with the rows: the service gets the same ids as the first time.
  EXPECT_EQ(service.one("INSERT INTO orders (item, qty) VALUES ('cap', 3) RETURNING id"), first);
  EXPECT_EQ(service.one("INSERT INTO lines (order_id, note) VALUES (3, 'new') RETURNING id"), "2");
  EXPECT_NE(fingerprint_of(*sys), changed);  // ids and qty differ
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(service.rows("SELECT * FROM orders ORDER BY id"),
            (std::vector<std::string>{"1|pen|1", "2|ink|2"}));
  EXPECT_EQ(service.one("SELECT nextval('orders_id_seq')"), "3");
  EXPECT_EQ(sys->live_snapshots(), 0u);
}

TEST_F(PostgresSnapshot, RestoresSnapshotsInAnyOrderAndSkipsOnlyARestoreThatChangesNothing) {
  PgConnection service(dsn());
  service.exec("CREATE TABLE t (id serial PRIMARY KEY, x int); INSERT INTO t (x) VALUES (10)");
  auto sys = open_system({.dsn = dsn(), .tables = {"t"}});
  ASSERT_TRUE(sys->begin());
  auto s0 = sys->save();
  service.exec("INSERT INTO t (x) VALUES (20)");
  auto s1 = sys->save();
  service.exec("DELETE FROM t");
  auto s2 = sys->save();
  ASSERT_TRUE(s0 && s1 && s2);
  const auto xs = [&] { return service.rows("SELECT id, x FROM t ORDER BY id"); };

  ASSERT_TRUE(sys->restore(*s0));
  EXPECT_EQ(xs(), std::vector<std::string>{"1|10"});
  ASSERT_TRUE(sys->restore(*s2));
  EXPECT_EQ(xs(), std::vector<std::string>{});
  ASSERT_TRUE(sys->restore(*s1));
  EXPECT_EQ(xs(), (std::vector<std::string>{"1|10", "2|20"}));
  EXPECT_EQ(service.one("SELECT nextval('t_id_seq')"), "3");

  // Whatever the service changed, rows or only a sequence, the restore writes.
  const std::uint64_t skipped = sys->skipped_restores();
  ASSERT_TRUE(sys->restore(*s1));
  EXPECT_EQ(service.one("SELECT nextval('t_id_seq')"), "3");
  service.exec("UPDATE t SET x = 21 WHERE id = 2");
  ASSERT_TRUE(sys->restore(*s1));
  EXPECT_EQ(xs(), (std::vector<std::string>{"1|10", "2|20"}));
  EXPECT_EQ(sys->skipped_restores(), skipped);
  // A restore of what the database holds is skipped when nothing at all was written in the
  // cluster since; other tests may write to it at the same time, so try a few times.
  for (int i = 0; i < 50 && sys->skipped_restores() == skipped; ++i) {
    ASSERT_TRUE(sys->restore(*s1));
    ASSERT_TRUE(sys->restore(*s1));
  }
  EXPECT_GT(sys->skipped_restores(), skipped);
  EXPECT_EQ(xs(), (std::vector<std::string>{"1|10", "2|20"}));

  sys->release(*s1);
  EXPECT_EQ(sys->live_snapshots(), 2u);
  ASSERT_TRUE(sys->restore(*s0));
  EXPECT_EQ(xs(), std::vector<std::string>{"1|10"});
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(sys->live_snapshots(), 0u);
}

TEST_F(PostgresSnapshot, RefusesAnUndeclaredTableWithAForeignKeyIntoADeclaredOne) {
  PgConnection service(dsn());
  service.exec(
      "CREATE TABLE customers (id int PRIMARY KEY);"
      "CREATE TABLE orders (id int PRIMARY KEY, customer int REFERENCES customers)");
  const std::string expected =
      "postgres '" + redact_dsn(dsn()) +
      "': table 'orders' has a foreign key (orders_customer_fkey) into the declared table "
      "'customers' but is not declared itself: a restore truncates 'customers', which "
      "PostgreSQL refuses while an undeclared table references it; declare 'orders' too (add it "
      "to tables)";
  auto sys = PostgresSystem::open("db", {.dsn = dsn(), .tables = {"customers"}});
  ASSERT_FALSE(sys);
  EXPECT_EQ(sys.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(sys.status().message(), expected);
  // Declared together, or in savepoint mode, they are fine.
  EXPECT_TRUE(PostgresSystem::open("db", {.dsn = dsn(), .tables = {"customers", "orders"}}));
  EXPECT_TRUE(PostgresSystem::open(
      "db", {.dsn = dsn(), .mode = PostgresMode::kSavepoint, .tables = {"customers"}}));
  // A foreign key added after open() is found by begin().
  service.exec("DROP TABLE orders");
  auto later = open_system({.dsn = dsn(), .tables = {"customers"}});
  service.exec("CREATE TABLE refs (customer int REFERENCES customers)");
  Status st = later->begin();
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(), "postgres '" + redact_dsn(dsn()) +
                              "': table 'refs' has a foreign key (refs_customer_fkey) into the "
                              "declared table 'customers' but is not declared itself: a restore "
                              "truncates 'customers', which PostgreSQL refuses while an "
                              "undeclared table references it; declare 'refs' too (add it to "
                              "tables)");
}

TEST_F(PostgresSnapshot, ReportsTablesThatTheServiceKeepsLocked) {
  PgConnection service(dsn());
  service.exec("CREATE TABLE t (x int); INSERT INTO t VALUES (1)");
  auto sys = open_system({.dsn = dsn(), .tables = {"t"}, .lock_timeout_ms = 50});
  ASSERT_TRUE(sys->begin());
  auto h = sys->save();
  ASSERT_TRUE(h);
  service.exec("INSERT INTO t VALUES (2); BEGIN; SELECT count(*) FROM t");
  Status st = sys->restore(*h);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(),
            "postgres '" + sys->dsn() +
                "': cannot restore a snapshot: the declared tables stayed locked for 50 ms (the "
                "service must be idle, with no open transaction, between requests): canceling "
                "statement due to lock timeout (SQLSTATE 55P03)");
  service.exec("ROLLBACK");
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(service.rows("SELECT x FROM t"), std::vector<std::string>{"1"});
  ASSERT_TRUE(sys->end());
}

TEST_F(PostgresSnapshot, RestoresWithoutFiringTheTablesTriggers) {
  PgConnection service(dsn());
  service.exec(
      "CREATE TABLE audit (line text); CREATE TABLE t (x int);"
      "CREATE FUNCTION log_change() RETURNS trigger LANGUAGE plpgsql AS "
      "$$BEGIN INSERT INTO audit VALUES (TG_OP); RETURN NULL; END$$;"
      "CREATE TRIGGER rows AFTER INSERT OR DELETE ON t FOR EACH ROW EXECUTE FUNCTION log_change();"
      "CREATE TRIGGER truncates AFTER TRUNCATE ON t EXECUTE FUNCTION log_change();"
      "INSERT INTO t VALUES (1)");
  auto sys = open_system({.dsn = dsn(), .tables = {"t"}});
  ASSERT_TRUE(sys->begin());
  service.exec("INSERT INTO t VALUES (2)");
  ASSERT_TRUE(sys->reset());
  EXPECT_EQ(service.rows("SELECT x FROM t"), std::vector<std::string>{"1"});
  EXPECT_EQ(service.rows("SELECT line FROM audit"), (std::vector<std::string>{"INSERT", "INSERT"}));
  ASSERT_TRUE(sys->end());
}

TEST_F(PostgresSnapshot, RestoresReferencedTablesFirstWithoutSuperuserRights) {
  // A role of this test's own (roles belong to the whole server), dropped before the database.
  struct Role {
    std::string dsn, name;
    ~Role() { PgConnection(dsn).exec("DROP OWNED BY " + name + "; DROP ROLE " + name); }
  } role{dsn(), db_->name() + "_app"};
  PgConnection(dsn()).exec("CREATE ROLE " + role.name + " LOGIN; GRANT ALL ON SCHEMA public TO " +
                           role.name);
  const std::string app = testing::pg_dsn_with(dsn(), "user", role.name);
  PgConnection service(app);
  service.exec(
      "CREATE TABLE parent (id serial PRIMARY KEY, name text);"
      "CREATE TABLE child (id serial PRIMARY KEY, parent int NOT NULL REFERENCES parent);"
      "INSERT INTO parent (name) VALUES ('a'), ('b'); INSERT INTO child (parent) VALUES (2)");
  // Declared child first: the restore copies the parent in first all the same.
  auto sys = open_system({.dsn = app, .tables = {"child", "parent"}});
  ASSERT_TRUE(sys->begin());
  service.exec("DELETE FROM child; DELETE FROM parent; INSERT INTO parent (name) VALUES ('c')");
  ASSERT_TRUE(sys->reset());
  EXPECT_EQ(service.rows("SELECT * FROM parent ORDER BY id"),
            (std::vector<std::string>{"1|a", "2|b"}));
  EXPECT_EQ(service.rows("SELECT * FROM child"), std::vector<std::string>{"1|2"});
  ASSERT_TRUE(sys->end());
}

// ---- Both modes.

// Three items at most, each with a quantity of 1 or 2: "add" inserts one (through the serial
// sequence, twice per path at most), "bump" raises the lowest-id item below 2, "remove" deletes
// the highest-id item. 12 states and 18 transitions (see the count in the test).
Model items_model(PostgresOptions options, std::function<PGconn*(const World&)> conn) {
  Model model("items");
  model.set_world([options]() -> Result<std::unique_ptr<World>> {
    auto sys = PostgresSystem::open("db", options);
    if (!sys) return sys.status();
    auto world = std::make_unique<World>();
    world->add(std::move(*sys));
    return world;
  });
  auto count = [conn](const World& w, const char* where) {
    return std::stoi(value(conn(w), std::string("SELECT count(*) FROM items") + where));
  };
  model.action("add").max_per_path(2).run([conn](Step& s) {
    exec(conn(s.world), "INSERT INTO items (qty) VALUES (1)");
    return Outcome::ok();
  });
  model.action("bump")
      .when([count](const World& w, const Context&) { return count(w, " WHERE qty < 2") > 0; })
      .run([conn](Step& s) {
        exec(conn(s.world),
             "UPDATE items SET qty = qty + 1 WHERE id = (SELECT min(id) FROM items WHERE qty < 2)");
        return Outcome::ok();
      });
  model.action("remove")
      .when([count](const World& w, const Context&) { return count(w, "") > 0; })
      .run([conn](Step& s) {
        exec(conn(s.world), "DELETE FROM items WHERE id = (SELECT max(id) FROM items)");
        return Outcome::ok();
      });
  return model;
}

// States, by the number of adds k on the path (the sequence's value) and the rows (id:qty):
//   k=0  {}                                                             1 state,  1 transition
//   k=1  {} {1:1} {1:2}                                                 3 states, 6 transitions
//   k=2  {} {1:1} {1:2} {2:1} {2:2} {1:1,2:1} {1:2,2:1} {1:2,2:2}      8 states, 11 transitions
void expect_explores_the_items(const std::string& dsn, PostgresMode mode, Strategy& strategy) {
  PgConnection service(dsn);
  service.exec(
      "CREATE TABLE items (id serial PRIMARY KEY, qty int NOT NULL);"
      "CREATE TABLE notes (id int GENERATED ALWAYS AS IDENTITY, line text);"
      "INSERT INTO notes (line) VALUES ('kept')");
  const std::string before = testing::pg_dump(dsn);
  std::function<PGconn*(const World&)> conn = [&service](const World&) { return service.get(); };
  if (mode == PostgresMode::kSavepoint) {
    conn = [](const World& w) {
      return static_cast<const PostgresSystem&>(w.system(0)).connection();
    };
  }
  Model model = items_model({.dsn = dsn, .mode = mode, .tables = {"items"}}, conn);
  ASSERT_TRUE(model.validate());
  auto r = explore(model, strategy);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->restore_mode,
            mode == PostgresMode::kSavepoint ? RestoreMode::kStack : RestoreMode::kSnapshot);
  EXPECT_EQ(r->stats.states, 12u);
  EXPECT_EQ(r->stats.transitions, 18u);
  EXPECT_EQ(r->termination, Termination::kExhausted);
  EXPECT_TRUE(r->findings.empty()) << r->findings[0].message;
  EXPECT_GT(r->stats.restores, 0u);
  if (mode == PostgresMode::kSavepoint && strategy.name() == "dfs") {
    EXPECT_EQ(r->stats.replayed_actions, 0u);  // DFS with savepoints never replays
  }
  EXPECT_EQ(testing::pg_dump(dsn), before);
  EXPECT_EQ(service.rows("SELECT * FROM items"), std::vector<std::string>{});
  EXPECT_EQ(service.one("SELECT nextval('items_id_seq')"), "1");
}

TEST_F(PostgresSavepoint, BfsExploresEveryStateAndLeavesTheDatabaseAsPgDumpSawIt) {
  Bfs bfs;
  expect_explores_the_items(dsn(), PostgresMode::kSavepoint, bfs);
}

TEST_F(PostgresSavepoint, DfsExploresEveryStateAndLeavesTheDatabaseAsPgDumpSawIt) {
  Dfs dfs;
  expect_explores_the_items(dsn(), PostgresMode::kSavepoint, dfs);
}

TEST_F(PostgresSnapshot, BfsExploresEveryStateAndLeavesTheDatabaseAsPgDumpSawIt) {
  Bfs bfs;
  expect_explores_the_items(dsn(), PostgresMode::kSnapshot, bfs);
}

TEST_F(PostgresSnapshot, DfsExploresEveryStateAndLeavesTheDatabaseAsPgDumpSawIt) {
  Dfs dfs;
  expect_explores_the_items(dsn(), PostgresMode::kSnapshot, dfs);
}

TEST_F(PostgresSavepoint, ExploresActionsWhoseStatementsFail) {
  PgConnection(dsn()).exec("CREATE TABLE tags (tag text PRIMARY KEY)");
  Model model("tags");
  const std::string db = dsn();
  model.set_world([db]() -> Result<std::unique_ptr<World>> {
    auto sys = PostgresSystem::open(
        "db", {.dsn = db, .mode = PostgresMode::kSavepoint, .tables = {"tags"}});
    if (!sys) return sys.status();
    auto world = std::make_unique<World>();
    world->add(std::move(*sys));
    return world;
  });
  // A duplicate is an expected refusal, handled under a savepoint of the action's own.
  model.action("add_x").run([](Step& s) {
    auto& pg = static_cast<PostgresSystem&>(s.world.system(0));
    auto kept = pg.guarded([&] { try_exec(pg.connection(), "INSERT INTO tags VALUES ('x')"); });
    if (!kept) return Outcome::error(kept.status().message());
    return *kept ? Outcome::ok() : Outcome::rejected("duplicate tag");
  });
  // An unexpected failure: the action reports it, and prowl rolls the transaction back.
  model.action("broken").run([](Step& s) {
    auto& pg = static_cast<PostgresSystem&>(s.world.system(0));
    std::string error;
    if (!try_exec(pg.connection(), "INSERT INTO missing VALUES (1)", &error)) {
      return Outcome::error(error);
    }
    return Outcome::ok();
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 2u);       // {} and {x}
  EXPECT_EQ(r->stats.transitions, 2u);  // add_x twice; broken never reaches a state
  EXPECT_EQ(r->stats.steps, 4u);
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kActionError);
  EXPECT_EQ(r->findings[0].name, "broken");
  EXPECT_TRUE(r->findings[0].confirmed);
  EXPECT_EQ(r->coverage[0].rejected, 1u);
  EXPECT_EQ(PgConnection(dsn()).rows("SELECT * FROM tags"), std::vector<std::string>{});
}

class PostgresBothModes : public PgTest, public ::testing::WithParamInterface<PostgresMode> {
 protected:
  // Opens the system in the mode under test and begins it. Writes go through writer(): prowl's
  // connection in savepoint mode, the service's own in snapshot mode.
  void open(PostgresOptions options) {
    options.dsn = dsn();
    options.mode = GetParam();
    sys_ = open_system(std::move(options));
    if (GetParam() == PostgresMode::kSnapshot) service_.emplace(dsn());
    PROWL_CHECK(sys_->begin().is_ok(), "begin failed");
  }
  PGconn* writer() const { return service_ ? service_->get() : sys_->connection(); }
  void TearDown() override {
    if (sys_) {
      EXPECT_TRUE(sys_->end());
    }
    sys_.reset();
    service_.reset();
    PgTest::TearDown();
  }

  std::unique_ptr<PostgresSystem> sys_;
  std::optional<PgConnection> service_;
};

TEST_P(PostgresBothModes, GivesTheSameFingerprintToTheSameRowsAndAnotherToAChangedRow) {
  PgConnection(dsn()).exec(
      "CREATE TABLE t (a int, b text); INSERT INTO t VALUES (1, 'x'), (2, NULL);"
      "CREATE TABLE other (x int)");
  open({.tables = {"t"}});
  const Fingerprint initial = fingerprint_of(*sys_);
  EXPECT_EQ(fingerprint_of(*sys_), initial);
  exec(writer(), "UPDATE t SET b = 'y' WHERE a = 1");
  EXPECT_NE(fingerprint_of(*sys_), initial);
  exec(writer(), "UPDATE t SET b = 'x' WHERE a = 1");
  EXPECT_EQ(fingerprint_of(*sys_), initial);
  // Rows are a multiset: their order does not matter, their number does.
  exec(writer(), "DELETE FROM t; INSERT INTO t VALUES (2, NULL), (1, 'x')");
  EXPECT_EQ(fingerprint_of(*sys_), initial);
  exec(writer(), "INSERT INTO t VALUES (1, 'x')");
  const Fingerprint twice = fingerprint_of(*sys_);
  EXPECT_NE(twice, initial);
  // An undeclared table is not observed.
  exec(writer(), "INSERT INTO other VALUES (7)");
  EXPECT_EQ(fingerprint_of(*sys_), twice);
  // NULL, '', 'NULL' and '\x00'-free text are all different values.
  std::vector<Fingerprint> values;
  for (const char* v : {"NULL", "''", "'NULL'", "' '"}) {
    exec(writer(), std::string("DELETE FROM t; INSERT INTO t VALUES (1, ") + v + ")");
    values.push_back(fingerprint_of(*sys_));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = i + 1; j < values.size(); ++j) EXPECT_NE(values[i], values[j]) << i << j;
  }
  // A column's type is part of the state, and so is a new column: the prepared observation is
  // prepared anew when the table's columns change.
  const Fingerprint as_int = fingerprint_of(*sys_);
  const std::string shown = sys_->describe();
  exec(writer(), "ALTER TABLE t ALTER COLUMN a TYPE bigint");
  EXPECT_NE(fingerprint_of(*sys_), as_int);
  EXPECT_EQ(sys_->describe(), shown);
  exec(writer(), "ALTER TABLE t ADD COLUMN c bool DEFAULT true");
  EXPECT_EQ(sys_->describe(), "t: (1, ' ', true)");
  // Snapshot mode restores rows, not the schema: put the columns back before end().
  exec(writer(), "ALTER TABLE t DROP COLUMN c; ALTER TABLE t ALTER COLUMN a TYPE int");
}

TEST_P(PostgresBothModes, ObservesDeclaredQueriesInTheirOrderAndDescribesEveryKindOfValue) {
  PgConnection(dsn()).exec(
      "CREATE TABLE v (i int, r float8, n numeric, t text, b bytea, f bool);"
      "INSERT INTO v VALUES (-3, 2.5, 10.50, 'it''s', '\\x00ff', true),"
      "  (2, NULL, -1, '', NULL, false), (10, -0.25, 0, NULL, '\\x', NULL)");
  open({.tables = {"v"},
        .queries = {{"total", "SELECT count(*), sum(i) FROM v"},
                    {"names", "SELECT t FROM v WHERE t IS NOT NULL ORDER BY t DESC"}}});
  EXPECT_EQ(sys_->describe(),
            "v: (-3, 2.5, 10.50, 'it''s', x'00ff', true), (2, NULL, -1, '', NULL, false), "
            "(10, -0.25, 0, NULL, x'', NULL)\n"
            "total: (3, 9)\n"
            "names: ('it''s'), ('')");
  const Fingerprint initial = fingerprint_of(*sys_);
  exec(writer(), "UPDATE v SET t = 'zz' WHERE i = 2");
  EXPECT_EQ(sys_->describe().substr(sys_->describe().find("names")), "names: ('zz'), ('it''s')");
  EXPECT_NE(fingerprint_of(*sys_), initial);
  auto cut = open_system({.dsn = dsn(), .mode = GetParam(), .tables = {"v"}, .describe_limit = 12});
  EXPECT_EQ(cut->describe(), "v: (-3, 2.5,...");
}

// A value holding a line break or an escape sequence stays on its line of the description.
TEST_P(PostgresBothModes, DescribesTextWithItsControlCharactersEscaped) {
  PgConnection(dsn()).exec(
      "CREATE TABLE n (note text); INSERT INTO n VALUES (E'a\\nledger: \\x1b[2J''x')");
  open({.tables = {"n"}});
  EXPECT_EQ(sys_->describe(), "n: ('a\\nledger: \\e[2J''x')");
}

TEST_P(PostgresBothModes, QueryReturnsRowsAsTextWithNullsAndReportsABadQuery) {
  PgConnection(dsn()).exec(
      "CREATE TABLE t (id int, name text); INSERT INTO t VALUES (1, 'a'), (2, NULL)");
  open({.tables = {"t"}});
  exec(writer(), "INSERT INTO t VALUES (3, 'c')");
  auto rows = sys_->query("SELECT id, name, id * 1.5 AS half FROM t ORDER BY id");
  ASSERT_TRUE(rows) << rows.status().message();
  EXPECT_EQ(rows->columns, (std::vector<std::string>{"id", "name", "half"}));
  using Row = std::vector<std::optional<std::string>>;
  EXPECT_EQ(rows->rows,
            (std::vector<Row>{{"1", "a", "1.5"}, {"2", std::nullopt, "3.0"}, {"3", "c", "4.5"}}));
  auto bad = sys_->query("SELECT 1 / 0");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(bad.status().message(), "postgres '" + sys_->dsn() +
                                        "': query failed: division by zero (SQLSTATE 22012); "
                                        "SQL: SELECT 1 / 0");
  // In savepoint mode the failed query did not abort prowl's transaction.
  exec(writer(), "INSERT INTO t VALUES (4, 'd')");
  auto count = sys_->query("SELECT count(*) FROM t");
  ASSERT_TRUE(count);
  EXPECT_EQ(count->rows, std::vector<Row>{{"4"}});
}

TEST_P(PostgresBothModes, QueryAndObservationOnlyReadAndAStatementThatWritesChangesNothing) {
  create_accounts(dsn());
  PgConnection(dsn()).exec(
      "CREATE FUNCTION log_line(t text) RETURNS int LANGUAGE sql AS "
      "$$ INSERT INTO audit VALUES (t) RETURNING 1 $$;"
      "CREATE FUNCTION log_if_many(n int) RETURNS int LANGUAGE plpgsql AS "
      "$$ BEGIN IF n > 2 THEN INSERT INTO audit VALUES ('many'); END IF; RETURN n; END $$");
  const char* observed = "SELECT log_if_many(count(*)::int) FROM accounts";
  open({.tables = {"accounts"}, .queries = {{"q", observed}}});
  auto state = [&] {
    auto rows = sys_->query(
        "SELECT (SELECT string_agg(id || ':' || name || ':' || balance, ',' ORDER BY id) FROM "
        "accounts), (SELECT count(*) FROM audit), (SELECT last_value FROM accounts_id_seq)");
    PROWL_CHECK(rows.is_ok(), rows.status().message());
    return *rows->rows[0][0] + " " + *rows->rows[0][1] + " " + *rows->rows[0][2];
  };
  const std::string before = state();
  EXPECT_EQ(before, "1:alice:10.5,2:bob:3 0 2");
  for (const char* sql :
       {"UPDATE accounts SET balance = 0 RETURNING id",
        "WITH gone AS (DELETE FROM accounts RETURNING id) SELECT count(*) FROM gone",
        "SELECT nextval('accounts_id_seq')", "SELECT log_line('by an invariant')"}) {
    auto writes = sys_->query(sql);
    ASSERT_FALSE(writes) << sql;
    EXPECT_EQ(writes.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(writes.status().message(),
              "postgres '" + sys_->dsn() + "': query writes to the database: " + sql);
    EXPECT_EQ(state(), before) << sql;
  }
  // In savepoint mode prowl's transaction is still usable, and the code under test still writes.
  exec(writer(), "INSERT INTO accounts (name, balance) VALUES ('carol', 1)");
  EXPECT_EQ(state(), "1:alice:10.5,2:bob:3,3:carol:1 0 3");
  // A declared query that writes only on some rows got past open(): observing refuses it there.
  Hasher h;
  Status st = sys_->observe(h);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message(), "postgres '" + sys_->dsn() +
                              "': query 'q' writes to the database: " + std::string(observed));
  EXPECT_EQ(state(), "1:alice:10.5,2:bob:3,3:carol:1 0 3");
  exec(writer(), "DELETE FROM accounts WHERE name = 'carol'");
  EXPECT_TRUE(sys_->observe(h)) << "observing works again";
}

INSTANTIATE_TEST_SUITE_P(PostgresModes, PostgresBothModes,
                         ::testing::Values(PostgresMode::kSavepoint, PostgresMode::kSnapshot),
                         [](const auto& info) {
                           return info.param == PostgresMode::kSavepoint ? "savepoint" : "snapshot";
                         });

class PostgresSystemErrors : public PgTest {};

TEST_F(PostgresSystemErrors, ReportsAnUnknownTableABadQueryOrAWritingQueryNamingThem) {
  create_accounts(dsn());
  PgConnection(dsn()).exec("CREATE VIEW rich AS SELECT * FROM accounts WHERE balance > 5");
  const std::string prefix = "postgres '" + redact_dsn(dsn()) + "': ";
  // A misspelt table is a mistake in the model (exit code 2), not in the environment.
  auto table = PostgresSystem::open("db", {.dsn = dsn(), .tables = {"account"}});
  ASSERT_FALSE(table);
  EXPECT_EQ(table.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(table.status().message(),
            "table 'account' does not exist in postgres '" + redact_dsn(dsn()) + "'");

  auto view = PostgresSystem::open("db", {.dsn = dsn(), .tables = {"rich"}});
  ASSERT_FALSE(view);
  EXPECT_EQ(view.status().message(),
            prefix + "table 'rich' is a view, not a table (declare a query to observe it)");

  auto query = PostgresSystem::open("db", {.dsn = dsn(), .queries = {{"q", "SELEKT 1"}}});
  ASSERT_FALSE(query);
  EXPECT_EQ(query.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(query.status().message(),
            prefix +
                "query 'q' failed: syntax error at or near \"SELEKT\" (SQLSTATE 42601); "
                "SQL: SELEKT 1");

  // Observing must not write: a writing query is a bad model, not a bad environment.
  for (const char* sql : {"DELETE FROM accounts", "SELECT nextval('accounts_id_seq')"}) {
    auto writes = PostgresSystem::open("db", {.dsn = dsn(), .queries = {{"w", sql}}});
    ASSERT_FALSE(writes);
    EXPECT_EQ(writes.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(writes.status().message(),
              prefix + "query 'w' writes to the database: " + std::string(sql));
  }
  EXPECT_EQ(PgConnection(dsn()).rows("SELECT count(*) FROM accounts"),
            std::vector<std::string>{"2"});

  // A table dropped during the run is reported when it is next observed.
  auto sys = open_system({.dsn = dsn(), .tables = {"audit"}});
  PgConnection(dsn()).exec("DROP TABLE audit");
  Hasher h;
  Status st = sys->observe(h);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(), prefix +
                              "table 'audit' failed: relation \"audit\" does not exist "
                              "(SQLSTATE 42P01); SQL: SELECT * FROM ONLY audit");
}

// Not a PgTest: needs no server.
TEST(PostgresSystem, ReportsAnUnreachableServerNamingTheDsnWithoutItsPassword) {
  // A loopback port that nothing listens on.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string port = std::to_string(ntohs(addr.sin_port));
  close(fd);
  const std::string dsn = "host=127.0.0.1 port=" + port + " user=u password=s3cret dbname=x";
  auto sys = PostgresSystem::open("db", {.dsn = dsn, .tables = {"t"}});
  ASSERT_FALSE(sys);
  EXPECT_EQ(sys.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(sys.status().message(),
            "postgres 'host=127.0.0.1 port=" + port +
                " user=u password=[REDACTED] dbname=x': cannot connect: connection to server at "
                "\"127.0.0.1\", port " +
                port +
                " failed: Connection refused Is the server running on that host and accepting "
                "TCP/IP connections?");
}

}  // namespace
}  // namespace prowl
