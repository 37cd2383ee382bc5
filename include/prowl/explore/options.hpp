// Options: how long and how an exploration runs. Zero means "no limit" for every limit.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "prowl/core/status.hpp"

namespace prowl {

struct Progress {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint64_t steps = 0;
  std::uint64_t findings = 0;
  double seconds = 0;
};

struct Options {
  std::uint64_t seed = 0;
  std::uint64_t max_steps = 0;  // executed pairs
  // States first reached deeper than this are not expanded. BFS then explores exactly the states
  // within the bound; other strategies can miss a state within it that they first reached by a
  // longer path (as SPIN's depth-first search with -m does).
  std::uint32_t max_depth = 0;
  double time_limit = 0;            // seconds
  double coverage_target = 0;       // stop once this fraction of actions ran at least once
  bool stop_on_first = false;       // stop at the first finding
  bool confirm = true;              // replay each finding from the initial state before reporting
  bool shrink = false;              // reduce each finding's steps by delta debugging
  bool record_edges = false;        // keep every transition (for graph reports)
  double progress_interval = 0.25;  // seconds between on_progress calls
  std::function<void(const Progress&)> on_progress;

  // Checks ranges: coverage target in [0, 1], non-negative time limit.
  Status validate() const;
};

enum class Termination { kExhausted, kMaxSteps, kTimeLimit, kCoverageTarget, kFirstFinding };
std::string_view to_string(Termination t);

}  // namespace prowl
