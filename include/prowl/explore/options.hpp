// Options: how long and how an exploration runs. Zero means "no limit" for every limit.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "prowl/core/status.hpp"

namespace prowl {

class Ranks;

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
  double time_limit = 0;       // seconds
  double coverage_target = 0;  // stop once this fraction of actions ran at least once
  bool stop_on_first = false;  // stop at the first finding
  bool confirm = true;         // replay each finding from the initial state before reporting
  // After an interrupt, findings are still confirmed for this many seconds (a second interrupt
  // ends that at once); the rest are reported unconfirmed.
  double confirm_grace = 5;
  bool shrink = false;        // reduce each finding's steps by delta debugging
  bool record_edges = false;  // keep every transition (for graph reports)
  // Workers exploring one graph at once, each with its own copy of the world (its own service
  // and database file, built by Model::make_world(k)), handing each other the states they saved.
  // For live targets whose systems are all portable (SQLite files, stateless services) and whose
  // model builds copies (Model::set_world_copies); otherwise, and for an in-process world, the
  // run has one worker and says why in the report's warnings. Up to `workers` pairs are under way
  // at once, whatever the strategy's lookahead. With a strategy that goes level by level (BFS), a
  // pair runs only once every pair of a shallower level has, so depths and shortest paths are those
  // of one worker; which of several equally short paths a finding shows may differ from run to run.
  std::uint32_t workers = 1;
  // Threads exploring an in-memory model at once (docs/scale.md): breadth-first search level by
  // level, every thread expanding states of the level and sharing one fingerprint table, with the
  // same states, ids, depths, findings and paths as one thread. 0: every CPU this process may run
  // on. Used only where the level-synchronous engine applies (Bfs on a byte-image model whose
  // actions all run typed, no before-invariants, call limits, path facts, step limit, coverage
  // target or recorded edges); elsewhere the run has one thread, and with threads > 1 asked for
  // explicitly the report's warnings say why. The model's guards, actions and invariants then run
  // on several threads at once, each on its own copy of the object: they must not share mutable
  // state outside it. At most 1024.
  std::uint32_t threads = 0;
  // Stop cleanly (termination kMemory) once the process's resident memory reaches this many
  // bytes, checked every 10 ms of exploring or round of the threaded search, so that a run too
  // big for the machine ends with its report instead of being killed. 0: no limit.
  std::uint64_t memory_limit = 0;
  // The processes of a search spread over several processes or machines (prowl::mpi's
  // MpiRanks; docs/scale.md "Many machines"), or null for a search in this process. Each process
  // runs the same model with the same options and explores the states it owns; every one returns
  // the same report. Only breadth-first search of a model Options::threads applies to, with at
  // most 64 invariants; steps are not checked to repeat. Not owned; outlives the run.
  Ranks* ranks = nullptr;
  double progress_interval = 0.25;  // seconds between on_progress calls
  // Called from the exploring thread (with several workers, from any of theirs, one call at a
  // time).
  std::function<void(const Progress&)> on_progress;

  // Checks ranges: coverage target in [0, 1], non-negative time limit, at least one worker.
  Status validate() const;
};

enum class Termination {
  kExhausted,
  kMaxSteps,
  kTimeLimit,
  kCoverageTarget,
  kFirstFinding,
  kInterrupted,  // a signal asked the run to stop (prowl/core/interrupt.hpp)
  // Every enabled pair of every reached state ran, but some actions drew their values from the
  // step's Rng (RunReport::sampled): other values were never tried, so the search is not complete.
  kSampled,
  kError,   // the environment failed the run (RunReport::error); a partial report
  kMemory,  // the process reached Options::memory_limit
};
std::string_view to_string(Termination t);

}  // namespace prowl
