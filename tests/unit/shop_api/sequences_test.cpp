// Every sequence of the actions a prowl model of the shop would declare, up to four steps, run on
// a fresh in-memory shop: each invariant's shortest violating sequences are exactly the one that
// README.md documents for its seeded bug. This is what BFS over the service must find.
#ifdef PROWL_HAVE_SHOP_API

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "unit/shop_api/shop_test_support.hpp"

namespace shop::testing {
namespace {

// The actions: create_order binds the new order's id; the next four act on the bound order;
// restock adds one widget.
const std::vector<std::string> kActions = {"create_order", "pay",    "cancel",
                                           "ship",         "refund", "restock"};
constexpr int kMaxDepth = 4;

struct Violation {
  int depth = kMaxDepth + 1;
  std::set<std::string> sequences;
};

class Enumerator {
 public:
  std::map<std::string, Violation> run() {
    explore({});
    return shortest_;
  }
  int sequences() const { return sequences_; }

 private:
  // Runs `path` on a fresh shop; false when its last step is refused (the earlier ones never are:
  // only accepted steps are extended). Records the invariants the final state violates.
  void explore(const std::vector<std::string>& path) {
    if (static_cast<int>(path.size()) == kMaxDepth) return;
    for (const auto& action : kActions) {
      std::vector<std::string> next = path;
      next.push_back(action);
      auto db = SqliteDb::open(":memory:");
      ASSERT_TRUE(db) << db.status().message();
      Shop shop(**db);
      ASSERT_TRUE(shop.init());
      std::int64_t order = 0;
      int status = 0;
      for (const auto& step : next) {
        Reply reply;
        if (step == "create_order") {
          reply = shop.create_order(1, 1);
          if (reply.status == 201) order = reply.body["id"].get<std::int64_t>();
        } else if (step == "restock") {
          reply = shop.restock(1, 1);
        } else if (order == 0) {
          reply.status = 0;  // nothing bound yet: the action is not enabled
        } else {
          reply = step == "pay"      ? shop.pay(order)
                  : step == "cancel" ? shop.cancel(order)
                  : step == "ship"   ? shop.ship(order)
                                     : shop.refund(order);
        }
        status = reply.status;
        ASSERT_NE(status, 500) << reply.body;
      }
      if (status < 200 || status >= 300) continue;
      ++sequences_;
      std::string joined;
      for (const auto& step : next) joined += (joined.empty() ? "" : " ") + step;
      for (const auto& check : invariant_checks()) {
        if (query(**db, check.sql).empty()) continue;
        Violation& v = shortest_[std::string(check.name)];
        const int depth = static_cast<int>(next.size());
        if (depth < v.depth) v = Violation{depth, {}};
        if (depth == v.depth) v.sequences.insert(joined);
      }
      explore(next);
    }
  }

  std::map<std::string, Violation> shortest_;
  int sequences_ = 0;
};

TEST(ShopSequences, EachInvariantsShortestViolationIsItsDocumentedBug) {
  Enumerator enumerator;
  const auto shortest = enumerator.run();
  ASSERT_EQ(shortest.size(), 3u);
  EXPECT_EQ(shortest.at("stock_conserved").depth, 3);
  EXPECT_EQ(shortest.at("stock_conserved").sequences,
            std::set<std::string>{"create_order cancel cancel"});
  EXPECT_EQ(shortest.at("refunds_within_payments").depth, 4);
  EXPECT_EQ(shortest.at("refunds_within_payments").sequences,
            std::set<std::string>{"create_order pay refund refund"});
  EXPECT_EQ(shortest.at("shipped_orders_paid").depth, 4);
  EXPECT_EQ(shortest.at("shipped_orders_paid").sequences,
            std::set<std::string>{"create_order pay cancel ship"});
  // Accepted sequences of one to four steps: the space BFS walks to depth 4 (before merging
  // equal states).
  EXPECT_EQ(enumerator.sequences(), 106);
}

}  // namespace
}  // namespace shop::testing

#endif  // PROWL_HAVE_SHOP_API
