#include "prowl/worstcase/search.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>

#include "executor.hpp"
#include "prowl/core/interrupt.hpp"
#include "tally.hpp"

namespace prowl::wc {

namespace {

using detail::Clock;
using detail::Decision;
using detail::Feasible;
using Allowed = BranchPolicy::Allowed;
using Allow = std::function<Allowed(const std::vector<PathStep>&, const Site&)>;

// At most this many longest paths are kept for learn_policy() to choose from.
constexpr std::size_t kMaxLongestPaths = 10000;

// Depth first: the side the rule prefers when it is feasible, else the other; remembers for each
// decision whether the side not taken may be run later.
class DfsChooser : public detail::Chooser {
 public:
  explicit DfsChooser(const Allow& allow) : allow_(allow) {}
  bool checks_both() const override { return true; }
  bool choose(const std::vector<Decision>& so_far, const Site& site, Feasible if_true,
              Feasible if_false) override {
    const Allowed allowed = allow_(so_far, site);
    const bool preferred = allowed != Allowed::kFalse;
    const bool action = (preferred ? if_true : if_false) == Feasible::kYes ? preferred : !preferred;
    other_allowed_.push_back(allowed == Allowed::kBoth);
    return action;
  }
  std::vector<bool>& other_allowed() { return other_allowed_; }

 private:
  const Allow& allow_;
  std::vector<bool> other_allowed_;
};

// The depth-first search shared by exhaustive() and guided(). `longest_paths`, when given, gets
// every complete path of the longest objective (up to kMaxLongestPaths).
Result<SearchResult> depth_first(const Program& program, int n, const SearchOptions& options,
                                 const Allow& allow,
                                 std::vector<std::vector<PathStep>>* longest_paths = nullptr) {
  if (n < 1)
    return Status::invalid("the input size n must be 1 or more (got " + std::to_string(n) + ")");
  const Clock::time_point start = Clock::now();
  SearchResult result;
  result.n = n;
  detail::Executor executor(program, n, options.max_depth);
  DfsChooser chooser(allow);
  std::vector<std::vector<Decision>> pending{{}};
  std::vector<Feasible> others;
  try {
    while (!pending.empty()) {
      if ((result.end = detail::stop_reason(options, result, start)) != SearchEnd::kComplete) {
        break;
      }
      const std::vector<Decision> prefix = std::move(pending.back());
      pending.pop_back();
      others.clear();
      chooser.other_allowed().clear();
      detail::PathRecord r = executor.run(prefix, chooser, &others);
      // The sides not taken, deepest last, so that it runs next.
      for (std::size_t i = 0; i < others.size(); ++i) {
        if (others[i] != Feasible::kYes || !chooser.other_allowed()[i]) continue;
        const std::size_t t = prefix.size() + i;
        std::vector<Decision> next(r.decisions.begin(), r.decisions.begin() + t);
        next.push_back({r.decisions[t].site, !r.decisions[t].taken});
        pending.push_back(std::move(next));
      }
      if (detail::tally(result, r, options) && longest_paths != nullptr) {
        // A new longest (first found by this path) replaces the ones before.
        if (result.paths_to_longest == result.paths) longest_paths->clear();
        if (longest_paths->size() < kMaxLongestPaths) {
          longest_paths->push_back(std::move(r.decisions));
        }
      }
      if (detail::reached_target(result, options)) {
        result.end = SearchEnd::kTarget;
        break;
      }
    }
  } catch (const detail::ProgramError& e) {
    return Status::invalid(program.name + ": " + e.what());
  }
  detail::finish(result, executor, start);
  return result;
}

// The contexts of `path` under `policy`'s history, each with the sides taken there.
std::map<std::vector<std::uint64_t>, std::set<bool>> contexts_of(
    const BranchPolicy& policy, const std::vector<PathStep>& path) {
  std::map<std::vector<std::uint64_t>, std::set<bool>> out;
  std::vector<PathStep> so_far;
  for (const PathStep& step : path) {
    out[policy.context(so_far, step.site)].insert(step.taken);
    so_far.push_back(step);
  }
  return out;
}

std::size_t conflicts(const std::map<std::vector<std::uint64_t>, std::set<bool>>& contexts) {
  std::size_t n = 0;
  for (const auto& [key, sides] : contexts) n += sides.size() > 1 ? 1 : 0;
  return n;
}

}  // namespace

namespace detail {

SearchEnd stop_reason(const SearchOptions& options, const SearchResult& result,
                      Clock::time_point start) {
  if (interrupts() > 0) return SearchEnd::kInterrupted;
  if (options.max_paths > 0 && result.runs >= options.max_paths) return SearchEnd::kPathLimit;
  if (options.time_limit > 0 &&
      std::chrono::duration<double>(Clock::now() - start).count() >= options.time_limit) {
    return SearchEnd::kTimeLimit;
  }
  return SearchEnd::kComplete;
}

bool tally(SearchResult& result, const PathRecord& r, const SearchOptions& options) {
  ++result.runs;
  if (r.end == PathEnd::kDepth) ++result.cut;
  if (r.end != PathEnd::kComplete) return false;
  ++result.paths;
  const std::uint64_t value = options.objective == Objective::kCost ? r.cost : r.decisions.size();
  if (result.paths == 1 || value > result.longest) {
    result.longest = value;
    result.paths_to_longest = result.paths;
    result.runs_to_longest = result.runs;
    result.path = r.decisions;
    result.input = r.input;
  }
  return value == result.longest;
}

void finish(SearchResult& result, const Executor& executor, Clock::time_point start) {
  result.unknown = executor.unknowns();
  result.checks = executor.checks();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace detail

std::vector<std::uint64_t> BranchPolicy::context(const std::vector<PathStep>& so_far,
                                                 const Site& site) const {
  std::vector<std::uint64_t> key{site.id()};
  for (int l = 1; l <= history && static_cast<std::size_t>(l) <= so_far.size(); ++l) {
    const PathStep& d = so_far[so_far.size() - static_cast<std::size_t>(l)];
    key.push_back((static_cast<std::uint64_t>(d.site.id()) << 1) | (d.taken ? 1u : 0u));
  }
  return key;
}

BranchPolicy::Allowed BranchPolicy::allowed(const std::vector<PathStep>& so_far,
                                            const Site& site) const {
  const auto it = rules.find(context(so_far, site));
  return it == rules.end() ? Allowed::kBoth : it->second;
}

Result<SearchResult> exhaustive(const Program& program, int n, const SearchOptions& options) {
  const Allow both = [](const std::vector<PathStep>&, const Site&) { return Allowed::kBoth; };
  return depth_first(program, n, options, both);
}

Result<BranchPolicy> learn_policy(const Program& program, const std::vector<int>& sizes,
                                  int history, const SearchOptions& options,
                                  std::vector<SearchResult>* trained) {
  if (history < 0) return Status::invalid("the history length must be 0 or more");
  if (sizes.empty()) return Status::invalid("learn_policy: no size to learn at");
  BranchPolicy policy;
  policy.program = program.name;
  policy.history = history;
  policy.trained_sizes = sizes;
  std::map<std::vector<std::uint64_t>, std::set<bool>> merged;
  const Allow both = [](const std::vector<PathStep>&, const Site&) { return Allowed::kBoth; };
  for (int n0 : sizes) {
    std::vector<std::vector<PathStep>> longest;
    Result<SearchResult> r = depth_first(program, n0, options, both, &longest);
    if (!r) return r.status();
    if (r->end != SearchEnd::kComplete) {
      return Status::invalid("the exhaustive search at n0 = " + std::to_string(n0) +
                             " did not finish (" + std::string(to_string(r->end)) +
                             "): learn at a smaller size");
    }
    if (trained != nullptr) trained->push_back(*r);
    // The longest paths whose decisions are most nearly a function of their context.
    std::vector<std::map<std::vector<std::uint64_t>, std::set<bool>>> candidates;
    std::size_t fewest = SIZE_MAX;
    for (const auto& path : longest) {
      auto contexts = contexts_of(policy, path);
      const std::size_t c = conflicts(contexts);
      if (c < fewest) candidates.clear();
      if (c <= fewest) {
        fewest = c;
        candidates.push_back(std::move(contexts));
      }
    }
    for (const auto& contexts : candidates) {
      for (const auto& [key, sides] : contexts) merged[key].insert(sides.begin(), sides.end());
    }
  }
  for (const auto& [key, sides] : merged) {
    policy.rules[key] = sides.size() > 1 ? Allowed::kBoth
                        : *sides.begin() ? Allowed::kTrue
                                         : Allowed::kFalse;
  }
  return policy;
}

Result<SearchResult> guided(const Program& program, int n, const BranchPolicy& policy,
                            const SearchOptions& options) {
  const Allow by_policy = [&policy](const std::vector<PathStep>& so_far, const Site& site) {
    return policy.allowed(so_far, site);
  };
  return depth_first(program, n, options, by_policy);
}

std::string_view to_string(SearchEnd end) {
  switch (end) {
    case SearchEnd::kComplete:
      return "complete";
    case SearchEnd::kPathLimit:
      return "path limit";
    case SearchEnd::kTimeLimit:
      return "time limit";
    case SearchEnd::kInterrupted:
      return "interrupted";
    case SearchEnd::kTarget:
      return "target reached";
  }
  return "?";
}

}  // namespace prowl::wc
