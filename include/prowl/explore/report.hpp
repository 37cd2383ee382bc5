// RunReport: everything one exploration produced, as plain data. Every report format (console,
// JSON, ...) is rendered from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "prowl/core/ids.hpp"
#include "prowl/core/invariant.hpp"
#include "prowl/explore/finding.hpp"
#include "prowl/explore/options.hpp"
#include "prowl/world/world.hpp"

namespace prowl {

struct Stats {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;  // executed pairs that reached a state
  std::uint64_t steps = 0;        // executed pairs, including failed ones
  std::uint64_t replayed_actions = 0;
  std::uint64_t restores = 0;
  std::uint32_t max_depth = 0;
  double seconds = 0;
  std::size_t graph_bytes = 0;
};

struct ActionCoverage {
  std::string name;
  std::uint64_t enabled = 0;   // states in which the action was enabled
  std::uint64_t executed = 0;  // times it ran
  std::uint64_t ok = 0;
  std::uint64_t rejected = 0;
  std::uint64_t errors = 0;
};

// The limits and settings a run was given (from Options), for reports: 0 means no limit.
struct RunSettings {
  std::uint64_t max_steps = 0;
  std::uint32_t max_depth = 0;
  double time_limit = 0;
  double coverage_target = 0;
  bool stop_on_first = false;
  bool confirm = true;
  bool shrink = false;
  std::uint32_t workers = 1;
  std::uint32_t threads = 1;       // the threads that explored (Options::threads resolved)
  std::uint64_t memory_limit = 0;  // bytes
};

// The explored graph as its transitions, for tools that want its shape (graph reports, training
// data). States are numbered 0..states-1, 0 the initial state, as in the run; their fingerprints
// and depths are left out, as such tools need neither.
struct ReportGraph {
  std::uint64_t states = 0;
  // Every executed transition that reached a state, in the order the run added it to the graph.
  // An edge's action indexes RunReport::coverage, which lists the model's actions in order.
  std::vector<Edge> edges;
};

// An invariant as a report describes it (SARIF rules): from the model's Invariant.
struct InvariantDetails {
  Severity severity = Severity::kHigh;
  std::string description{};
  SourceLocation where{};  // unknown (empty file) when the model could not say
};

struct RunReport {
  // The prowl that made the run: empty for this one (version()); a report read back from JSON
  // keeps its writer's.
  std::string tool_version{};
  std::string model;
  std::string strategy;
  std::uint64_t seed = 0;
  RestoreMode restore_mode = RestoreMode::kSnapshot;
  Termination termination = Termination::kExhausted;
  RunSettings settings;
  Stats stats;
  std::vector<Finding> findings;
  std::vector<ActionCoverage> coverage;
  // The model's invariants by name, in the order declared: what a report lists as checked (a
  // JUnit test case each).
  std::vector<std::string> invariants;
  // What reports say of each of `invariants` beyond its name, in the same order; empty when the
  // report was built without them (InvariantDetails).
  std::vector<InvariantDetails> invariant_details;
  std::vector<std::string> warnings;
  // The actions that drew values from their step's Rng: each ran with the values drawn for it,
  // not with every value it can take. Exhausting the graph then is termination kSampled.
  std::vector<std::string> sampled;
  // Termination kError: why the run failed (the environment: a service that would not start, a
  // database that went away). The rest of the report is what was known until then.
  std::string error;
  // With Options::record_edges only; without, it stays empty, which costs nothing.
  std::optional<ReportGraph> graph;

  double action_coverage() const;  // fraction of actions executed at least once
};

}  // namespace prowl
