// Bad input and a hostile environment, as a user meets them: a DSN password that must never be
// shown, an SQL invariant that writes, a declared table the database lacks, a service that exits
// at once. Each is the right exit code with a message that says where and what, the reports are
// still written, and the database stays as it was.
#include <signal.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "reliability.hpp"
#include "support/pg_test_env.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kPassword = "sekrit-XYZ";

// The line and column (1-based) where `needle` first appears in the file at `path`, as
// "LINE:COL"; the test fails when it does not.
std::string position_of(const std::string& path, const std::string& needle) {
  std::istringstream lines(read_file(path));
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    const std::size_t at = line.find(needle);
    if (at != std::string::npos) return std::to_string(n) + ":" + std::to_string(at + 1);
  }
  ADD_FAILURE() << needle << " is not in " << path;
  return "";
}

// Every file under `dir`, read whole, with its path: what a run left for the user to read.
std::vector<std::pair<std::string, std::string>> files_under(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file()) files.emplace_back(e.path().string(), read_file(e.path().string()));
  }
  return files;
}

// A PostgreSQL server that asks for the password and refuses it (services/refusing_postgres.py),
// on a port of its own; it writes each password it was given to `log`.
class RefusingServer {
 public:
  explicit RefusingServer(const ScratchDir& dir)
      : log_(dir.file("passwords")),
        port_file_(dir.file("server-port")),
        process_({"/usr/bin/env", "python3", kServices + "/refusing_postgres.py", "--port-file",
                  port_file_, "--log", log_},
                 make_dir(dir.file("server")), dir.path()) {
    PROWL_CHECK(wait_for([&] { return fs::exists(port_file_) || process_.wait(0ms); }, 10s),
                "the refusing server did not start: " + process_.err());
    PROWL_CHECK(fs::exists(port_file_), "the refusing server ended: " + process_.err());
    port_ = std::stoi(read_file(port_file_));
  }
  int port() const { return port_; }
  std::string passwords() const { return read_file(log_); }

 private:
  static std::string make_dir(const std::string& dir) {
    fs::create_directories(dir);
    return dir;
  }
  std::string log_;
  std::string port_file_;
  ProcessRun process_;  // killed when the test ends
  int port_ = 0;
};

class PasswordRefused : public ::testing::TestWithParam<bool> {};

// The guard's connection is the first thing a run does with the database: refused, the run fails
// with exit 3 before any service starts, naming the database by its DSN with the password hidden.
TEST_P(PasswordRefused, TheRunFailsAndThePasswordIsShownNowhere) {
  const bool uri = GetParam();
  ShopScratch s;
  RefusingServer server(s.dir);
  const std::string port = std::to_string(server.port());
  const std::string dsn =
      uri ? "postgresql://shop:" + kPassword + "@127.0.0.1:" + port + "/shop"
          : "host=127.0.0.1 port=" + port + " user=shop dbname=shop password=" + kPassword;
  const std::string out = s.dir.file("run");
  auto run = s.start_with({"explore", kModels + "/secret-dsn-postgres.yaml", "--report",
                           "json:" + out + "/r.json", "--trace-dir", out + "/traces"},
                          out,
                          {{"SECRET_DSN", dsn},
                           {"SHOP_API", kServices + "/recording_shop.sh"},
                           {"SHOP_API_REAL", kShopApi},
                           {"SHOP_STARTS", s.dir.file("starts")}});
  EXPECT_EQ(run->code(30s), kExitEnvironment) << run->err();

  // The password did reach the server: what prowl hides, it used.
  const std::string passwords = server.passwords();
  ASSERT_FALSE(passwords.empty());
  std::istringstream given(passwords);
  for (std::string line; std::getline(given, line);) EXPECT_EQ(line, kPassword);

  const std::string err = run->err();
  EXPECT_EQ(err.rfind("prowl explore: postgres '", 0), 0u) << err;
  EXPECT_NE(err.find("[REDACTED]"), std::string::npos) << err;
  EXPECT_NE(err.find("': cannot connect: "), std::string::npos) << err;
  EXPECT_NE(err.find("password authentication failed for user \"shop\""), std::string::npos) << err;
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ("prowl explore: " + report["error"].get<std::string>() + "\n", err);
  EXPECT_FALSE(fs::exists(s.dir.file("starts"))) << "the service was started";

  EXPECT_EQ(run->out().find(kPassword), std::string::npos) << run->out();
  EXPECT_EQ(err.find(kPassword), std::string::npos) << err;
  for (const auto& [path, text] : files_under(out)) {
    EXPECT_EQ(text.find(kPassword), std::string::npos) << path << ":\n" << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Dsn, PasswordRefused, ::testing::Values(false, true),
                         [](const auto& info) {
                           return std::string(info.param ? "Uri" : "KeywordValue");
                         });

class LeakyService : public PgTest {};

// The service gets the DSN, password and all, in its arguments and its environment, prints both
// and exits: prowl shows what it printed, with the password redacted, in the message, on the
// console and in the report.
TEST_F(LeakyService, ThatPrintsItsDsnHasThePasswordRedactedInEveryMessageAndReport) {
  ShopScratch s;
  // The test server trusts every connection: the password passes the guard and reaches the
  // service.
  const std::string secret_dsn = pg_dsn_with(dsn(), "password", kPassword);
  const std::string leak = s.dir.file("leak");
  const std::string out = s.dir.file("run");
  auto run = s.start_with(
      {"explore", kModels + "/leaky-service.yaml", "--report", "json:" + out + "/r.json"}, out,
      {{"SECRET_DSN", secret_dsn}, {"LEAK_LOG", leak}});
  EXPECT_EQ(run->code(30s), kExitEnvironment) << run->err();
  ASSERT_NE(read_file(leak).find(kPassword), std::string::npos)
      << "the service did not get the password: " << read_file(leak);

  const std::string err = run->err();
  EXPECT_EQ(err.rfind("prowl explore: service 'service' (`sh -c ", 0), 0u) << err;
  EXPECT_NE(err.find("exited during startup with exit code 1\nstderr:\nconnecting with --port "),
            std::string::npos)
      << err;
  // Both prints, the password in each replaced.
  EXPECT_NE(err.find("password='[REDACTED]'"), std::string::npos) << err;
  EXPECT_NE(err.find("\nstdout:\ndsn="), std::string::npos) << err;
  EXPECT_EQ(err.find(kPassword), std::string::npos) << err;
  EXPECT_EQ(run->out().find(kPassword), std::string::npos) << run->out();
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ("prowl explore: " + report["error"].get<std::string>() + "\n", err);
  for (const auto& [path, text] : files_under(out)) {
    EXPECT_EQ(text.find(kPassword), std::string::npos) << path << ":\n" << text;
  }
}

// Nothing that prowl keeps beside a SQLite database while it runs is left, and no service.
void expect_no_leftovers(const ShopScratch& s) {
  EXPECT_FALSE(fs::exists(s.lock_file()));
  EXPECT_FALSE(fs::exists(s.recovery_record()));
  EXPECT_TRUE(s.services().empty());
}

TEST(WritingSqlInvariant, IsABadModelNamingTheInvariantAndTheDatabaseStaysAsItWas) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  const std::string model = kModels + "/shop-writing-invariant.yaml";
  const std::string out = s.dir.file("run");
  auto run = s.start({"explore", model, "--report", "json:" + out + "/r.json"}, out);
  EXPECT_EQ(run->code(30s), kExitUsage) << run->err();
  const std::string message =
      model + ":" + position_of(model, "name: stock_is_reset") +
      ": invariant 'stock_is_reset': its SQL fails on database 'db': sqlite '" + s.db +
      "': query writes to the database: UPDATE products SET stock = 99 RETURNING id";
  EXPECT_EQ(run->err(), "prowl explore: " + message + "\n");
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ(report["error"], message);
  EXPECT_EQ(report["stats"]["steps"], 0);
  EXPECT_EQ(sqlite_dump(s.db), before);
  expect_no_leftovers(s);
}

class WritingSqlInvariantOnPostgres : public PgTest {};

TEST_F(WritingSqlInvariantOnPostgres, ThroughADataModifyingWithIsABadModelAndTheTablesStay) {
  ShopScratch s;
  const std::vector<std::pair<std::string, std::string>> pg = {{"SHOP_PG_DSN", dsn()}};
  s.create_db(kPostgresModel, pg);
  const std::string before = pg_dump(dsn(), /*data_only=*/true);
  const std::string model = kModels + "/shop-writing-invariant-postgres.yaml";
  const std::string out = s.dir.file("run");
  auto run = s.start_with({"explore", model, "--report", "json:" + out + "/r.json"}, out, pg);
  EXPECT_EQ(run->code(30s), kExitUsage) << run->err();
  const std::string err = run->err();
  const std::string head =
      "prowl explore: " + model + ":" + position_of(model, "name: stock_is_reset") +
      ": invariant 'stock_is_reset': its SQL fails on database 'db': postgres '";
  const std::string tail =
      "': query writes to the database: WITH changed AS (UPDATE products SET stock = 99 "
      "RETURNING id) SELECT id FROM changed\n";
  EXPECT_EQ(err.rfind(head, 0), 0u) << err;
  EXPECT_TRUE(err.size() >= tail.size() &&
              err.compare(err.size() - tail.size(), tail.size(), tail) == 0)
      << err;
  EXPECT_NE(err.find("dbname=" + db_->name()), std::string::npos) << err;
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ("prowl explore: " + report["error"].get<std::string>() + "\n", err);
  EXPECT_EQ(pg_dump(dsn(), /*data_only=*/true), before);
  EXPECT_EQ(PgConnection(dsn()).one("SELECT stock <> 99 FROM products WHERE id = 1"), "t");
  EXPECT_EQ(
      PgConnection(dsn()).one("SELECT count(*) FROM pg_namespace WHERE nspname = 'prowl_recovery'"),
      "0");
  EXPECT_TRUE(processes_with("postgres:" + dsn()).empty());
}

TEST(MissingTable, IsNamedAtItsLineAndColumnWithADidYouMean) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  const std::string model = kModels + "/shop-missing-table.yaml";
  const std::string out = s.dir.file("run");
  auto run = s.start({"explore", model, "--report", "json:" + out + "/r.json"}, out);
  EXPECT_EQ(run->code(30s), kExitUsage) << run->err();
  const std::string message = model + ":" + position_of(model, "order]") +
                              ": system 'db': table 'order' does not exist in sqlite '" + s.db +
                              "'\n  hint: did you mean 'orders'?";
  EXPECT_EQ(run->err(), "prowl explore: " + message + "\n");
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ(report["error"], message);
  EXPECT_EQ(sqlite_dump(s.db), before);
  expect_no_leftovers(s);
}

// Runs one SQL statement on the SQLite file, as the user's own program would.
void sqlite_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  PROWL_CHECK(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK,
              "cannot open " + path);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close_v2(db);
  PROWL_CHECK(rc == SQLITE_OK, sql + ": " + message);
}

// A run that fails as it begins (its database system has begun, the next system refuses) has
// ended: what it leaves must not let a later recovery put back its old content over what the user
// wrote since.
struct FailedStart {
  std::string model;
  int code;
};

void PrintTo(const FailedStart& f, std::ostream* os) {
  *os << f.model << " (exit " << f.code << ")";
}

class RunThatFailsAsItBegins : public ::testing::TestWithParam<FailedStart> {};

TEST_P(RunThatFailsAsItBegins, LeavesNoRecordThatWouldUndoTheUsersLaterChanges) {
  ShopScratch s;
  s.create_db();
  const std::string model = kModels + "/" + GetParam().model;
  auto failed = s.start({"explore", model}, s.dir.file("run"));
  EXPECT_EQ(failed->code(30s), GetParam().code) << failed->err();
  EXPECT_FALSE(fs::exists(s.recovery_record()));

  sqlite_exec(s.db, "UPDATE products SET name = 'renamed after the run' WHERE id = 1");
  const std::string changed = sqlite_dump(s.db);
  auto recover = s.start({"recover", kSqliteModel}, s.dir.file("recover"));
  EXPECT_EQ(recover->code(30s), kExitOk) << recover->err();
  EXPECT_EQ(recover->out(),
            "nothing to recover: no run of " + kModels + "/shop-long.yaml left anything behind\n");
  EXPECT_EQ(sqlite_dump(s.db), changed) << "the user's change was undone";
  expect_no_leftovers(s);
}

INSTANTIATE_TEST_SUITE_P(Failures, RunThatFailsAsItBegins,
                         ::testing::Values(FailedStart{"shop-writing-invariant.yaml", kExitUsage},
                                           FailedStart{"shop-unreachable.yaml", kExitEnvironment}),
                         [](const auto& info) {
                           return std::string(info.param.code == kExitUsage ? "WritingInvariant"
                                                                            : "UnreachableBaseUrl");
                         });

TEST(ServiceThatExitsAtOnce, FailsTheRunWithExit3AndStillWritesItsReports) {
  ScratchDir dir("prowl-exits");
  const std::string out = dir.file("run");
  fs::create_directories(out);
  ProcessRun run(
      {kProwl, "explore", kModels + "/service-exits.yaml", "--report", "json:" + out + "/r.json"},
      out, dir.path(), {{"TMPDIR", dir.path()}});
  EXPECT_EQ(run.code(30s), kExitEnvironment) << run.err();
  const std::string error =
      "service 'service' (`sh -c echo boom >&2; exit 4`) exited during startup with exit code "
      "4\nstderr:\nboom\nstdout:\n(nothing)";
  EXPECT_EQ(run.err(), "prowl explore: " + error + "\n");
  EXPECT_NE(run.out().find("json report written to " + out + "/r.json"), std::string::npos)
      << run.out();
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["model"], "service_exits");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ(report["error"], error);
  EXPECT_EQ(report["findings"].size(), 0u);
  EXPECT_EQ(report["stats"]["steps"], 0);
}

}  // namespace
}  // namespace prowl::testing
