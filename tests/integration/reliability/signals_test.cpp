// Ctrl-C, a CI job's SIGTERM and a closed terminal's SIGHUP in the middle of a run of the real
// shop service: the run stops, confirms what it found, restores the database, stops the service,
// writes its report and traces, and exits 128 + the signal. What it reports is a subset of what an
// uninterrupted run of the same depth finds, and the database holds what it held before.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "reliability.hpp"
#include "support/pg_test_env.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::size_t files_in(const std::string& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

// Creates the shop's database file as its service does on first start (a one-level run).
void create_shop_db(const ShopScratch& s) {
  auto init = s.start({"explore", kSqliteModel, "--max-depth", "1", "--quiet"}, s.dir.file("i"));
  ASSERT_EQ(init->code(), kExitOk) << init->err();
}

// What every interrupted run must leave: its exit code, an interrupted report whose findings were
// confirmed, one trace per finding, and no service or worker copy behind it.
void expect_a_clean_stop(ProcessRun& run, const ShopScratch& s, int sig, const std::string& dir) {
  EXPECT_EQ(run.code(20s), signal_exit_code(sig)) << run.err();
  EXPECT_NE(run.err().find(std::string("stopped by ") + (sig == SIGINT    ? "SIGINT"
                                                         : sig == SIGTERM ? "SIGTERM"
                                                                          : "SIGHUP")),
            std::string::npos)
      << run.err();
  const auto report = read_json(dir + "/r.json");
  EXPECT_EQ(report["termination"], "interrupted");
  EXPECT_GT(report["stats"]["states"].get<int>(), 100);
  ASSERT_FALSE(report["findings"].empty());
  for (const auto& f : report["findings"]) {
    EXPECT_TRUE(f["confirmed"].get<bool>()) << f["name"] << ": " << f["unconfirmed"];
  }
  EXPECT_EQ(files_in(dir + "/traces"), report["findings"].size());
  EXPECT_NE(run.out().find("json report written to"), std::string::npos);
  EXPECT_TRUE(processes_with(s.db).empty()) << "a service on " << s.db << " still runs";
  EXPECT_TRUE(worker_copies(s.tmp).empty());
}

class SqliteSignal : public ::testing::TestWithParam<int> {};

TEST_P(SqliteSignal, StopsTheRunWhichReportsAndLeavesTheDatabaseAsItFoundIt) {
  const int sig = GetParam();
  ShopScratch s;
  create_shop_db(s);
  const std::string before = sqlite_dump(s.db);
  const std::string out = s.dir.file("run");
  auto run = s.start({"explore", kSqliteModel, "--seed", "7", "--report", "json:" + out + "/r.json",
                      "--trace-dir", out + "/traces", "--progress-every", "0.05"},
                     out);
  // Well into the run, which has no end of its own.
  ASSERT_TRUE(wait_until_explored(*run, 101, 1)) << run->err();
  run->signal(sig);
  expect_a_clean_stop(*run, s, sig, out);
  EXPECT_EQ(sqlite_dump(s.db), before);

  // Everything it reported, an uninterrupted run as deep finds too.
  const auto report = read_json(out + "/r.json");
  const int depth = report["stats"]["max_depth"];
  const std::string ref = s.dir.file("reference");
  auto full = s.start({"explore", kSqliteModel, "--seed", "7", "--quiet", "--max-depth",
                       std::to_string(depth), "--report", "json:" + ref + "/r.json"},
                      ref);
  ASSERT_EQ(full->code(120s), kExitFindings) << full->err();
  const auto reference = read_json(ref + "/r.json");
  EXPECT_EQ(reference["termination"], "exhausted");
  for (const FindingKey& key : finding_keys(report)) {
    EXPECT_TRUE(finding_keys(reference).count(key))
        << std::get<0>(key) << " " << std::get<1>(key) << " " << std::get<2>(key);
  }
  EXPECT_EQ(sqlite_dump(s.db), before);
}

INSTANTIATE_TEST_SUITE_P(Signals, SqliteSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const auto& info) {
                           return std::string(info.param == SIGINT    ? "SIGINT"
                                              : info.param == SIGTERM ? "SIGTERM"
                                                                      : "SIGHUP");
                         });

// Two workers, each with a copy of the service and the database in TMPDIR: SIGTERM stops both,
// and no copy is left.
TEST(SqliteSignalWithWorkers, RemovesEveryCopy) {
  ShopScratch s;
  create_shop_db(s);
  const std::string before = sqlite_dump(s.db);
  const std::string out = s.dir.file("run");
  auto run =
      s.start({"explore", kSqliteModel, "--workers", "2", "--report", "json:" + out + "/r.json",
               "--trace-dir", out + "/traces", "--progress-every", "0.05"},
              out);
  ASSERT_TRUE(wait_until_explored(*run, 101, 1)) << run->err();
  run->signal(SIGTERM);
  expect_a_clean_stop(*run, s, SIGTERM, out);
  EXPECT_EQ(sqlite_dump(s.db), before);
}

// A second signal skips confirming the findings; the database is restored all the same.
TEST(SqliteSignal, ASecondOneSkipsConfirmationButStillRestoresAndReports) {
  ShopScratch s;
  create_shop_db(s);
  const std::string before = sqlite_dump(s.db);
  const std::string out = s.dir.file("run");
  auto run = s.start(
      {"explore", kSqliteModel, "--report", "json:" + out + "/r.json", "--progress-every", "0.05"},
      out);
  ASSERT_TRUE(wait_until_explored(*run, 1, 1)) << run->err();
  // Both signals arrive before the run can act on the first: sent one after the other, a busy
  // machine could let it confirm a finding in between. Stopped, the process holds both pending;
  // continued, its threads take them before its code runs on, in either order: the exit code is
  // that of the first.
  run->signal(SIGSTOP);
  ASSERT_TRUE(wait_for([&] { return process_state(run->pid()) == 'T'; }, 5s));
  run->signal(SIGINT);
  run->signal(SIGTERM);
  run->signal(SIGCONT);
  const int code = run->code(20s);
  EXPECT_TRUE(code == signal_exit_code(SIGINT) || code == signal_exit_code(SIGTERM)) << code << "\n"
                                                                                     << run->err();
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "interrupted");
  ASSERT_FALSE(report["findings"].empty());
  for (const auto& f : report["findings"]) {
    EXPECT_FALSE(f["confirmed"].get<bool>());
    EXPECT_EQ(f["unconfirmed"], "interrupted before it could be replayed");
  }
  EXPECT_EQ(sqlite_dump(s.db), before);
  EXPECT_TRUE(processes_with(s.db).empty());
}

// A signal while the service is still starting stops the run too: it is interrupted (it did not
// fail), the starting service is stopped, and the database file, its lock and its recovery
// record are as they were before the run.
TEST(SqliteSignal, WhileTheServiceStartsIsAnInterruptedRun) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  const std::string out = s.dir.file("run");
  const std::string starts = s.dir.file("starts");
  auto run = s.start_with({"explore", kSqliteModel, "--report", "json:" + out + "/r.json",
                           "--trace-dir", out + "/traces"},
                          out,
                          {{"SHOP_API", kServices + "/recording_shop.sh"},
                           {"SHOP_API_REAL", kShopApi},
                           {"SHOP_STARTS", starts},
                           {"SHOP_START_DELAY", "29.5"}});
  ASSERT_TRUE(wait_for([&] { return !read_file(starts).empty() || run->wait(0ms); }, 10s));
  std::this_thread::sleep_for(100ms);
  ASSERT_FALSE(run->wait(0ms)) << run->err();
  run->signal(SIGINT);
  EXPECT_EQ(run->code(10s), signal_exit_code(SIGINT)) << run->err();
  EXPECT_NE(run->err().find("stopped by SIGINT"), std::string::npos) << run->err();
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "interrupted");
  EXPECT_TRUE(report["error"].is_null()) << report["error"];
  EXPECT_EQ(report["stats"]["states"], 0);
  EXPECT_TRUE(report["findings"].empty());
  ASSERT_EQ(report["warnings"].size(), 1u) << report["warnings"];
  EXPECT_NE(report["warnings"][0].get<std::string>().find(
                "interrupted by SIGINT while waiting for the service to become ready"),
            std::string::npos)
      << report["warnings"][0];
  EXPECT_EQ(files_in(out + "/traces"), 0u);
  EXPECT_NE(run->out().find("termination   interrupted"), std::string::npos) << run->out();
  EXPECT_TRUE(s.services().empty());
  EXPECT_TRUE(processes_with("sleep 29.5").empty());
  EXPECT_FALSE(fs::exists(s.recovery_record()));
  EXPECT_EQ(sqlite_dump(s.db), before);
}

// The same on PostgreSQL: the declared tables are restored (pg_dump --data-only is identical).
class PostgresSignal : public PgTest {};

TEST_F(PostgresSignal, StopsTheRunAndLeavesTheTablesAsItFoundThem) {
  ShopScratch s;
  auto env = s.env();
  env.emplace_back("SHOP_PG_DSN", dsn());
  // The service creates its tables on first start.
  {
    auto init = std::make_unique<ProcessRun>(
        std::vector<std::string>{kProwl, "explore", kPostgresModel, "--max-depth", "1", "--quiet"},
        s.dir.path(), s.dir.path(), env);
    ASSERT_EQ(init->code(), kExitOk) << init->err();
  }
  const std::string before = pg_dump(dsn(), /*data_only=*/true);
  const std::string out = s.dir.file("run");
  fs::create_directories(out);
  ProcessRun run({kProwl, "explore", kPostgresModel, "--report", "json:" + out + "/r.json",
                  "--trace-dir", out + "/traces"},
                 out, s.dir.path(), env);
  wait_until_serving(run, dsn(), 1000ms);  // restores are slower on PostgreSQL
  ASSERT_FALSE(run.wait(0ms)) << run.err();
  run.signal(SIGINT);
  EXPECT_EQ(run.code(30s), signal_exit_code(SIGINT)) << run.err();
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "interrupted");
  EXPECT_EQ(files_in(out + "/traces"), report["findings"].size());
  EXPECT_EQ(pg_dump(dsn(), /*data_only=*/true), before);
  EXPECT_TRUE(processes_with(dsn()).empty());
}

}  // namespace
}  // namespace prowl::testing
