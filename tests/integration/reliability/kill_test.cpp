// prowl killed in the middle of a run, where no cleanup code can run: SIGKILL (the OOM killer, a
// CI job's hard timeout) and the forced third signal. The run leaves its recovery record; the next
// run, or `prowl recover MODEL`, puts the database back as it was before the killed run began,
// removes the record and the worker copies the run left in TMPDIR, and says so. No service of the
// killed run outlives it.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "reliability.hpp"
#include "support/pg_test_env.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}
bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What a recovery says of a run of `pid` on `database`, up to the time it began.
std::string recovered_prefix(const std::string& database, pid_t pid) {
  return "recovered " + database + ": put back its content from before the run of pid " +
         std::to_string(pid) + " (begun ";
}
constexpr const char* kRecoveredSuffix = ") that did not end";

// Whether `line` is exactly the line a recovery of `database` after the run of `pid` says.
bool is_recovered_line(const std::string& line, const std::string& database, pid_t pid) {
  const std::string prefix = recovered_prefix(database, pid);
  // "2026-11-25 13:00:01"
  return starts_with(line, prefix) && ends_with(line, kRecoveredSuffix) &&
         line.size() == prefix.size() + 19 + std::string(kRecoveredSuffix).size() &&
         line.find('\n') == std::string::npos;
}

// Starts a run of the SQLite shop that never ends by itself and waits until it is well into its
// exploration: its `services` (one per worker) run and its recovery record is written.
std::unique_ptr<ProcessRun> start_sqlite_run(const ShopScratch& s, std::vector<std::string> args,
                                             const std::string& out, std::size_t services = 1) {
  args.insert(args.begin(), {"explore", kSqliteModel});
  auto run = s.start(args, out);
  EXPECT_TRUE(wait_for(
      [&] {
        return (s.services().size() == services && fs::exists(s.recovery_record())) ||
               run->wait(0ms);
      },
      10s))
      << run->err();
  std::this_thread::sleep_for(300ms);  // many steps, each of which changes the database
  EXPECT_FALSE(run->wait(0ms)) << "the run ended by itself: " << run->err();
  return run;
}

// SIGKILL, and what the killed run leaves: the recovery record, and no service once the kernel
// has delivered their parent-death signal.
void kill_and_expect_leftovers(ProcessRun& run, const ShopScratch& s) {
  run.signal(SIGKILL);
  EXPECT_EQ(run.code(10s), -SIGKILL);
  EXPECT_TRUE(fs::exists(s.recovery_record()));
  EXPECT_TRUE(wait_for([&] { return s.services().empty(); }, 5s))
      << s.services().size() << " services of the killed run still run";
}

// What a recovered SQLite database looks like: its content as before the killed run, no
// recovery record, no write-ahead log with anything in it, no lock file, no service.
void expect_recovered(const ShopScratch& s, const std::string& before) {
  EXPECT_EQ(sqlite_dump(s.db), before);
  EXPECT_FALSE(fs::exists(s.recovery_record()));
  EXPECT_EQ(file_size_or_zero(s.db + "-wal"), 0u);
  EXPECT_FALSE(fs::exists(s.lock_file()));
  EXPECT_TRUE(s.services().empty());
}

TEST(SqliteKilledRun, IsPutBackByProwlRecoverWhichSaysWhichRunItUndid) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  auto run = start_sqlite_run(s, {}, s.dir.file("run"));
  const pid_t killed = run->pid();
  kill_and_expect_leftovers(*run, s);
  // The killed run left its changes: without the recovery the data would stay changed.
  EXPECT_NE(sqlite_dump(s.db), before);

  auto recover = s.start({"recover", kSqliteModel}, s.dir.file("recover"));
  EXPECT_EQ(recover->code(30s), kExitOk) << recover->err();
  const std::string out = recover->out();
  ASSERT_TRUE(ends_with(out, "\n")) << out;
  EXPECT_TRUE(is_recovered_line(out.substr(0, out.size() - 1), s.db, killed)) << out;
  EXPECT_EQ(recover->err(), "");
  expect_recovered(s, before);
}

TEST(SqliteKilledRun, IsPutBackByTheNextRunWhoseReportSaysSo) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  auto run = start_sqlite_run(s, {}, s.dir.file("run"));
  const pid_t killed = run->pid();
  kill_and_expect_leftovers(*run, s);
  EXPECT_NE(sqlite_dump(s.db), before);

  const std::string next = s.dir.file("next");
  auto again = s.start({"explore", kSqliteModel, "--max-depth", "1", "--seed", "1", "--report",
                        "json:" + next + "/r.json"},
                       next);
  EXPECT_EQ(again->code(30s), kExitOk) << again->err();
  const auto report = read_json(next + "/r.json");
  EXPECT_EQ(report["termination"], "exhausted");
  EXPECT_EQ(count_warnings(
                report, [&](const std::string& w) { return is_recovered_line(w, s.db, killed); }),
            1)
      << report["warnings"].dump(2);
  EXPECT_NE(again->out().find("warning: " + recovered_prefix(s.db, killed)), std::string::npos)
      << again->out();
  expect_recovered(s, before);
}

TEST(SqliteKilledRun, WithTwoWorkersLeavesCopiesThatTheNextRunRemoves) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  // Two services: the first on the user's file, the second on its copy in TMPDIR.
  auto run = start_sqlite_run(s, {"--workers", "2"}, s.dir.file("run"), 2);
  const pid_t killed = run->pid();
  kill_and_expect_leftovers(*run, s);
  const std::vector<std::string> left = worker_copies(s.tmp);
  ASSERT_EQ(left.size(), 1u) << "the killed run's copy for its second worker";

  const std::string next = s.dir.file("next");
  auto again = s.start({"explore", kSqliteModel, "--workers", "2", "--max-depth", "1", "--seed",
                        "1", "--report", "json:" + next + "/r.json"},
                       next);
  EXPECT_EQ(again->code(30s), kExitOk) << again->err();
  const auto report = read_json(next + "/r.json");
  EXPECT_EQ(count_warnings(
                report, [&](const std::string& w) { return is_recovered_line(w, s.db, killed); }),
            1)
      << report["warnings"].dump(2);
  EXPECT_FALSE(fs::exists(left[0])) << left[0];
  EXPECT_TRUE(worker_copies(s.tmp).empty());
  expect_recovered(s, before);
}

TEST(SqliteKilledRun, WithTwoWorkersIsCleanedUpByProwlRecover) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  auto run = start_sqlite_run(s, {"--workers", "2"}, s.dir.file("run"), 2);
  const pid_t killed = run->pid();
  kill_and_expect_leftovers(*run, s);
  const std::vector<std::string> left = worker_copies(s.tmp);
  ASSERT_EQ(left.size(), 1u);

  auto recover = s.start({"recover", kSqliteModel}, s.dir.file("recover"));
  EXPECT_EQ(recover->code(30s), kExitOk) << recover->err();
  // One line for the database, then one for the copy.
  const std::string out = recover->out();
  const std::size_t first = out.find('\n');
  ASSERT_NE(first, std::string::npos) << out;
  EXPECT_TRUE(is_recovered_line(out.substr(0, first), s.db, killed)) << out;
  EXPECT_EQ(out.substr(first + 1),
            "removed " + left[0] + ", a worker copy of a run that did not end\n");
  EXPECT_FALSE(fs::exists(left[0]));
  expect_recovered(s, before);
}

TEST(ProwlRecover, WithNothingToDoSaysSoAndTouchesNothing) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  const std::string starts = s.dir.file("starts");
  auto recover = s.start_with({"recover", kSqliteModel}, s.dir.file("recover"),
                              {{"SHOP_API", kServices + "/recording_shop.sh"},
                               {"SHOP_API_REAL", kShopApi},
                               {"SHOP_STARTS", starts}});
  EXPECT_EQ(recover->code(30s), kExitOk) << recover->err();
  EXPECT_EQ(recover->out(),
            "nothing to recover: no run of " + kSqliteModel + " left anything behind\n");
  EXPECT_EQ(recover->err(), "");
  EXPECT_FALSE(fs::exists(starts)) << "prowl recover started the service: " << read_file(starts);
  EXPECT_EQ(sqlite_dump(s.db), before);
  EXPECT_FALSE(fs::exists(s.lock_file()));
  EXPECT_FALSE(fs::exists(s.recovery_record()));
}

// Three different signals at once (two of the same kind may arrive as one): the third ends prowl
// in its signal handler, with the services' process groups, and nothing is restored.
TEST(SqliteThirdSignal, EndsProwlAtOnceAndProwlRecoverBringsTheDataBack) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  const std::string out = s.dir.file("run");
  auto run = start_sqlite_run(s, {"--report", "json:" + out + "/r.json"}, out);
  const pid_t forced = run->pid();
  const auto sent = std::chrono::steady_clock::now();
  run->signal(SIGINT);
  run->signal(SIGTERM);
  run->signal(SIGHUP);
  const int code = run->code(10s);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 2s);
  // 128 + whichever of the three arrived first.
  EXPECT_TRUE(code == signal_exit_code(SIGHUP) || code == signal_exit_code(SIGINT) ||
              code == signal_exit_code(SIGTERM))
      << code << "\n"
      << run->err();
  EXPECT_NE(run->err().find("prowl: third signal: stopping now without restoring; the next run "
                            "recovers the databases\n"),
            std::string::npos)
      << run->err();
  // It stopped without restoring or reporting.
  EXPECT_FALSE(fs::exists(out + "/r.json"));
  EXPECT_TRUE(fs::exists(s.recovery_record()));
  EXPECT_TRUE(wait_for([&] { return s.services().empty(); }, 5s));

  auto recover = s.start({"recover", kSqliteModel}, s.dir.file("recover"));
  EXPECT_EQ(recover->code(30s), kExitOk) << recover->err();
  const std::string said = recover->out();
  ASSERT_TRUE(ends_with(said, "\n")) << said;
  EXPECT_TRUE(is_recovered_line(said.substr(0, said.size() - 1), s.db, forced)) << said;
  expect_recovered(s, before);
}

// The same on PostgreSQL: the record is the schema prowl_recovery in the database itself, and the
// content compared is pg_dump --data-only of the whole database.
class PostgresKilledRun : public PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    pg_env_ = {{"SHOP_PG_DSN", dsn()}};
    s_.create_db(kPostgresModel, pg_env_);
    before_ = pg_dump(dsn(), /*data_only=*/true);
    before_tables_ = shop_tables();
  }

  // The rows of the shop's tables (the dump also holds the recovery record, once there is one).
  std::string shop_tables() const {
    const PgConnection conn(dsn());
    std::string out;
    for (const std::string table : {"products", "orders", "ledger"}) {
      for (const std::string& row : conn.rows("SELECT * FROM " + table + " ORDER BY id")) {
        out += table + ": " + row + "\n";
      }
    }
    return out;
  }

  bool has_record() const {
    return PgConnection(dsn()).one(
               "SELECT count(*) FROM pg_namespace WHERE nspname = "
               "'prowl_recovery'") == "1";
  }
  // Whether the server still has a session of the run of `pid` (it holds prowl's lock until the
  // server notices that its client is gone).
  bool has_session_of(pid_t pid) const {
    return PgConnection(dsn()).one(
               "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'prowl pid " +
               std::to_string(pid) + " since %'") != "0";
  }
  std::vector<pid_t> services() const { return processes_with("postgres:" + dsn()); }

  // Starts a run, waits until it explores, kills it with SIGKILL, and checks what it left.
  pid_t kill_mid_run() {
    const std::string out = s_.dir.file("run");
    auto run = s_.start_with({"explore", kPostgresModel}, out, pg_env_);
    EXPECT_TRUE(
        wait_for([&] { return (!services().empty() && has_record()) || run->wait(0ms); }, 10s))
        << run->err();
    std::this_thread::sleep_for(500ms);
    EXPECT_FALSE(run->wait(0ms)) << run->err();
    const pid_t pid = run->pid();
    run->signal(SIGKILL);
    EXPECT_EQ(run->code(10s), -SIGKILL);
    EXPECT_TRUE(has_record());
    EXPECT_TRUE(wait_for([&] { return services().empty(); }, 5s));
    // The killed run left its changes in the shop's tables.
    EXPECT_NE(shop_tables(), before_tables_);
    EXPECT_TRUE(wait_for([&] { return !has_session_of(pid); }, 10s))
        << "the server keeps the killed run's session";
    return pid;
  }

  void expect_recovered() const {
    EXPECT_EQ(pg_dump(dsn(), /*data_only=*/true), before_);
    EXPECT_FALSE(has_record());
    EXPECT_TRUE(services().empty());
  }

  ShopScratch s_;
  std::vector<std::pair<std::string, std::string>> pg_env_;
  std::string before_;
  std::string before_tables_;
};

// Whether `line` is a recovery of the test's database (named by its DSN, which holds its name)
// after the run of `pid`.
bool is_recovered_postgres_line(const std::string& line, const std::string& dbname, pid_t pid) {
  const std::string head = "recovered postgres '";
  const std::string after =
      "': put back its content from before the run of pid " + std::to_string(pid) + " (begun ";
  const std::size_t at = line.find(after);
  if (!starts_with(line, head) || at == std::string::npos) return false;
  const std::string database = line.substr(head.size(), at - head.size());
  return database.find("dbname=" + dbname) != std::string::npos &&
         line.size() == at + after.size() + 19 + std::string(kRecoveredSuffix).size() &&
         ends_with(line, kRecoveredSuffix);
}

TEST_F(PostgresKilledRun, IsPutBackByProwlRecover) {
  const pid_t killed = kill_mid_run();
  auto recover = s_.start_with({"recover", kPostgresModel}, s_.dir.file("recover"), pg_env_);
  EXPECT_EQ(recover->code(30s), kExitOk) << recover->err();
  const std::string out = recover->out();
  ASSERT_TRUE(ends_with(out, "\n")) << out;
  EXPECT_TRUE(is_recovered_postgres_line(out.substr(0, out.size() - 1), db_->name(), killed))
      << out;
  EXPECT_EQ(recover->err(), "");
  expect_recovered();

  auto again = s_.start_with({"recover", kPostgresModel}, s_.dir.file("again"), pg_env_);
  EXPECT_EQ(again->code(30s), kExitOk) << again->err();
  EXPECT_EQ(again->out(),
            "nothing to recover: no run of " + kPostgresModel + " left anything behind\n");
}

TEST_F(PostgresKilledRun, IsPutBackByTheNextRunWhoseReportSaysSo) {
  const pid_t killed = kill_mid_run();
  const std::string next = s_.dir.file("next");
  auto again = s_.start_with({"explore", kPostgresModel, "--max-depth", "1", "--seed", "1",
                              "--report", "json:" + next + "/r.json"},
                             next, pg_env_);
  EXPECT_EQ(again->code(30s), kExitOk) << again->err();
  const auto report = read_json(next + "/r.json");
  EXPECT_EQ(count_warnings(report,
                           [&](const std::string& w) {
                             return is_recovered_postgres_line(w, db_->name(), killed);
                           }),
            1)
      << report["warnings"].dump(2);
  expect_recovered();
}

TEST_F(PostgresKilledRun, AThirdSignalEndsItAtOnceAndTheNextRunBringsTheDataBack) {
  const std::string out = s_.dir.file("run");
  auto run = s_.start_with({"explore", kPostgresModel, "--report", "json:" + out + "/r.json"}, out,
                           pg_env_);
  ASSERT_TRUE(
      wait_for([&] { return (!services().empty() && has_record()) || run->wait(0ms); }, 10s))
      << run->err();
  std::this_thread::sleep_for(500ms);
  ASSERT_FALSE(run->wait(0ms)) << run->err();
  const pid_t forced = run->pid();
  const auto sent = std::chrono::steady_clock::now();
  run->signal(SIGTERM);
  run->signal(SIGHUP);
  run->signal(SIGINT);
  const int code = run->code(10s);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 2s);
  EXPECT_TRUE(code == signal_exit_code(SIGHUP) || code == signal_exit_code(SIGINT) ||
              code == signal_exit_code(SIGTERM))
      << code << "\n"
      << run->err();
  EXPECT_FALSE(fs::exists(out + "/r.json"));
  EXPECT_TRUE(has_record());
  EXPECT_TRUE(wait_for([&] { return services().empty(); }, 5s));
  EXPECT_TRUE(wait_for([&] { return !has_session_of(forced); }, 10s));

  const std::string next = s_.dir.file("next");
  auto again = s_.start_with({"explore", kPostgresModel, "--max-depth", "1", "--seed", "1",
                              "--report", "json:" + next + "/r.json"},
                             next, pg_env_);
  EXPECT_EQ(again->code(30s), kExitOk) << again->err();
  const auto report = read_json(next + "/r.json");
  EXPECT_EQ(count_warnings(report,
                           [&](const std::string& w) {
                             return is_recovered_postgres_line(w, db_->name(), forced);
                           }),
            1)
      << report["warnings"].dump(2);
  expect_recovered();
}

}  // namespace
}  // namespace prowl::testing
