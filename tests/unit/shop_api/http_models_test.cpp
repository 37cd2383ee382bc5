// The shop scenario over real HTTP, by the model files examples/shop_api/shop.yaml (SQLite file,
// snapshot restore of the file) and shop-postgres.yaml (PostgreSQL, snapshot restore of the
// tables and sequences): each finds the same bugs by the same shortest paths as the in-process
// savepoint model (savepoint_model_test.cpp), and leaves the database as it found it.
#ifdef PROWL_HAVE_SHOP_API

#include <stdlib.h>

#include <filesystem>
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

Result<RunReport> explore_file(const fs::path& file) {
  auto model = modelfile::load_model_file(file.string());
  if (!model) return model.status();
  Bfs bfs;
  Options options;
  options.max_depth = 4;
  return explore(**model, bfs, options);
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

using ShopHttpPostgres = testing::PgTest;

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
