// The bookkeeping every worst-case search shares: when to stop before the next run, and how a
// run counts into the SearchResult.
#pragma once

#include <chrono>

#include "executor.hpp"
#include "prowl/worstcase/search.hpp"

namespace prowl::wc::detail {

using Clock = std::chrono::steady_clock;

// Why the search must stop before its next run (a signal, max_paths, time_limit), or kComplete
// while it may go on.
SearchEnd stop_reason(const SearchOptions& options, const SearchResult& result,
                      Clock::time_point start);

// Counts run `r` into `result` (runs, cut paths, complete paths, the longest and its witness).
// True when it is a complete path with the longest objective so far (a tie included).
bool tally(SearchResult& result, const PathRecord& r, const SearchOptions& options);

// Whether `result` reached options.target.
inline bool reached_target(const SearchResult& result, const SearchOptions& options) {
  return options.target > 0 && result.paths > 0 && result.longest >= options.target;
}

// The solver's counts and the time, at the end of a search.
void finish(SearchResult& result, const Executor& executor, Clock::time_point start);

}  // namespace prowl::wc::detail
