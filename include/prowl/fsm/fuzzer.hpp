// The fuzz loop: weighted random walks, each in a forked child with a time limit, classified as
// ok, finding, crash or timeout; failures bucketed by normalized signature, one trace and the
// first occurrence's output kept per bucket. Run i walks with a seed derived from the fuzz seed
// and i, so the same seed gives the same runs. Not thread-safe; single-threaded callers only
// (it forks).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "prowl/fsm/machine.hpp"
#include "prowl/fsm/runner.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl::fsm {

struct FuzzOptions {
  std::uint64_t seed = 0;
  std::uint64_t runs = 0;   // 0: until the time limit or Ctrl-C
  double time_limit = 0;    // seconds; 0: no limit
  double run_timeout = 10;  // seconds per run; the child is killed after it
  WalkOptions walk;
  std::string out_dir = "prowl-fuzz";  // buckets go to OUT/NNN-KIND/{trace,output,signature}
  bool fork = true;                    // false: walks run in this process (no crash isolation)
  bool status_line = false;            // a live status line on stderr (a terminal)
  bool quiet = false;                  // no per-bucket lines while fuzzing
};

struct Bucket {
  int id = 0;
  RunKind kind = RunKind::kFinding;
  std::string signature;
  std::uint64_t count = 0;
  std::uint64_t first_run = 0;
  std::size_t steps = 0;  // of the kept trace
  std::string dir;        // OUT/NNN-KIND
  // The failing step's action and what failed, as this session's first run of the bucket ended
  // (RunResult::action and message; the signature is their normalized form).
  std::string action{};
  std::string message{};
};

struct FuzzSummary {
  std::uint64_t runs = 0;
  std::uint64_t ok = 0;
  std::uint64_t findings = 0;
  std::uint64_t crashes = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t stuck = 0;
  std::uint64_t steps = 0;
  double seconds = 0;
  bool interrupted = false;  // Ctrl-C (SIGINT) or SIGTERM
  // The environment failed the campaign half-way (a bucket's directory could not be written, a
  // fork failed): why. The summary holds what it had found until then.
  std::string error{};
  std::vector<Bucket> buckets;
};

// Fuzzes until the run count or time limit is reached, or SIGINT/SIGTERM arrives (a run in
// flight is then discarded). Writes a line per new bucket to `out` unless quiet; `stats` (may be
// null) collects the counters of every run. An output directory that cannot be made is a failed
// Status; an environment failure half-way (writing a bucket, a fork) ends the campaign with the
// summary of what it found, its `error` saying why. REQUIRES: machine.finalize() succeeded;
// `header` names the model and its options (each run adds seed=).
Result<FuzzSummary> fuzz(const MachineCore& machine, const trace::Header& header,
                         const FuzzOptions& options, Stats* stats, std::ostream& out);

// The summary as printed at the end of `fuzz`.
std::string format_summary(const FuzzSummary& summary);

}  // namespace prowl::fsm
