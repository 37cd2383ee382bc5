// Worst-case input search (docs/worst-case.md): for a Program and an input size n, the feasible
// path with the most symbolic decisions (or the highest cost), and an input that takes it.
//
//   exhaustive   depth-first over the whole decision tree; every complete path is one run
//   guided       depth-first over what a BranchPolicy allows: WISE (history 0, one decision per
//                site) or SPF-WCA (history h, one decision per site and last h decisions),
//                learned by learn_policy() from the exhaustive search at a small size n0
//
// Each search re-executes the program once per path (prowl/worstcase/sym_exec.hpp) and stops at
// the end of its tree, the path limit, the time limit or a signal (prowl/core/interrupt.hpp).
// Errors of the program (a non-Bool condition, different sites under the same decisions) are an
// invalid Status naming the site.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/worstcase/sym_exec.hpp"

namespace prowl::wc {

enum class Objective { kDecisions, kCost };

struct SearchOptions {
  std::uint32_t max_depth = 100000;  // decisions per path; a deeper path stops, cut
  std::uint64_t max_paths = 0;       // runs of the program; 0: no limit
  double time_limit = 0;             // seconds; 0: none
  Objective objective = Objective::kDecisions;
  // Stop once a complete path reaches this objective (0: never), when the longest is known.
  std::uint64_t target = 0;
};

enum class SearchEnd {
  kComplete,     // the search's whole tree was run
  kPathLimit,    // max_paths runs
  kTimeLimit,    // time_limit
  kInterrupted,  // a signal
  kTarget,       // a path reached SearchOptions::target
};

struct SearchResult {
  int n = 0;
  SearchEnd end = SearchEnd::kComplete;
  std::uint64_t longest = 0;           // the objective of the longest complete path found
  std::uint64_t paths = 0;             // complete paths run
  std::uint64_t paths_to_longest = 0;  // complete paths run until the longest was first found
  std::uint64_t runs = 0;              // runs of the program, cut and infeasible ones included
  std::uint64_t runs_to_longest = 0;   // runs until the longest was first found
  std::uint64_t cut = 0;               // paths stopped at max_depth ("interrupted")
  std::uint64_t unknown = 0;           // solver checks that answered unknown
  std::uint64_t checks = 0;            // solver checks
  double seconds = 0;
  std::vector<PathStep> path;                              // the longest path
  std::vector<std::pair<std::string, std::string>> input;  // its witness: name, value
};

Result<SearchResult> exhaustive(const Program& program, int n, const SearchOptions& options);

// Which sides a decision may take, by context: the site and the last `history` decisions of the
// path (site and side), most recent first. A context it does not know allows both sides.
struct BranchPolicy {
  enum class Allowed { kTrue, kFalse, kBoth };
  std::string program;
  int history = 0;  // 0: WISE's memoryless policy
  std::vector<int> trained_sizes;
  std::map<std::vector<std::uint64_t>, Allowed> rules;

  // The context key of a decision at `site` after `so_far`.
  std::vector<std::uint64_t> context(const std::vector<PathStep>& so_far, const Site& site) const;
  Allowed allowed(const std::vector<PathStep>& so_far, const Site& site) const;
};

// The policy of the longest paths at each size n0 of `sizes`, from an exhaustive search there: of
// the longest paths, those whose decisions are most nearly a function of their context (the
// fewest contexts that take both sides on one path), their contexts mapped to the sides they
// take, over all of them and all sizes; a context that takes both sides allows both. `trained`
// (optional) gets the exhaustive result at each size.
Result<BranchPolicy> learn_policy(const Program& program, const std::vector<int>& sizes,
                                  int history, const SearchOptions& options,
                                  std::vector<SearchResult>* trained = nullptr);

// Depth-first over the decisions `policy` allows: at each decision the side it prefers (the one
// it allows, True when both), the other side only when it allows both; a side it forces that is
// infeasible gives way to the other (WISE's rule).
Result<SearchResult> guided(const Program& program, int n, const BranchPolicy& policy,
                            const SearchOptions& options);

std::string_view to_string(SearchEnd end);

}  // namespace prowl::wc
