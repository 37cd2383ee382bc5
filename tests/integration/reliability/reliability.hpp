// What the reliability tests share: the programs under test (the prowl binary, the shop service),
// their models, and a run of `prowl explore` on the shop with a database of its own.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "prowl/core/exit_code.hpp"
#include "support/prowl_process.hpp"

namespace prowl::testing {

inline const std::string kProwl = PROWL_BIN;
inline const std::string kShopApi = SHOP_API_BIN;
inline const std::string kModels = RELIABILITY_MODELS;  // tests/integration/reliability/models
inline const std::string kServices = kModels + "/../services";  // their helper programs
// The shop with restocking and no limit on orders: its state space has no end, so a run goes on
// until it is stopped. On SQLite (SHOP_DB) and on PostgreSQL (SHOP_PG_DSN).
inline const std::string kSqliteModel = kModels + "/shop-long.yaml";
inline const std::string kPostgresModel = kModels + "/shop-long-postgres.yaml";

// A finding as the report names it: kind, name and the step that broke it.
using FindingKey = std::tuple<std::string, std::string, std::string>;

inline std::set<FindingKey> finding_keys(const nlohmann::json& report) {
  std::set<FindingKey> keys;
  for (const auto& f : report["findings"]) {
    keys.insert({f["kind"].get<std::string>(), f["name"].get<std::string>(),
                 f["action"].get<std::string>()});
  }
  return keys;
}

// How many of the report's warnings `is_one` accepts.
template <typename Predicate>
int count_warnings(const nlohmann::json& report, Predicate is_one) {
  int n = 0;
  for (const auto& w : report["warnings"]) n += is_one(w.get<std::string>()) ? 1 : 0;
  return n;
}

inline nlohmann::json read_json(const std::string& path) {
  const std::string text = read_file(path);
  PROWL_CHECK(!text.empty(), "no report at " + path);
  return nlohmann::json::parse(text);
}

// Waits until the run's service (the process whose command line holds `needle`) accepts
// connections on its `--port`, at most 20 s, then `more`. A service that accepts has started and
// the run explores: a signal sent then stops an exploration, not the service's start (which a
// busy machine can make take over a second).
inline void wait_until_serving(ProcessRun& run, const std::string& needle,
                               std::chrono::milliseconds more) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && !run.wait(std::chrono::milliseconds(0))) {
    const std::vector<pid_t> pids = processes_with(needle);
    const std::string command = pids.empty() ? std::string() : command_line(pids.front());
    const std::size_t at = command.find("--port ");
    if (at != std::string::npos && accepts_on(std::atoi(command.c_str() + at + 7))) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(more);
}

// Waits until the run, started with --progress-every, has written a progress line with at least
// `states` states and `findings` findings (at most 60 s, or until it ends). False if it did not.
inline bool wait_until_explored(ProcessRun& run, long states, long findings = 0) {
  const std::regex line(R"(progress: (\d+) states?, \d+ transitions?, (\d+) findings?)");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !run.wait(std::chrono::milliseconds(0))) {
    const std::string err = run.err();
    for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator();
         ++it) {
      if (std::stol((*it)[1]) >= states && std::stol((*it)[2]) >= findings) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A shop service's world for one test: a scratch directory holding the SQLite file, the reports,
// the traces and the TMPDIR of prowl's runs (worker copies land there).
struct ShopScratch {
  ScratchDir dir{"prowl-reliability"};
  std::string db = dir.file("shop.db");
  std::string tmp = dir.file("tmp");

  ShopScratch() { std::filesystem::create_directories(tmp); }

  std::vector<std::pair<std::string, std::string>> env() const {
    return {{"SHOP_API", kShopApi}, {"SHOP_DB", db}, {"TMPDIR", tmp}};
  }
  // Waits until a service on this scratch's database serves (the run is exploring), then `more`.
  void wait_until_exploring(ProcessRun& run, std::chrono::milliseconds more) const {
    wait_until_serving(run, db, more);
  }
  // `prowl ARGS...`, running in the scratch directory.
  std::unique_ptr<ProcessRun> start(std::vector<std::string> args,
                                    const std::string& out_dir) const {
    args.insert(args.begin(), kProwl);
    std::filesystem::create_directories(out_dir);
    return std::make_unique<ProcessRun>(std::move(args), out_dir, dir.path(), env());
  }

  // env() with `more` added, each replacing a variable of the same name (SHOP_PG_DSN for the
  // PostgreSQL models, SHOP_API for a wrapper of the service).
  std::vector<std::pair<std::string, std::string>> env_with(
      const std::vector<std::pair<std::string, std::string>>& more) const {
    auto all = env();
    for (const auto& [key, value] : more) {
      bool replaced = false;
      for (auto& [k, v] : all) {
        if (k == key) {
          v = value;
          replaced = true;
        }
      }
      if (!replaced) all.emplace_back(key, value);
    }
    return all;
  }
  // `prowl ARGS...` in the scratch directory, with env_with(more).
  std::unique_ptr<ProcessRun> start_with(
      std::vector<std::string> args, const std::string& out_dir,
      const std::vector<std::pair<std::string, std::string>>& more) const {
    args.insert(args.begin(), kProwl);
    std::filesystem::create_directories(out_dir);
    return std::make_unique<ProcessRun>(std::move(args), out_dir, dir.path(), env_with(more));
  }
  // Creates the shop's database as its service does on first start: a one-level run of `model`
  // (the SQLite file SHOP_DB, or the tables of the database SHOP_PG_DSN in `more`).
  void create_db(const std::string& model = kModels + "/shop-long.yaml",
                 const std::vector<std::pair<std::string, std::string>>& more = {}) const {
    const std::string out = dir.file("create-db");
    auto run = start_with({"explore", model, "--max-depth", "1", "--quiet"}, out, more);
    const int code = run->code();
    PROWL_CHECK(code == kExitOk, "creating the shop's database failed (exit " +
                                     std::to_string(code) + "): " + run->err());
  }
  // The files prowl keeps beside the SQLite file: its lock and its recovery record.
  std::string lock_file() const {
    return std::filesystem::weakly_canonical(db).string() + ".prowl-lock";
  }
  std::string recovery_record() const {
    return std::filesystem::weakly_canonical(db).string() + ".prowl-recovery";
  }
  // Services running on a SQLite file of this scratch: the one on `db` and those of worker
  // copies in `tmp` (prowl itself names no database as "sqlite:PATH" on its command line).
  std::vector<pid_t> services() const { return processes_with("sqlite:" + dir.path() + "/"); }
};

}  // namespace prowl::testing
