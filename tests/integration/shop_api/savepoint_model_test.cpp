// The shop scenario in-process on PostgreSQL savepoints (examples/shop_api/shop_model.hpp): BFS
// finds the three seeded bugs with their documented shortest paths, and the database is left
// exactly as it was (pg_dump before and after).
#ifdef PROWL_HAVE_SHOP_API

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"
#include "shop_api/postgres_db.hpp"
#include "shop_api/shop.hpp"
#include "shop_api/shop_model.hpp"
#include "support/pg_test_env.hpp"

namespace prowl {
namespace {

using ShopSavepoint = testing::PgTest;

std::vector<std::string> names(const Finding& f) {
  std::vector<std::string> out;
  for (const auto& s : f.steps) out.push_back(s.action);
  return out;
}

const Finding* find(const RunReport& r, const std::string& invariant, const std::string& last) {
  for (const Finding& f : r.findings) {
    if (f.name == invariant && f.action == last) return &f;
  }
  return nullptr;
}

TEST_F(ShopSavepoint, BfsFindsTheThreeSeededBugsByTheirShortestPathsAndLeavesTheDatabase) {
  {
    // The schema first, so that pg_dump sees the tables before and after.
    auto db = shop::PostgresDb::connect(dsn());
    ASSERT_TRUE(db) << db.status().message();
    ASSERT_TRUE(shop::Shop(**db).init());
  }
  const std::string before = testing::pg_dump(dsn());
  Model model = shop::make_savepoint_model(dsn());
  Bfs bfs;
  Options options;
  options.max_depth = 4;
  auto r = explore(model, bfs, options);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->restore_mode, RestoreMode::kStack);
  EXPECT_EQ(r->stats.states, 12u);
  EXPECT_EQ(r->stats.transitions, 29u);
  ASSERT_EQ(r->findings.size(), 4u);

  const Finding* refund = find(*r, "refunds_within_payments", "refund");
  ASSERT_NE(refund, nullptr);
  EXPECT_EQ(names(*refund), (std::vector<std::string>{"create_order", "pay", "refund", "refund"}));
  EXPECT_EQ(refund->message, "1 row(s): order_id=1 paid_cents=1200 refunded_cents=2400");

  const Finding* cancel = find(*r, "stock_conserved", "cancel");
  ASSERT_NE(cancel, nullptr);
  EXPECT_EQ(names(*cancel), (std::vector<std::string>{"create_order", "cancel", "cancel"}));
  EXPECT_EQ(cancel->message, "1 row(s): id=1 stock=3 received=2 committed=0");

  const Finding* ship = find(*r, "shipped_orders_paid", "ship");
  ASSERT_NE(ship, nullptr);
  EXPECT_EQ(names(*ship), (std::vector<std::string>{"create_order", "pay", "cancel", "ship"}));
  EXPECT_EQ(ship->message, "1 row(s): id=1 amount_cents=1200 net_paid_cents=0");

  // The same step also breaks stock conservation (the cancel returned the unit, the ship took
  // none): reported for its own (invariant, action) pair.
  const Finding* ship_stock = find(*r, "stock_conserved", "ship");
  ASSERT_NE(ship_stock, nullptr);
  EXPECT_EQ(names(*ship_stock),
            (std::vector<std::string>{"create_order", "pay", "cancel", "ship"}));
  for (const Finding& f : r->findings) EXPECT_TRUE(f.confirmed) << f.name;

  EXPECT_EQ(testing::pg_dump(dsn()), before);
}

}  // namespace
}  // namespace prowl

#endif  // PROWL_HAVE_SHOP_API
