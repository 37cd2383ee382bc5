// Shrinking a failing trace to a minimal one. The caller says whether a candidate still fails the
// same way (typically: replay it, in a forked process when it may crash, and compare normalized
// signatures); shrink_trace only proposes candidates. Deterministic for a deterministic predicate.
#pragma once

#include <cstddef>
#include <functional>

#include "prowl/trace/trace.hpp"

namespace prowl::trace {

// True when the candidate reproduces the original failure.
using Reproduces = std::function<bool(const Trace& candidate)>;

struct ShrinkStats {
  std::size_t steps_before = 0;
  std::size_t steps_after = 0;
  std::size_t candidates = 0;  // candidates tried (predicate calls)
};

struct ShrinkOptions {
  // Stop proposing candidates after this many predicate calls (0: no limit).
  std::size_t max_candidates = 0;
};

// Repeats until nothing changes: removes chunks of steps (ddmin, halving the chunk size down to
// single steps); replaces every reference to a handle, then single handle arguments, by an earlier
// handle of the same kind, so the step that produced it may go; simplifies integer arguments
// towards 0 (0, 1, then halving). Every accepted candidate reproduces; unless the candidate budget
// runs out the result is 1-minimal in steps: removing any one step makes it stop reproducing.
// Comments are dropped. REQUIRES: reproduces(trace).
Trace shrink_trace(Trace trace, const Reproduces& reproduces, ShrinkOptions options = {},
                   ShrinkStats* stats = nullptr);

}  // namespace prowl::trace
