#include "prowl/systems/sqlite.hpp"

#include <sqlite3.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"
#include "prowl/world/world.hpp"
#include "sqlite_helpers.hpp"

namespace prowl {
namespace {

using testing::Connection;
using testing::create_accounts;
using testing::dump;
using testing::fingerprint_of;
using testing::kNames;
using testing::open_system;
using testing::ServiceProcess;
using testing::TempDir;

// Tests that run once with a rollback-journal file and once with a WAL file.
class SqliteSystemInBothJournalModes : public testing::AccountsFileInBothJournalModes {};

TEST_P(SqliteSystemInBothJournalModes, RestoresASnapshotThatAnotherConnectionSees) {
  Connection service(path_);
  EXPECT_EQ(service.one(kNames), "t:alice,bob");
  auto sys = open_system({.path = path_, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  auto h = sys->save();
  ASSERT_TRUE(h);
  service.exec("DELETE FROM accounts WHERE id = 1; INSERT INTO accounts VALUES (3, 'carol', 1)");
  EXPECT_EQ(service.one(kNames), "t:bob,carol");
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(service.rows("SELECT * FROM accounts ORDER BY id"),
            (std::vector<std::string>{"i:1|t:alice|r:10.5", "i:2|t:bob|r:3.0"}));
  // The service can write again after the restore, and its writes are what prowl observes next.
  service.exec("INSERT INTO accounts VALUES (4, 'dave', 0)");
  EXPECT_EQ(sys->describe(), "accounts: (1, 'alice', 10.5), (2, 'bob', 3.0), (4, 'dave', 0.0)");
  // Restoring the same snapshot twice in a row, and again after the service wrote in between.
  ASSERT_TRUE(sys->restore(*h));
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(service.one(kNames), "t:alice,bob");
  service.exec("DELETE FROM accounts");
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(service.one(kNames), "t:alice,bob");
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(Connection(path_).one("PRAGMA journal_mode"), "t:" + GetParam());
}

TEST_P(SqliteSystemInBothJournalModes, RestoresSnapshotsInAnyOrder) {
  Connection service(path_);
  auto sys = open_system({.path = path_, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  auto s0 = sys->save();
  service.exec("INSERT INTO accounts VALUES (3, 'carol', 1)");
  auto s1 = sys->save();
  service.exec("DELETE FROM accounts; CREATE TABLE extra (x); INSERT INTO extra VALUES (7)");
  auto s2 = sys->save();
  ASSERT_TRUE(s0 && s1 && s2);

  ASSERT_TRUE(sys->restore(*s0));
  EXPECT_EQ(service.one(kNames), "t:alice,bob");
  EXPECT_EQ(service.one("SELECT count(*) FROM sqlite_schema WHERE name = 'extra'"), "i:0");
  ASSERT_TRUE(sys->restore(*s2));
  EXPECT_EQ(service.one(kNames), "null");
  EXPECT_EQ(service.one("SELECT x FROM extra"), "i:7");
  ASSERT_TRUE(sys->restore(*s1));
  EXPECT_EQ(service.one(kNames), "t:alice,bob,carol");
  sys->release(*s1);
  EXPECT_EQ(sys->live_snapshots(), 2u);
  ASSERT_TRUE(sys->restore(*s2));
  EXPECT_EQ(service.one("SELECT x FROM extra"), "i:7");
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(sys->live_snapshots(), 0u);
}

TEST_P(SqliteSystemInBothJournalModes, EndLeavesTheFileWithExactlyTheContentItHadBeforeBegin) {
  const std::string before = dump(path_);
  Connection service(path_);
  auto sys = open_system({.path = path_, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  service.exec(
      "INSERT INTO accounts VALUES (3, 'carol', 1); PRAGMA user_version = 9;"
      "CREATE TABLE extra (x); INSERT INTO audit VALUES ('changed')");
  auto h = sys->save();
  ASSERT_TRUE(h);
  service.exec("DELETE FROM accounts; DROP TABLE audit");
  ASSERT_TRUE(sys->restore(*h));
  service.exec("UPDATE accounts SET balance = 99");
  EXPECT_NE(dump(path_), before);
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(dump(path_), before);
  EXPECT_EQ(service.rows("SELECT * FROM accounts ORDER BY id"),
            (std::vector<std::string>{"i:1|t:alice|r:10.5", "i:2|t:bob|r:3.0"}));
}

TEST_P(SqliteSystemInBothJournalModes, AServiceInAnotherProcessSeesTheRestoredRows) {
  ServiceProcess service(path_);
  EXPECT_EQ(service.request("names"), "alice,bob");
  auto sys = open_system({.path = path_, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  auto h = sys->save();
  ASSERT_TRUE(h);
  EXPECT_EQ(service.request("add carol"), "ok");
  EXPECT_EQ(service.request("names"), "alice,bob,carol");
  const Fingerprint with_carol = fingerprint_of(*sys);
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(service.request("names"), "alice,bob");
  EXPECT_EQ(service.request("add dave"), "ok");
  EXPECT_EQ(service.request("names"), "alice,bob,dave");
  EXPECT_NE(fingerprint_of(*sys), with_carol);
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(service.request("names"), "alice,bob");
  EXPECT_EQ(service.quit(), 0);
}

TEST_P(SqliteSystemInBothJournalModes, ReportsAFileThatTheServiceKeepsLocked) {
  Connection service(path_);
  auto sys = open_system({.path = path_, .tables = {"accounts"}, .busy_timeout_ms = 50});
  ASSERT_TRUE(sys->begin());
  auto h = sys->save();
  ASSERT_TRUE(h);
  service.exec("INSERT INTO accounts VALUES (3, 'carol', 1)");
  service.exec("BEGIN IMMEDIATE; INSERT INTO accounts VALUES (4, 'dave', 1)");
  Status st = sys->restore(*h);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_NE(st.message().find(path_), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("stayed locked for 50 ms"), std::string::npos) << st.message();
  service.exec("ROLLBACK");
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(service.one(kNames), "t:alice,bob");
  ASSERT_TRUE(sys->end());
}

INSTANTIATE_TEST_SUITE_P(SqliteJournalModes, SqliteSystemInBothJournalModes,
                         ::testing::Values("delete", "wal"),
                         [](const auto& info) { return info.param; });

TEST(SqliteSystem, GivesTheSameFingerprintToTheSameRowsAndAnotherToAChangedRow) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  Connection service(path);
  service.exec("CREATE TABLE tags (tag)");
  auto sys = open_system({.path = path, .tables = {"accounts", "tags"}});
  const Fingerprint initial = fingerprint_of(*sys);
  EXPECT_EQ(fingerprint_of(*sys), initial);

  service.exec("UPDATE accounts SET balance = 10.25 WHERE id = 1");
  const Fingerprint changed = fingerprint_of(*sys);
  EXPECT_NE(changed, initial);
  service.exec("UPDATE accounts SET balance = 10.5 WHERE id = 1");
  EXPECT_EQ(fingerprint_of(*sys), initial);

  // Rows are a multiset: the order they were inserted in does not matter, their count does.
  service.exec("INSERT INTO tags VALUES ('a'), ('b')");
  const Fingerprint ab = fingerprint_of(*sys);
  service.exec("DELETE FROM tags; INSERT INTO tags VALUES ('b'), ('a')");
  EXPECT_EQ(fingerprint_of(*sys), ab);
  service.exec("INSERT INTO tags VALUES ('a')");
  EXPECT_NE(fingerprint_of(*sys), ab);

  // A value's type is part of the state: 1, 1.0, '1', x'31' and NULL are five states.
  std::vector<Fingerprint> typed;
  for (const char* v : {"1", "1.0", "'1'", "x'31'", "NULL"}) {
    service.exec(std::string("DELETE FROM tags; INSERT INTO tags VALUES (") + v + ")");
    typed.push_back(fingerprint_of(*sys));
  }
  for (std::size_t i = 0; i < typed.size(); ++i) {
    for (std::size_t j = i + 1; j < typed.size(); ++j) EXPECT_NE(typed[i], typed[j]) << i << j;
  }
  // A table's columns are part of the state.
  service.exec("DELETE FROM tags");
  const Fingerprint empty = fingerprint_of(*sys);
  service.exec("ALTER TABLE tags ADD COLUMN note");
  EXPECT_NE(fingerprint_of(*sys), empty);
}

TEST(SqliteSystem, ObservesADeclaredQueryAndNothingUndeclared) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  Connection service(path);
  auto sys = open_system(
      {.path = path,
       .queries = {{"total", "SELECT count(*), sum(balance) FROM accounts"},
                   {"rich", "SELECT name FROM accounts WHERE balance > 5 ORDER BY name"}}});
  EXPECT_EQ(sys->describe(), "total: (2, 13.5)\nrich: ('alice')");
  const Fingerprint initial = fingerprint_of(*sys);
  service.exec("INSERT INTO audit VALUES ('not observed')");
  EXPECT_EQ(fingerprint_of(*sys), initial);
  service.exec("UPDATE accounts SET name = 'bob''s' WHERE id = 2");
  EXPECT_EQ(fingerprint_of(*sys), initial);  // neither query reads bob's name
  service.exec("UPDATE accounts SET balance = 6 WHERE id = 2");
  EXPECT_EQ(sys->describe(), "total: (2, 16.5)\nrich: ('alice'), ('bob''s')");
  EXPECT_NE(fingerprint_of(*sys), initial);
  service.exec("DELETE FROM accounts");
  EXPECT_EQ(sys->describe(), "total: (0, NULL)\nrich: (no rows)");
}

TEST(SqliteSystem, QueryReturnsRowsAsTextWithNullsAndReportsABadQuery) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  Connection service(path);
  service.exec("INSERT INTO accounts VALUES (3, NULL, x'4142')");
  auto sys = open_system({.path = path, .tables = {"accounts"}});
  auto rows = sys->query("SELECT id, name, balance * 2 AS twice FROM accounts ORDER BY id;");
  ASSERT_TRUE(rows) << rows.status().message();
  EXPECT_EQ(rows->columns, (std::vector<std::string>{"id", "name", "twice"}));
  using Row = std::vector<std::optional<std::string>>;
  EXPECT_EQ(
      rows->rows,
      (std::vector<Row>{{"1", "alice", "21.0"}, {"2", "bob", "6.0"}, {"3", std::nullopt, "0"}}));
  auto blob = sys->query("SELECT balance FROM accounts WHERE id = 3");
  ASSERT_TRUE(blob);
  EXPECT_EQ(blob->rows, std::vector<Row>{{"AB"}});

  auto bad = sys->query("SELECT nope FROM accounts");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(bad.status().message(), "sqlite '" + path +
                                        "': query failed: no such column: nope (SQL logic error); "
                                        "SQL: SELECT nope FROM accounts");
  auto two = sys->query("SELECT 1; SELECT 2");
  ASSERT_FALSE(two);
  EXPECT_EQ(two.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(two.status().message(),
            "sqlite '" + path + "': a query must be one statement: SELECT 1; SELECT 2");
}

TEST(SqliteSystem, QueryRefusesAStatementThatWritesAndRunsNothingOfIt) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  auto sys = open_system({.path = path, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  const std::string before = dump(path);
  for (const char* sql :
       {"UPDATE accounts SET balance = 0 RETURNING id",
        "INSERT INTO audit VALUES ('by an invariant')",
        "WITH gone AS (SELECT 1) DELETE FROM accounts", "PRAGMA user_version = 9"}) {
    auto writes = sys->query(sql);
    ASSERT_FALSE(writes) << sql;
    EXPECT_EQ(writes.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(writes.status().message(),
              "sqlite '" + path + "': query writes to the database: " + std::string(sql));
  }
  EXPECT_EQ(dump(path), before);
  // A statement that only reads still runs; so do the pragma functions, which only read.
  auto count = sys->query("SELECT count(*) FROM accounts");
  ASSERT_TRUE(count) << count.status().message();
  EXPECT_EQ(count->rows[0][0], "2");
  auto version = sys->query("SELECT user_version FROM pragma_user_version");
  ASSERT_TRUE(version) << version.status().message();
  EXPECT_EQ(version->rows[0][0], "0");
  ASSERT_TRUE(sys->end());
}

TEST(SqliteSystem, DescribesEveryValueTypeAndCutsLongOutput) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  {
    Connection c(path);
    c.exec("CREATE TABLE t (a, b); INSERT INTO t VALUES (-3, x'00ff'), (2.5, NULL), ('x', 'y')");
  }
  auto sys = open_system({.path = path, .tables = {"t"}});
  EXPECT_EQ(sys->describe(), "t: (-3, x'00ff'), (2.5, NULL), ('x', 'y')");
  auto cut = open_system({.path = path, .tables = {"t"}, .describe_limit = 12});
  EXPECT_EQ(cut->describe(), "t: (-3, x'00...");
}

// A value holding a line break or an escape sequence stays on its line of the description.
TEST(SqliteSystem, DescribesTextWithItsControlCharactersEscaped) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  {
    Connection c(path);
    c.exec(
        "CREATE TABLE t (note TEXT); INSERT INTO t VALUES ('a' || char(10) || 'ledger: ' || "
        "char(27) || '[2J''x')");
  }
  auto sys = open_system({.path = path, .tables = {"t"}});
  EXPECT_EQ(sys->describe(), "t: ('a\\nledger: \\e[2J''x')");
}

TEST(SqliteSystem, ReportsAMissingFileAsAnEnvironmentErrorNamingIt) {
  TempDir dir;
  const std::string path = dir.file("missing.db");
  auto sys = SqliteSystem::open("db", {.path = path, .tables = {"accounts"}});
  ASSERT_FALSE(sys);
  EXPECT_EQ(sys.status().code(), StatusCode::kEnvironment);
  EXPECT_NE(sys.status().message().find("sqlite '" + path + "': cannot open: "), std::string::npos)
      << sys.status().message();
  EXPECT_FALSE(std::filesystem::exists(path));  // prowl does not create the file
}

TEST(SqliteSystem, ReportsAFileThatIsNotADatabaseOrADirectoryNamingIt) {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  std::ofstream(path) << "this is not a database, just some text long enough to fill a header";
  for (const std::string& p : {path, dir.file("")}) {
    auto sys = SqliteSystem::open("db", {.path = p, .tables = {"accounts"}});
    ASSERT_FALSE(sys);
    EXPECT_EQ(sys.status().code(), StatusCode::kEnvironment);
    EXPECT_NE(sys.status().message().find("sqlite '" + p + "'"), std::string::npos)
        << sys.status().message();
  }
}

TEST(SqliteSystem, ReportsAnUnknownTableAsABadModelAndABadQueryNamingTheFileAndTheSql) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  // A misspelt table is a mistake in the model (exit code 2), not in the environment.
  auto table = SqliteSystem::open("db", {.path = path, .tables = {"account"}});
  ASSERT_FALSE(table);
  EXPECT_EQ(table.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(table.status().message(), "table 'account' does not exist in sqlite '" + path + "'");
  // What the model layer suggests from.
  auto names = SqliteSystem::table_names(path);
  ASSERT_TRUE(names) << names.status().message();
  EXPECT_EQ(*names, (std::vector<std::string>{"accounts", "audit"}));

  auto query = SqliteSystem::open("db", {.path = path, .queries = {{"q", "SELEKT 1"}}});
  ASSERT_FALSE(query);
  EXPECT_EQ(query.status().code(), StatusCode::kEnvironment);
  EXPECT_NE(query.status().message().find(path), std::string::npos);
  EXPECT_NE(query.status().message().find("SQL: SELEKT 1"), std::string::npos)
      << query.status().message();

  // Observing must not write: a writing query is a bad model, not a bad environment.
  auto writes =
      SqliteSystem::open("db", {.path = path, .queries = {{"w", "DELETE FROM accounts"}}});
  ASSERT_FALSE(writes);
  EXPECT_EQ(writes.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(writes.status().message(),
            "sqlite '" + path + "': query 'w' writes to the database: DELETE FROM accounts");

  // A table dropped during the run is reported when it is next observed.
  auto sys = open_system({.path = path, .tables = {"audit"}});
  Connection(path).exec("DROP TABLE audit");
  Hasher h;
  Status st = sys->observe(h);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_NE(st.message().find("table 'audit' failed: no such table: audit"), std::string::npos)
      << st.message();
}

// Three slots that actions fill and empty through the service's own connection: 2^3 states, and
// in each state three actions are enabled (fill or empty, per slot).
Model slots_model(const std::string& path, std::shared_ptr<Connection> service) {
  Model model("slots");
  model.set_world([path]() -> Result<std::unique_ptr<World>> {
    auto sys = SqliteSystem::open("db", {.path = path, .tables = {"slots"}});
    if (!sys) return sys.status();
    auto world = std::make_unique<World>();
    world->add(std::move(*sys));
    return world;
  });
  for (int i = 0; i < 3; ++i) {
    const std::string id = std::to_string(i);
    auto filled = [service, id](const World&, const Context&) {
      return service->one("SELECT count(*) FROM slots WHERE id = " + id) == "i:1";
    };
    model.action("fill_" + id)
        .when([filled](const World& w, const Context& c) { return !filled(w, c); })
        .run([service, id](Step&) {
          service->exec("INSERT INTO slots VALUES (" + id + ", 'filled')");
          return Outcome::ok();
        });
    model.action("empty_" + id).when(filled).run([service, id](Step&) {
      service->exec("DELETE FROM slots WHERE id = " + id);
      return Outcome::ok();
    });
  }
  return model;
}

void expect_explores_the_slots_and_leaves_the_file(Strategy& strategy) {
  TempDir dir;
  const std::string path = dir.file("slots.db");
  {
    Connection c(path);
    c.exec(
        "CREATE TABLE slots (id INTEGER PRIMARY KEY, what TEXT);"
        "INSERT INTO slots VALUES (1, 'filled');"
        "CREATE TABLE other (x); INSERT INTO other VALUES ('kept')");
  }
  const std::string before = dump(path);
  auto service = std::make_shared<Connection>(path);
  Model model = slots_model(path, service);
  ASSERT_TRUE(model.validate());
  auto r = explore(model, strategy);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->restore_mode, RestoreMode::kSnapshot);
  EXPECT_EQ(r->stats.states, 8u);
  EXPECT_EQ(r->stats.transitions, 24u);
  EXPECT_EQ(r->termination, Termination::kExhausted);
  EXPECT_TRUE(r->findings.empty());
  EXPECT_GT(r->stats.restores, 0u);
  EXPECT_EQ(dump(path), before);
  EXPECT_EQ(service->rows("SELECT * FROM slots"), (std::vector<std::string>{"i:1|t:filled"}));
}

TEST(SqliteSystem, BfsExploresEveryStateOfADatabaseAndLeavesItAsFound) {
  Bfs bfs;
  expect_explores_the_slots_and_leaves_the_file(bfs);
}

TEST(SqliteSystem, DfsExploresEveryStateOfADatabaseAndLeavesItAsFound) {
  Dfs dfs;
  expect_explores_the_slots_and_leaves_the_file(dfs);
}

}  // namespace
}  // namespace prowl
