// chaos: interrupts and kills `prowl explore` at random times in the middle of runs of the shop
// service (tests/integration/reliability/models/shop-long*.yaml, a state space without end), on
// SQLite and on PostgreSQL, and counts what users must be able to rely on:
//
//   data_intact      the database's content after the run (after `prowl recover` for a killed
//                    one) equals its content before: every row of every table, as a dump shows it
//   reports_written  an interrupted run (SIGINT) exited 130 with its JSON report (termination
//                    "interrupted") and one trace per finding
//   orphans          services still running, worker copies (prowl-copy*) or recovery records left
//                    once the run, and for a killed run the recovery, is over
//
//   build/bench/chaos [--per-kind N] [--seed S]
//   CHAOS runs=80 data_intact=80 reports_written=40 orphans=0
//
// N runs of each kind: SIGINT and SIGKILL, on SQLite (every other SQLite run with two workers)
// and on PostgreSQL (PROWL_TEST_PG_DSN names a server; without it, scripts/pg-server.sh starts one
// for the bench and stops it). Exit code 0 when every figure is the best it can be, 1 otherwise,
// with a line per failure saying which run and what.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "prowl/core/exit_code.hpp"
#include "support/pg_test_env.hpp"
#include "support/prowl_process.hpp"

namespace {

using namespace std::chrono_literals;
using prowl::testing::ProcessRun;
using prowl::testing::ScratchDir;
namespace fs = std::filesystem;

const std::string kProwl = PROWL_BIN;
const std::string kShopApi = SHOP_API_BIN;
const std::string kModels = RELIABILITY_MODELS;
const std::string kSource = PROWL_SOURCE_DIR;

struct Tally {
  int runs = 0;
  int data_intact = 0;
  int interrupted = 0;  // runs that were sent SIGINT
  int reports_written = 0;
  int orphans = 0;
  std::vector<std::string> failures;
};

std::size_t files_in(const std::string& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

// What is left in `tmp` and beside `db` that should not be: worker copies, recovery records.
int leftovers(const std::string& tmp, const std::string& db) {
  int n = static_cast<int>(prowl::testing::worker_copies(tmp).size());
  if (!db.empty() && fs::exists(db + ".prowl-recovery")) ++n;
  return n;
}

// Services still running with `needle` on their command line, after giving PR_SET_PDEATHSIG a
// moment to take a killed prowl's services along.
int running_services(const std::string& needle) {
  for (int i = 0; i < 200; ++i) {
    if (prowl::testing::processes_with(needle).empty()) return 0;
    std::this_thread::sleep_for(10ms);
  }
  return static_cast<int>(prowl::testing::processes_with(needle).size());
}

// One run of a model in `dir`, stopped by `sig` after `delay`; for SIGKILL, followed by
// `prowl recover`. `dump` reads the database's content.
void chaos_run(Tally& t, const std::string& label, const std::string& model,
               const std::vector<std::pair<std::string, std::string>>& env, const std::string& dir,
               const std::string& tmp, const std::string& db, const std::string& needle,
               bool workers, int sig, std::chrono::milliseconds delay,
               const std::function<std::string()>& dump) {
  ++t.runs;
  auto fail = [&](const std::string& what) { t.failures.push_back(label + ": " + what); };
  const std::string before = dump();
  const std::string out = dir + "/run-" + std::to_string(t.runs);
  fs::create_directories(out);
  std::vector<std::string> args = {
      kProwl,        "explore",      model, "--report", "json:" + out + "/r.json",
      "--trace-dir", out + "/traces"};
  if (workers) args.insert(args.end(), {"--workers", "2"});
  {
    ProcessRun run(args, out, dir, env);
    std::this_thread::sleep_for(delay);
    if (run.wait(0ms)) {
      fail("the run ended before the signal: " + run.err());
      return;
    }
    run.signal(sig);
    const std::optional<int> status = run.wait(60s);
    if (!status) {
      fail("the run did not stop within 60 s of the signal");
      return;
    }
    if (sig == SIGINT) {
      ++t.interrupted;
      const bool exit130 =
          WIFEXITED(*status) && WEXITSTATUS(*status) == prowl::signal_exit_code(SIGINT);
      bool report_ok = false;
      try {
        const auto report = nlohmann::json::parse(prowl::testing::read_file(out + "/r.json"));
        report_ok = report["termination"] == "interrupted" &&
                    files_in(out + "/traces") == report["findings"].size();
      } catch (const std::exception& e) {
        fail(std::string("no report: ") + e.what());
      }
      if (exit130 && report_ok) {
        ++t.reports_written;
      } else {
        fail(fmt::format("exit status {} / report {}: {}", *status, report_ok, run.err()));
      }
    }
  }
  if (sig == SIGKILL) {
    ProcessRun recover({kProwl, "recover", model}, out, dir, env);
    const int code = recover.code(60s);
    if (code != prowl::kExitOk)
      fail(fmt::format("prowl recover exited {}: {}", code, recover.err()));
  }
  const int left = running_services(needle) + leftovers(tmp, db);
  t.orphans += left;
  if (left > 0) fail(fmt::format("{} orphans (services, copies, records)", left));
  if (dump() == before) {
    ++t.data_intact;
  } else {
    fail("the database's content changed");
  }
}

}  // namespace

int main(int argc, char** argv) {
  int per_kind = 20;
  unsigned seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--per-kind" && i + 1 < argc) {
      per_kind = std::stoi(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = static_cast<unsigned>(std::stoul(argv[++i]));
    } else {
      std::cerr << "usage: chaos [--per-kind N] [--seed S]\n";
      return prowl::kExitUsage;
    }
  }
  std::cout << fmt::format("chaos: {} runs of each kind, seed {}\n", per_kind, seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_ms(200, 1500);
  Tally t;

  // SQLite.
  ScratchDir dir("prowl-chaos");
  const std::string db = dir.file("shop.db");
  const std::string tmp = dir.file("tmp");
  fs::create_directories(tmp);
  const std::vector<std::pair<std::string, std::string>> sqlite_env = {
      {"SHOP_API", kShopApi}, {"SHOP_DB", db}, {"TMPDIR", tmp}};
  const std::string sqlite_model = kModels + "/shop-long.yaml";
  {
    ProcessRun init({kProwl, "explore", sqlite_model, "--max-depth", "1", "--quiet"}, dir.path(),
                    dir.path(), sqlite_env);
    if (init.code() != prowl::kExitOk) {
      std::cerr << "chaos: cannot create the shop's database: " << init.err();
      return prowl::kExitEnvironment;
    }
  }
  auto sqlite_dump = [&] { return prowl::testing::sqlite_dump(db); };
  for (int k = 0; k < per_kind; ++k) {
    for (int sig : {SIGINT, SIGKILL}) {
      const auto delay = std::chrono::milliseconds(delay_ms(rng));
      const std::string label =
          fmt::format("sqlite {} #{} after {} ms{}", sig == SIGINT ? "SIGINT" : "SIGKILL", k + 1,
                      delay.count(), k % 2 ? " (2 workers)" : "");
      chaos_run(t, label, sqlite_model, sqlite_env, dir.path(), tmp, db, db, k % 2 == 1, sig, delay,
                sqlite_dump);
    }
  }

  // PostgreSQL.
  std::string server;
  std::string pg_dir;
  if (const char* d = std::getenv("PROWL_TEST_PG_DSN"); d != nullptr && *d != '\0') {
    server = d;
  } else {
    // Not inside `dir` (private to this user): the server runs as the postgres user.
    pg_dir = (fs::temp_directory_path() / "prowl-chaos-pg-XXXXXX").string();
    if (::mkdtemp(pg_dir.data()) == nullptr) {
      std::cerr << "chaos: cannot make a directory for the PostgreSQL server\n";
      return prowl::kExitEnvironment;
    }
    FILE* p =
        ::popen((kSource + "/scripts/pg-server.sh start " + pg_dir + " 2>/dev/null").c_str(), "r");
    char line[1024] = {};
    if (p != nullptr && std::fgets(line, sizeof line, p) != nullptr) server = line;
    if (p != nullptr) ::pclose(p);
    while (!server.empty() && (server.back() == '\n' || server.back() == '\r')) server.pop_back();
    if (server.empty()) {
      std::cerr << "chaos: no PostgreSQL server (set PROWL_TEST_PG_DSN or install postgresql)\n";
      return prowl::kExitEnvironment;
    }
  }
  int code = prowl::kExitOk;
  {
    prowl::testing::PgTestDatabase database(server);
    const std::vector<std::pair<std::string, std::string>> pg_env = {
        {"SHOP_API", kShopApi}, {"SHOP_PG_DSN", database.dsn()}, {"TMPDIR", tmp}};
    const std::string pg_model = kModels + "/shop-long-postgres.yaml";
    ProcessRun init({kProwl, "explore", pg_model, "--max-depth", "1", "--quiet"}, dir.path(),
                    dir.path(), pg_env);
    if (init.code() != prowl::kExitOk) {
      std::cerr << "chaos: cannot create the shop's tables: " << init.err();
      code = prowl::kExitEnvironment;
    }
    auto pg_dump = [&] { return prowl::testing::pg_dump(database.dsn(), /*data_only=*/true); };
    for (int k = 0; code == prowl::kExitOk && k < per_kind; ++k) {
      for (int sig : {SIGINT, SIGKILL}) {
        const auto delay = std::chrono::milliseconds(delay_ms(rng) + 500);
        const std::string label =
            fmt::format("postgres {} #{} after {} ms", sig == SIGINT ? "SIGINT" : "SIGKILL", k + 1,
                        delay.count());
        chaos_run(t, label, pg_model, pg_env, dir.path(), tmp, "", database.dsn(), false, sig,
                  delay, pg_dump);
      }
    }
  }
  if (!pg_dir.empty()) {
    std::system((kSource + "/scripts/pg-server.sh stop " + pg_dir + " >/dev/null 2>&1").c_str());
  }
  if (code != prowl::kExitOk) return code;

  for (const std::string& f : t.failures) std::cout << "  failed: " << f << '\n';
  std::cout << fmt::format("CHAOS runs={} data_intact={} reports_written={} orphans={}\n", t.runs,
                           t.data_intact, t.reports_written, t.orphans);
  const bool best = t.data_intact == t.runs && t.reports_written == t.interrupted && t.orphans == 0;
  return best ? prowl::kExitOk : prowl::kExitFindings;
}
