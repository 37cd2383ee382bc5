#include "prowl/worstcase/search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "worst_case/programs.hpp"
#include "worstcase/executor.hpp"

namespace prowl::wc {
namespace {

using examples::boyer_moore3;
using examples::dijkstra;
using examples::insertion_sort;
using examples::smith_waterman;

const Program kInsertionSort{"insertion_sort", "", insertion_sort};
const Program kBoyerMoore3{"boyer_moore3", "", boyer_moore3};
const Program kSmithWaterman{"smith_waterman", "", smith_waterman};
const Program kDijkstra{"dijkstra", "", dijkstra};

std::uint64_t factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

Site site_of_this_line() { return PROWL_SITE; }

TEST(Site, IsStableAndTellsTwoSitesOnOneLineApart) {
  const Site a = site_of_this_line(), b = site_of_this_line();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.id(), b.id());
  EXPECT_EQ(a.name(), "search_test.cpp:" + std::to_string(a.line));
  const Site c = PROWL_SITE, d = PROWL_SITE;
  EXPECT_EQ(c.line, d.line);
  EXPECT_FALSE(c == d);
  EXPECT_NE(c.id(), d.id());
}

TEST(Exhaustive, InsertionSortHasNFactorialPathsAndItsWorstIsNChoose2) {
  for (int n = 2; n <= 6; ++n) {
    Result<SearchResult> r = exhaustive(kInsertionSort, n, {});
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->end, SearchEnd::kComplete);
    EXPECT_EQ(r->paths, factorial(n)) << "n=" << n;
    EXPECT_EQ(r->runs, r->paths);
    EXPECT_EQ(r->longest, static_cast<std::uint64_t>(n * (n - 1) / 2)) << "n=" << n;
    EXPECT_EQ(r->unknown, 0u);
    // The witness of the worst case is strictly decreasing.
    ASSERT_EQ(r->input.size(), static_cast<std::size_t>(n));
    for (int i = 0; i + 1 < n; ++i) {
      EXPECT_EQ(r->input[i].first, "a[" + std::to_string(i) + "]");
      EXPECT_GT(std::stol(r->input[i].second), std::stol(r->input[i + 1].second)) << "n=" << n;
    }
  }
}

TEST(Exhaustive, BoyerMoore3MatchesThePapersRows) {
  // PySE's grep table: (n, longest, paths) = (3,3,4) (4,3,4) (5,3,4) (10,9,40) (20,18,1093).
  const struct {
    int n;
    std::uint64_t longest, paths;
  } rows[] = {{3, 3, 4}, {4, 3, 4}, {5, 3, 4}, {10, 9, 40}, {20, 18, 1093}};
  for (const auto& row : rows) {
    Result<SearchResult> r = exhaustive(kBoyerMoore3, row.n, {});
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->longest, row.longest) << "n=" << row.n;
    EXPECT_EQ(r->paths, row.paths) << "n=" << row.n;
  }
}

// The texts of k symbols over {1, 2, 3, other} without 1,2,3 in them: f(k) = 4f(k-1) - f(k-3).
std::uint64_t texts_without_query(int k) {
  if (k < 0) return 0;
  if (k < 3) return std::uint64_t{1} << (2 * k);
  return 4 * texts_without_query(k - 1) - texts_without_query(k - 3);
}

TEST(Exhaustive, SmithWatermanHasTheDocumentedPathCountAndWorstThreeN) {
  // docs/worst-case.md: P(n) = f(n) + f(0) + ... + f(n-3); the scan ends at a perfect hit.
  const std::uint64_t expected[] = {4, 16, 64, 253, 997, 3925};
  for (int n = 1; n <= 6; ++n) {
    std::uint64_t paths = texts_without_query(n);
    for (int k = 0; k <= n - 3; ++k) paths += texts_without_query(k);
    ASSERT_EQ(paths, expected[n - 1]);
    Result<SearchResult> r = exhaustive(kSmithWaterman, n, {});
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->end, SearchEnd::kComplete);
    EXPECT_EQ(r->paths, paths) << "n=" << n;
    EXPECT_EQ(r->longest, static_cast<std::uint64_t>(3 * n)) << "n=" << n;
    if (n >= 3) {
      EXPECT_GE(r->paths, 3 * expected[n - 2]) << "n=" << n;
    }
  }
}

TEST(Wise, SmithWatermansAlwaysFalseIsLearnedAtThreeAndFindsThreeNInOnePath) {
  Result<BranchPolicy> policy = learn_policy(kSmithWaterman, {3}, 0, {});
  ASSERT_TRUE(policy) << policy.status().message();
  ASSERT_EQ(policy->rules.size(), 1u);
  EXPECT_EQ(policy->rules.begin()->second, BranchPolicy::Allowed::kFalse);
  for (int n : {10, 20, 30, 100}) {
    Result<SearchResult> r = guided(kSmithWaterman, n, *policy, {});
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->paths, 1u) << "n=" << n;
    EXPECT_EQ(r->longest, static_cast<std::uint64_t>(3 * n)) << "n=" << n;
    // The witness text holds none of the query's symbols.
    ASSERT_EQ(r->input.size(), static_cast<std::size_t>(n));
    for (const auto& [name, value] : r->input) {
      EXPECT_TRUE(value != "1" && value != "2" && value != "3") << name << " = " << value;
    }
  }
}

TEST(Exhaustive, DijkstrasLongestAtThreeNodesIsTheMostDecisionsOfAnyConcreteGraph) {
  Result<SearchResult> r = exhaustive(kDijkstra, 3, {});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->end, SearchEnd::kComplete);
  EXPECT_EQ(r->paths, 10u);
  EXPECT_EQ(r->longest, 9u);
  // Every graph of weights 0..4 run concretely: none takes more decisions, and the most is 9
  // (ties and orders of three paths need no larger weights).
  detail::Executor executor(kDijkstra, 3, 1000);
  std::uint64_t most = 0;
  std::vector<std::pair<std::string, std::string>> input(6);
  for (int code = 0; code < 5 * 5 * 5 * 5 * 5 * 5; ++code) {
    for (int i = 0, c = code; i < 6; ++i, c /= 5) {
      input[i] = {"w[" + std::to_string(i) + "]", std::to_string(c % 5)};
    }
    const detail::PathRecord run = executor.replay(input);
    ASSERT_EQ(run.end, detail::PathEnd::kComplete);
    most = std::max<std::uint64_t>(most, run.decisions.size());
  }
  EXPECT_EQ(most, r->longest);
}

TEST(Wise, MemorylessPolicyFindsInsertionSortsWorstInOnePath) {
  Result<BranchPolicy> policy = learn_policy(kInsertionSort, {3}, 0, {});
  ASSERT_TRUE(policy) << policy.status().message();
  ASSERT_EQ(policy->rules.size(), 1u);  // one site: always True
  EXPECT_EQ(policy->rules.begin()->second, BranchPolicy::Allowed::kTrue);
  for (int n : {4, 8, 12}) {
    Result<SearchResult> r = guided(kInsertionSort, n, *policy, {});
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->paths, 1u) << "n=" << n;
    EXPECT_EQ(r->longest, static_cast<std::uint64_t>(n * (n - 1) / 2));
  }
}

TEST(Wise, CannotExpressBoyerMoore3sPolicyAndRunsTheWholeTree) {
  Result<BranchPolicy> policy = learn_policy(kBoyerMoore3, {6}, 0, {});
  ASSERT_TRUE(policy) << policy.status().message();
  ASSERT_EQ(policy->rules.size(), 1u);
  EXPECT_EQ(policy->rules.begin()->second, BranchPolicy::Allowed::kBoth);
  Result<SearchResult> r = guided(kBoyerMoore3, 10, *policy, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->longest, 9u);
  EXPECT_EQ(r->paths, 40u);  // the exhaustive count: no pruning
}

TEST(SpfWca, HistoryTwoLearnedAtSixAndSevenFindsBoyerMoore3sWorstInOnePath) {
  Result<BranchPolicy> policy = learn_policy(kBoyerMoore3, {6, 7}, 2, {});
  ASSERT_TRUE(policy) << policy.status().message();
  for (int n : {10, 20, 30, 100}) {
    Result<SearchResult> r = guided(kBoyerMoore3, n, *policy, {});
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->paths, 1u) << "n=" << n;
    EXPECT_EQ(r->longest, static_cast<std::uint64_t>(3 * (n / 3))) << "n=" << n;
  }
}

TEST(Search, APathPastTheDepthLimitIsCut) {
  SearchOptions options;
  options.max_depth = 2;
  Result<SearchResult> r = exhaustive(kInsertionSort, 4, options);
  ASSERT_TRUE(r);
  EXPECT_GT(r->cut, 0u);
  EXPECT_EQ(r->runs, r->paths + r->cut);
  EXPECT_LE(r->longest, 2u);
}

TEST(Search, APathLimitEndsTheSearch) {
  SearchOptions options;
  options.max_paths = 5;
  Result<SearchResult> r = exhaustive(kInsertionSort, 5, options);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, SearchEnd::kPathLimit);
  EXPECT_EQ(r->runs, 5u);
}

const Site kSiteA = PROWL_SITE;
const Site kSiteB = PROWL_SITE;

TEST(Search, ANonBoolConditionIsAnErrorNamingItsSite) {
  const Program bad{"bad", "", [](SymExec& ex, int) {
                      const z3::expr x = ex.int_input("x");
                      ex.branch(kSiteA, x + 1);
                    }};
  Result<SearchResult> r = exhaustive(bad, 1, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().message(),
            "bad: " + kSiteA.name() + ": the condition of a branch must be Bool, but is Int");
}

TEST(Search, AProgramWhoseSitesChangeUnderTheSamePrefixIsAnErrorNamingTheSite) {
  int runs = 0;
  // Run 1 returns at x > 0; run 2 (x <= 0) branches at site A; run 3 follows run 2's decisions
  // but branches at site B.
  const Program moody{"moody", "", [&runs](SymExec& ex, int) {
                        const z3::expr x = ex.int_input("x");
                        ++runs;
                        if (ex.branch(PROWL_SITE, x > 0)) return;
                        ex.branch(runs % 2 == 0 ? kSiteA : kSiteB, x < -5);
                      }};
  Result<SearchResult> r = exhaustive(moody, 1, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().message(),
            "moody: " + kSiteB.name() +
                ": decision 2 was at this site, where the same decisions before took the program "
                "to " +
                kSiteA.name() + ": the program must do the same under the same decisions");
  EXPECT_EQ(runs, 3);
}

// Always True, without checking: an infeasible pick ends the path.
class AlwaysTrue : public detail::Chooser {
 public:
  bool checks_both() const override { return false; }
  bool choose(const std::vector<PathStep>&, const Site&, detail::Feasible,
              detail::Feasible) override {
    return true;
  }
};

TEST(Executor, AnInfeasiblePickEndsThePathAndIsItsLastDecision) {
  const Program p{"p", "", [](SymExec& ex, int) {
                    const z3::expr x = ex.int_input("x");
                    if (ex.branch(PROWL_SITE, x > 0)) ex.branch(PROWL_SITE, x < 0);
                    ex.cost(1);
                  }};
  detail::Executor executor(p, 1, 100);
  AlwaysTrue chooser;
  const detail::PathRecord r = executor.run({}, chooser);
  EXPECT_EQ(r.end, detail::PathEnd::kInfeasible);
  ASSERT_EQ(r.decisions.size(), 2u);
  EXPECT_TRUE(r.decisions[1].taken);
  EXPECT_EQ(r.cost, 0u);
  // Following the prefix (True, False) instead completes the path, with a witness x > 0.
  const detail::PathRecord ok =
      executor.run({{r.decisions[0].site, true}, {r.decisions[1].site, false}}, chooser);
  EXPECT_EQ(ok.end, detail::PathEnd::kComplete);
  EXPECT_EQ(ok.cost, 1u);
  ASSERT_EQ(ok.input.size(), 1u);
  EXPECT_GT(std::stol(ok.input[0].second), 0);
}

}  // namespace
}  // namespace prowl::wc
