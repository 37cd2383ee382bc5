// The shop scenario over real HTTP, by the model files examples/shop_api/shop.yaml (SQLite file,
// snapshot restore of the file) and shop-postgres.yaml (PostgreSQL, snapshot restore of the
// tables and sequences): each finds the same bugs by the same shortest paths as the in-process
// savepoint model (savepoint_model_test.cpp), and leaves the database as it found it.
#ifdef PROWL_HAVE_SHOP_API

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/modelfile/http_model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "shop_api/postgres_db.hpp"
#include "shop_api/shop.hpp"
#include "shop_api/shop_model.hpp"
#include "support/pg_test_env.hpp"

namespace prowl {
namespace {

namespace fs = std::filesystem;

using Summary = std::set<std::tuple<std::string, std::vector<std::string>, std::string>>;

// Each finding as (invariant, step names, message).
Summary summary(const RunReport& r) {
  Summary out;
  for (const Finding& f : r.findings) {
    std::vector<std::string> steps;
    for (const auto& s : f.steps) steps.push_back(s.action);
    EXPECT_TRUE(f.confirmed) << f.name;
    out.emplace(f.name, steps, f.message);
  }
  return out;
}

const Summary& expected() {
  using V = std::vector<std::string>;
  static const Summary s = {
      {"refunds_within_payments", V{"create_order", "pay", "refund", "refund"},
       "1 offending row: (order_id=1, paid_cents=1200, refunded_cents=2400)"},
      {"stock_conserved", V{"create_order", "cancel", "cancel"},
       "1 offending row: (id=1, stock=3, received=2, committed=0)"},
      {"stock_conserved", V{"create_order", "pay", "cancel", "ship"},
       "1 offending row: (id=1, stock=2, received=2, committed=1)"},
      {"shipped_orders_paid", V{"create_order", "pay", "cancel", "ship"},
       "1 offending row: (id=1, amount_cents=1200, net_paid_cents=0)"},
  };
  return s;
}

fs::path model_file(const char* name) { return fs::path(SHOP_API_README).parent_path() / name; }

Result<RunReport> explore_file(const fs::path& file, std::uint32_t workers = 1) {
  auto model = modelfile::load_model_file(file.string());
  if (!model) return model.status();
  Bfs bfs;
  Options options;
  options.max_depth = 4;
  options.workers = workers;
  return explore(**model, bfs, options);
}

// A directory of the test's own, made empty, removed at the end.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// TMPDIR for the scope: where the copies of the world for other workers make their directories.
class TmpDirFor {
 public:
  explicit TmpDirFor(const fs::path& dir) {
    if (const char* old = ::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpDirFor() {
    if (old_.empty()) {
      ::unsetenv("TMPDIR");
    } else {
      ::setenv("TMPDIR", old_.c_str(), 1);
    }
  }

 private:
  std::string old_;
};

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ShopHttp, SqliteModelFindsTheSeededBugsByTheirShortestPaths) {
  const fs::path dir =
      fs::temp_directory_path() / ("prowl-shop-http-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_DB", (dir / "shop.db").c_str(), 1);
  auto r = explore_file(model_file("shop.yaml"));
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->restore_mode, RestoreMode::kSnapshot);
  EXPECT_EQ(r->stats.states, 12u);
  EXPECT_EQ(r->stats.transitions, 29u);
  EXPECT_EQ(r->stats.replayed_actions, 0u);
  EXPECT_EQ(summary(*r), expected());
  fs::remove_all(dir);
}

TEST(ShopHttp, TwoWorkersWithACopyOfTheServiceEachFindTheSameBugs) {
  ScratchDir dir("prowl-shop-http-workers");
  ScratchDir tmp("prowl-shop-http-workers-tmp");
  TmpDirFor tmpdir(tmp.path());
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_DB", (dir.path() / "shop.db").c_str(), 1);
  auto r = explore_file(model_file("shop.yaml"), 2);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
  EXPECT_EQ(r->stats.states, 12u);
  EXPECT_EQ(r->stats.transitions, 29u);
  EXPECT_EQ(r->stats.replayed_actions, 0u);
  EXPECT_EQ(summary(*r), expected());
  // The second copy's directory, database and journal are gone; the first copy's file is where
  // the model says.
  EXPECT_EQ(entries(tmp.path()), std::vector<std::string>{});
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"shop.db"});
}

TEST(ShopHttp, WorkersNeedAServiceThatCanListenOnAPortOfItsOwn) {
  ScratchDir dir("prowl-shop-http-fixed-port");
  std::string text;
  {
    std::ifstream in(model_file("shop.yaml"));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string health = "    health: /health\n";
  const std::size_t at = text.find(health);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "    port: 1\n");  // never reached: the model is refused before copy 1 starts
  // The message names the line of the system's entry.
  const std::size_t entry = text.find("  - name: service");
  ASSERT_NE(entry, std::string::npos);
  const auto line =
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(entry), '\n') + 1;
  const fs::path file = dir.path() / "fixed.yaml";
  std::ofstream(file) << text;
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_DB", (dir.path() / "shop.db").c_str(), 1);
  auto model = modelfile::load_model_file(file.string());
  ASSERT_TRUE(model) << model.status().message();
  // Copy 0 of the world cannot start on port 1 either: build copy 1 directly.
  auto copy = (*model)->make_world(1);
  ASSERT_FALSE(copy);
  EXPECT_EQ(copy.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(copy.status().message(),
            file.string() + ":" + std::to_string(line) +
                ": system 'service' listens on the fixed port 1: each worker runs its own copy of "
                "the service, which needs a port of its own (leave port: out and use {port}, or "
                "run one worker)");
}

// shop.yaml with `db_copy: true` for the service, written to `dir`.
fs::path db_copy_model(const fs::path& dir) {
  std::string text;
  {
    std::ifstream in(model_file("shop.yaml"));
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string db = "    db: \"${env:SHOP_DB}\"\n";
  const std::size_t at = text.find(db);
  EXPECT_NE(at, std::string::npos);
  text.insert(at + db.size(), "    db_copy: true\n");
  const fs::path file = dir / "shop-db-copy.yaml";
  std::ofstream(file) << text;
  return file;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ShopHttp, WithDbCopyTheUsersFileIsNeverWrittenAndTheSameBugsAreFound) {
  ScratchDir dir("prowl-shop-http-db-copy");
  ScratchDir models("prowl-shop-http-db-copy-models");
  ScratchDir tmp("prowl-shop-http-db-copy-tmp");
  TmpDirFor tmpdir(tmp.path());
  const fs::path user = dir.path() / "shop.db";
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_DB", user.c_str(), 1);
  // The user's file, made by a run in place (the service creates it; prowl restores it).
  auto in_place = explore_file(model_file("shop.yaml"));
  ASSERT_TRUE(in_place) << in_place.status().message();
  EXPECT_EQ(summary(*in_place), expected());
  ASSERT_EQ(entries(dir.path()), std::vector<std::string>{"shop.db"});
  const std::string before = bytes_of(user);
  const auto mtime = fs::last_write_time(user);

  const fs::path model = db_copy_model(models.path());
  for (std::uint32_t workers : {1u, 2u}) {
    auto r = explore_file(model, workers);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
    EXPECT_EQ(r->stats.states, 12u);
    EXPECT_EQ(r->stats.transitions, 29u);
    EXPECT_EQ(summary(*r), expected()) << workers << " workers";
    // Compared as a whole: a difference would print every byte of both files.
    EXPECT_TRUE(bytes_of(user) == before) << workers << " workers";
    EXPECT_EQ(fs::last_write_time(user), mtime) << workers << " workers";
    EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"shop.db"});
    // The private copy (and the second worker's) went with the world.
    EXPECT_EQ(entries(tmp.path()), std::vector<std::string>{});
  }
}

TEST(ShopHttp, WithDbCopyAFileThatDoesNotExistIsCreatedOnlyInTheCopy) {
  ScratchDir dir("prowl-shop-http-db-copy-new");
  ScratchDir models("prowl-shop-http-db-copy-new-models");
  ScratchDir tmp("prowl-shop-http-db-copy-new-tmp");
  TmpDirFor tmpdir(tmp.path());
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_DB", (dir.path() / "shop.db").c_str(), 1);
  auto r = explore_file(db_copy_model(models.path()));
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(summary(*r), expected());
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{});
  EXPECT_EQ(entries(tmp.path()), std::vector<std::string>{});
}

using ShopHttpPostgres = testing::PgTest;

TEST_F(ShopHttpPostgres, PostgresModelRunsOneWorkerAndSaysWhy) {
  {
    auto db = shop::PostgresDb::connect(dsn());
    ASSERT_TRUE(db) << db.status().message();
    ASSERT_TRUE(shop::Shop(**db).init());
  }
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_PG_DSN", dsn().c_str(), 1);
  auto r = explore_file(model_file("shop-postgres.yaml"), 2);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(summary(*r), expected());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].rfind("2 workers were asked for; running one: system 'db' cannot", 0),
            0u)
      << r->warnings[0];
}

TEST_F(ShopHttpPostgres, PostgresModelFindsTheSameBugsAndLeavesTheDatabase) {
  {
    auto db = shop::PostgresDb::connect(dsn());
    ASSERT_TRUE(db) << db.status().message();
    ASSERT_TRUE(shop::Shop(**db).init());
  }
  const std::string before = testing::pg_dump(dsn());
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_PG_DSN", dsn().c_str(), 1);
  auto r = explore_file(model_file("shop-postgres.yaml"));
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->restore_mode, RestoreMode::kSnapshot);
  EXPECT_EQ(r->stats.states, 12u);
  EXPECT_EQ(r->stats.transitions, 29u);
  EXPECT_EQ(summary(*r), expected());
  EXPECT_EQ(testing::pg_dump(dsn()), before);
}

// The savepoint model words its messages as "N row(s): col=value ...": compare the paths.
TEST_F(ShopHttpPostgres, SavepointModelFindsTheSameBugsByTheSamePaths) {
  Model model = shop::make_savepoint_model(dsn());
  Bfs bfs;
  Options options;
  options.max_depth = 4;
  auto r = explore(model, bfs, options);
  ASSERT_TRUE(r) << r.status().message();
  std::set<std::pair<std::string, std::vector<std::string>>> paths, want;
  for (const auto& [name, steps, message] : summary(*r)) paths.emplace(name, steps);
  for (const auto& [name, steps, message] : expected()) want.emplace(name, steps);
  EXPECT_EQ(paths, want);
}

}  // namespace
}  // namespace prowl

#endif  // PROWL_HAVE_SHOP_API
