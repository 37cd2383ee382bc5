// Counterexamples as prowl traces, and their concrete replay (docs/symbolic.md, "Traces"):
//
//   prowl-trace 1 counter2 kind=reach finding=invariant:bounded init="x=0 y=0" depth=3 ...
//   0 inc p=2
//   # x=2 y=0
//   0 inc p=2
//   # x=4 y=0
//
// One step per transition, the inputs it reads as NAME=VALUE, the state after it as a comment.
// The steps draw no random numbers: their seeds are 0.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "prowl/core/status.hpp"
#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/transition_system.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl::sym {

// The trace of `cex`. `system_file` (may be empty) and `image` go into the header as options.
trace::Trace counterexample_trace(const TransitionSystem& system, const Counterexample& cex,
                                  const std::string& system_file, ImageMode image);

struct ReplayResult {
  std::size_t steps = 0;     // steps run
  std::string recorded;      // the trace's finding option
  std::string happened;      // the finding the final state shows ("" when none)
  bool reproduced = false;   // happened == recorded
  std::string first_broken;  // the first invariant broken on the way, "" when none
  std::size_t first_broken_step = 0;
};

// Runs the trace's steps on concrete values from its init: each guard must hold, each update is
// applied, the invariants are checked after every step; `log` gets one line per step. Invalid
// Status (exit code 2), naming `trace_path` and the line: a trace of another system or kind, a
// bad init, an unknown transition or input, a missing or malformed input value, a step whose
// guard does not hold.
Result<ReplayResult> replay_reach_trace(const TransitionSystem& system, const trace::Trace& trace,
                                        const std::string& trace_path, std::ostream& log);

}  // namespace prowl::sym
