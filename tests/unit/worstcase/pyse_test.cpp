#include "prowl/worstcase/pyse.hpp"

#include <gtest/gtest.h>

#include "worst_case/programs.hpp"

namespace prowl::wc {
namespace {

const Program kInsertionSort{"insertion_sort", "", examples::insertion_sort};
const Program kBoyerMoore3{"boyer_moore3", "", examples::boyer_moore3};

TEST(QTarget, IsTheRewardAtTheEndAndAddsTheBestNextValueElsewhere) {
  // One linear layer: Q(s) = W s + b, with W = [[1, 2], [3, -1]], b = [0.5, 0].
  learn::Layer layer;
  layer.weights.resize(2, 2);
  layer.weights << 1, 2, 3, -1;
  layer.bias.resize(2);
  layer.bias << 0.5, 0;
  const learn::Mlp q({layer}, learn::Activation::kRelu);
  Experience end{{1, 0}, true, -20, {}};
  EXPECT_EQ(q_target(q, end), -20);
  // Q(s') for s' = (1, 1): (3.5, 2): the target is 1 + 3.5.
  Experience step{{1, 0}, false, 1, {1, 1}};
  EXPECT_EQ(q_target(q, step), 4.5);
}

TEST(Pyse, EveryRunIsANewPathSoTheTreeEndsAfterItsLeaves) {
  // insertion_sort at n = 4 has 24 complete paths and no infeasible side (both sides of every
  // decision are feasible until the path ends): the Unique Path Finder makes every run a new one.
  Pyse pyse(kInsertionSort, {});
  Result<SearchResult> r = pyse.search(4, {});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->end, SearchEnd::kComplete);
  EXPECT_EQ(r->paths, 24u);
  EXPECT_EQ(r->longest, 6u);
}

TEST(Pyse, AnInfeasiblePickEndsThePathWithMinusTwenty) {
  // x > 0, then x < 0: on the True side of the first, the True side of the second is infeasible.
  const Program p{"p", "", [](SymExec& ex, int) {
                    const z3::expr x = ex.int_input("x");
                    if (ex.branch(PROWL_SITE, x > 0)) ex.branch(PROWL_SITE, x < 0);
                  }};
  PyseOptions options;
  options.epsilon = 0;
  Pyse pyse(p, options);
  Result<SearchResult> r = pyse.search(1, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, SearchEnd::kComplete);
  EXPECT_EQ(r->paths, 2u);  // True then False, and False
  int infeasible = 0, terminal = 0;
  for (const Experience& e : pyse.experiences()) {
    infeasible += e.reward == -20 ? 1 : 0;
    terminal += e.next.empty() ? 1 : 0;
    if (e.reward == -20) {
      EXPECT_TRUE(e.next.empty());
    }
  }
  EXPECT_EQ(infeasible, 1);
  EXPECT_EQ(r->runs, 3u);  // the infeasible pick was a run of its own
  EXPECT_EQ(terminal, 3);
}

TEST(Pyse, QLearningOnAThreeBranchProgramConvergesToTheRewardsToGo) {
  // Sites A (x > 0), B (y > 0), C (x + y > 0): at C after F,F the True side is infeasible, after
  // T,T the False side. With history 2 every state tells its path apart, so Q-learning's fixed
  // point is exact: Q(A, ·) = 3, Q(B, ·) = 2, and at C +1 for a feasible side, -20 for the other.
  const Program p{"three", "", [](SymExec& ex, int) {
                    const z3::expr x = ex.int_input("x");
                    const z3::expr y = ex.int_input("y");
                    ex.branch(PROWL_SITE, x > 0);
                    ex.branch(PROWL_SITE, y > 0);
                    ex.branch(PROWL_SITE, x + y > 0);
                  }};
  PyseOptions options;
  options.min_updates = 3000;
  Pyse pyse(p, options);
  Result<SearchResult> r = pyse.search(1, {});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->end, SearchEnd::kComplete);
  EXPECT_EQ(r->paths, 6u);
  EXPECT_EQ(r->runs, 8u);  // and two infeasible picks
  EXPECT_EQ(r->longest, 3u);
  // 2 experiences at A, 4 at B, 8 at C (two of them infeasible and terminal, with -20).
  ASSERT_EQ(pyse.experiences().size(), 14u);
  int at_a = 0, at_b = 0, at_c = 0, infeasible = 0;
  for (const Experience& e : pyse.experiences()) {
    const Eigen::VectorXd q =
        pyse.network().forward(Eigen::Map<const Eigen::VectorXd>(e.state.data(), 54));
    const double learned = q[e.action ? 0 : 1];
    const bool has_previous = e.state[18 + 17] == 1, has_two = e.state[36 + 17] == 1;
    double expected;
    if (!has_previous) {
      expected = 3, ++at_a;
      EXPECT_FALSE(e.next.empty());
    } else if (!has_two) {
      expected = 2, ++at_b;
      EXPECT_FALSE(e.next.empty());
    } else {
      expected = e.reward, ++at_c;
      EXPECT_TRUE(e.next.empty());
      // Infeasible exactly where x and y took the same side and C the other one.
      const bool x_side = e.state[36 + 16] == 1, y_side = e.state[18 + 16] == 1;
      EXPECT_EQ(e.reward, x_side == y_side && e.action != x_side ? -20 : 1);
      infeasible += e.reward == -20 ? 1 : 0;
    }
    EXPECT_NEAR(learned, expected, 0.25) << "reward " << e.reward << ", side " << e.action;
  }
  EXPECT_EQ(at_a, 2);
  EXPECT_EQ(at_b, 4);
  EXPECT_EQ(at_c, 8);
  EXPECT_EQ(infeasible, 2);
}

TEST(Pyse, FeaturesAreTheSiteSlotTheSideAndThePresenceOfEachDecision) {
  Pyse pyse(kBoyerMoore3, {});  // history 2: three slots of 16 sites + side + present
  const Site s = PROWL_SITE;
  const std::vector<double> f = pyse.features({{s, true}}, s);
  ASSERT_EQ(f.size(), 54u);
  EXPECT_EQ(f[0], 1);   // the current site, slot 0
  EXPECT_EQ(f[16], 0);  // no side yet
  EXPECT_EQ(f[17], 1);
  EXPECT_EQ(f[18], 1);  // the previous decision: same site, True
  EXPECT_EQ(f[34], 1);
  EXPECT_EQ(f[35], 1);
  EXPECT_EQ(f[53], 0);  // two decisions back: none
}

TEST(Pyse, PreTrainedAtFiveFindsBoyerMoore3sLongestAtTwentyWithATarget) {
  Pyse pyse(kBoyerMoore3, {});
  ASSERT_TRUE(pyse.search(5, {}));
  SearchOptions options;
  options.target = 18;
  options.max_paths = 2000;
  Result<SearchResult> r = pyse.search(20, options);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, SearchEnd::kTarget);
  EXPECT_EQ(r->longest, 18u);
  EXPECT_LT(r->runs_to_longest, 1093u);  // fewer than the exhaustive tree
}

TEST(Pyse, ItsPolicyFileGivesAnotherPyseTheSameNetworkAndSiteSlots) {
  Pyse trained(kBoyerMoore3, {});
  ASSERT_TRUE(trained.search(5, {}));
  Result<learn::PolicyFile> read =
      learn::parse_policy(learn::write_policy(trained.to_policy()), "bm.policy");
  ASSERT_TRUE(read) << read.status().message();
  PyseOptions other;
  other.seed = 99;  // another initial network, replaced by the file's
  Pyse loaded(kBoyerMoore3, other);
  ASSERT_TRUE(loaded.load_policy(*read, "bm.policy"));
  const Site s = PROWL_SITE;
  const std::vector<double> f = trained.features({{s, true}}, s);
  EXPECT_EQ(loaded.features({{s, true}}, s), f);
  EXPECT_EQ(loaded.network().forward(Eigen::Map<const Eigen::VectorXd>(f.data(), 54)),
            trained.network().forward(Eigen::Map<const Eigen::VectorXd>(f.data(), 54)));
  Pyse sort(kInsertionSort, {});
  EXPECT_EQ(sort.load_policy(*read, "bm.policy").message(),
            "bm.policy: the policy is of program 'boyer_moore3', not 'insertion_sort'");
}

}  // namespace
}  // namespace prowl::wc
