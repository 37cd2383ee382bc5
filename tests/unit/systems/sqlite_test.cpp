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

namespace prowl {
namespace {

// A temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "prowl-sqlite-XXXXXX").string();
    PROWL_CHECK(mkdtemp(tmpl.data()) != nullptr, "mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A connection of its own, as the service under test would hold.
class Connection {
 public:
  explicit Connection(const std::string& path) {
    PROWL_CHECK(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                nullptr) == SQLITE_OK,
                "cannot open " + path);
    sqlite3_busy_timeout(db_, 2000);
  }
  ~Connection() { sqlite3_close_v2(db_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    std::string message = err ? err : "";
    sqlite3_free(err);
    PROWL_CHECK(rc == SQLITE_OK, sql + ": " + message);
  }
  // Every row of the result, values rendered with their type ("i:1", "t:alice", "null") and
  // joined with '|'.
  std::vector<std::string> rows(const std::string& sql) const {
    sqlite3_stmt* stmt = nullptr;
    PROWL_CHECK(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK,
                sql + ": " + sqlite3_errmsg(db_));
    std::vector<std::string> out;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        if (c > 0) row += '|';
        const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_INTEGER:
            row += "i:";
            break;
          case SQLITE_FLOAT:
            row += "r:";
            break;
          case SQLITE_TEXT:
            row += "t:";
            break;
          case SQLITE_BLOB:
            row += "b:";
            break;
          default:
            row += "null";
            text = nullptr;
        }
        if (text) row += text;
      }
      out.push_back(row);
    }
    sqlite3_finalize(stmt);
    PROWL_CHECK(rc == SQLITE_DONE, sql + ": " + sqlite3_errmsg(db_));
    return out;
  }
  std::string one(const std::string& sql) const {
    auto r = rows(sql);
    PROWL_CHECK(r.size() == 1, sql + " did not return one row");
    return r[0];
  }

 private:
  sqlite3* db_ = nullptr;
};

// The whole logical content of a database file, read through a fresh connection: user_version,
// every schema entry, and every row of every table in rowid order.
std::string dump(const std::string& path) {
  Connection c(path);
  std::string out = "user_version " + c.one("PRAGMA user_version") + "\n";
  for (const auto& entry : c.rows("SELECT type, name, sql FROM sqlite_schema ORDER BY name")) {
    out += entry + "\n";
  }
  for (const auto& table :
       c.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")) {
    const std::string name = table.substr(2);
    for (const auto& row : c.rows("SELECT rowid, * FROM \"" + name + "\" ORDER BY rowid")) {
      out += name + ": " + row + "\n";
    }
  }
  return out;
}

void create_accounts(const std::string& path, const std::string& journal_mode = "delete") {
  Connection c(path);
  c.exec("PRAGMA journal_mode = " + journal_mode);
  c.exec(
      "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT, balance REAL);"
      "INSERT INTO accounts VALUES (1, 'alice', 10.5), (2, 'bob', 3.0);"
      "CREATE TABLE audit (line TEXT);");
}

std::unique_ptr<SqliteSystem> open_system(SqliteOptions options) {
  auto sys = SqliteSystem::open("db", std::move(options));
  PROWL_CHECK(sys.is_ok(), sys.status().message());
  return std::move(*sys);
}

Fingerprint fingerprint_of(const SqliteSystem& sys) {
  Hasher h;
  Status st = sys.observe(h);
  PROWL_CHECK(st.is_ok(), st.message());
  return h.finish();
}

const char* kNames = "SELECT group_concat(name, ',') FROM (SELECT name FROM accounts ORDER BY id)";

// Tests that run once with a rollback-journal file and once with a WAL file.
class SqliteSystemInBothJournalModes : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = dir_.file("app.db");
    create_accounts(path_, GetParam());
  }
  TempDir dir_;
  std::string path_;
};

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

// The service is another process with its own connection, idle between requests: it answers each
// request line on a pipe ("names", "add <name>" or "quit") and keeps its connection open.
class ServiceProcess {
 public:
  explicit ServiceProcess(const std::string& path) {
    int to_child[2], from_child[2];
    PROWL_CHECK(pipe(to_child) == 0 && pipe(from_child) == 0, "pipe failed");
    pid_ = fork();
    PROWL_CHECK(pid_ >= 0, "fork failed");
    if (pid_ == 0) {
      close(to_child[1]);
      close(from_child[0]);
      serve(path, to_child[0], from_child[1]);
    }
    close(to_child[0]);
    close(from_child[1]);
    out_ = to_child[1];
    in_ = from_child[0];
  }
  ~ServiceProcess() {
    if (pid_ > 0) {
      request("quit");
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
    close(in_);
  }
  std::string request(const std::string& line) {
    std::string msg = line + "\n";
    PROWL_CHECK(write(out_, msg.data(), msg.size()) == static_cast<ssize_t>(msg.size()),
                "write to the service failed");
    return read_line(in_);
  }
  int quit() {
    request("quit");
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  static std::string read_line(int fd) {
    std::string line;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n') line += c;
    return line;
  }
  static void write_line(int fd, const std::string& line) {
    std::string msg = line + "\n";
    if (write(fd, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size())) _exit(3);
  }
  [[noreturn]] static void serve(const std::string& path, int in, int out) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) _exit(2);
    sqlite3_busy_timeout(db, 2000);
    for (;;) {
      std::string line = read_line(in);
      if (line == "quit" || line.empty()) {
        write_line(out, "bye");
        sqlite3_close(db);
        _exit(0);
      }
      std::string sql = line == "names" ? std::string(kNames)
                                        : "INSERT INTO accounts (name, balance) VALUES ('" +
                                              line.substr(4) + "', 0)";
      sqlite3_stmt* stmt = nullptr;
      std::string answer;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
        answer = std::string("error: ") + sqlite3_errmsg(db);
      } else {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW) {
          const unsigned char* text = sqlite3_column_text(stmt, 0);
          answer = text ? reinterpret_cast<const char*>(text) : "NULL";
        } else {
          answer = rc == SQLITE_DONE ? "ok" : std::string("error: ") + sqlite3_errmsg(db);
        }
      }
      sqlite3_finalize(stmt);
      write_line(out, answer);
    }
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int in_ = -1;
};

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

TEST(SqliteSystem, ReportsAnUnknownTableOrABadQueryNamingTheFileAndTheSql) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  auto table = SqliteSystem::open("db", {.path = path, .tables = {"nope"}});
  ASSERT_FALSE(table);
  EXPECT_EQ(table.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(table.status().message(),
            "sqlite '" + path +
                "': table 'nope' failed: no such table: nope (SQL logic error); SQL: SELECT * "
                "FROM \"nope\"");

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
