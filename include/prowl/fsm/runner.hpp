// Running a machine once in this process: a fuzz walk (writing its trace line by line) or the
// replay of a trace. Neither protects against a crash of the target; fsm/isolate.hpp forks.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "prowl/fsm/machine.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl::fsm {

enum class RunKind {
  kOk,        // the walk reached a final state or its step limit; the replay ran clean
  kFinding,   // an action returned an error or threw: an oracle fired
  kCrash,     // the process died of a signal or exited on its own
  kTimeout,   // killed after the per-run time limit
  kStuck,     // no transition out of a state was enabled: a model error
  kBadTrace,  // replay: the trace cannot be run as written (unknown action or handle, bad args)
};
std::string_view to_string(RunKind kind);

struct RunResult {
  RunKind kind = RunKind::kOk;
  std::string action;     // the last step's action: the failing one when it failed
  std::size_t steps = 0;  // steps run, the failing one included
  std::string message;    // what failed: the error, the signal, the bad trace line's problem
  std::size_t line = 0;   // kBadTrace: the trace line (0 when unknown)

  bool failed() const { return kind != RunKind::kOk && kind != RunKind::kBadTrace; }
  // The bucket key: kind, action and the normalized message (trace/signature.hpp). Empty for
  // kOk and kBadTrace.
  std::string signature() const;
};

// Counters per state (entered) and per action (attempted, succeeded, declined), kept in memory
// shared with forked children, so a run that crashes still counts. Lock-free atomics; safe to
// update from several processes.
class Stats {
 public:
  Stats(std::size_t states, std::size_t actions);
  ~Stats();
  Stats(const Stats&) = delete;
  Stats& operator=(const Stats&) = delete;

  void entered(StateId s) { bump(s); }
  void attempted(ActionIndex a) { bump(states_ + 3 * a); }
  void succeeded(ActionIndex a) { bump(states_ + 3 * a + 1); }
  void declined(ActionIndex a) { bump(states_ + 3 * a + 2); }
  // The current run's progress (steps run), for reporting where a crashed run was.
  void set_progress(std::uint64_t steps) {
    cell(size_ - 1).store(steps, std::memory_order_relaxed);
  }

  std::uint64_t entered_count(StateId s) const { return load(s); }
  std::uint64_t attempted_count(ActionIndex a) const { return load(states_ + 3 * a); }
  std::uint64_t succeeded_count(ActionIndex a) const { return load(states_ + 3 * a + 1); }
  std::uint64_t declined_count(ActionIndex a) const { return load(states_ + 3 * a + 2); }
  std::uint64_t progress() const { return load(size_ - 1); }

  // The table `--stats` prints.
  std::string table(const MachineCore& machine) const;

 private:
  std::atomic<std::uint64_t>& cell(std::size_t i) const { return cells_[i]; }
  void bump(std::size_t i) { cell(i).fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t load(std::size_t i) const { return cell(i).load(std::memory_order_relaxed); }
  std::size_t states_;
  std::size_t size_;
  std::atomic<std::uint64_t>* cells_;
};

struct WalkOptions {
  std::size_t max_steps = 50;  // actions run before the walk stops (a final state stops it too)
};

// One weighted random walk from the initial state with a fresh target. The trace (header, then
// each step before its call, then its return line) goes to `writer` when given.
// REQUIRES: machine.finalize() succeeded.
RunResult walk(const MachineCore& machine, const trace::Header& header, std::uint64_t seed,
               const WalkOptions& options, trace::TraceWriter* writer, Stats* stats);

// Runs the trace's steps in order with a fresh target, each with its seed and arguments, binding
// handles by the names in the trace. The machine's states are not consulted: a trace may be any
// sequence of calls. Stops at the first failing step.
RunResult replay(const MachineCore& machine, const trace::Trace& trace, Stats* stats);

}  // namespace prowl::fsm
