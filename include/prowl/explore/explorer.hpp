// Explorer: the loop of design.md §3. It asks the Strategy for a (state, action) pair, has the
// RestorePlanner bring the World to that state, runs the action, fingerprints the new state,
// adds it to the Graph, checks invariants, and tells the Strategy. Findings are deduplicated by
// (invariant, action), keeping the shortest path; each is replayed from the initial state to
// confirm it (and shrunk on request) before it is reported. An action that throws is a finding and
// the run goes on. The Explorer builds its own World from the Model and returns it to the initial
// state when the run ends. With Options::workers > 1 on a live target it also builds a copy of
// the world per extra worker and runs each in a thread of its own (docs/architecture.md, "Several
// workers"); run() returns once they have all ended. One run per Explorer; not thread-safe.
#pragma once

#include <memory>

#include "prowl/explore/graph.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/explore/options.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/explore/strategy.hpp"

namespace prowl {

class Explorer {
 public:
  Explorer(const Model& model, Strategy& strategy, Options options = {});
  ~Explorer();

  // Explores. A failed Status means the model, the options or the environment is bad; findings
  // about the system under test are in the report.
  Result<RunReport> run();

  // After a run() that failed: what was known until the failure — statistics, coverage, the
  // findings so far (unconfirmed, not replayed), termination kError and RunReport::error — for
  // reports that must still be written. nullptr after a run that did not fail.
  const RunReport* partial_report() const;

  // The explored graph, after run().
  const Graph& graph() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: Explorer(model, strategy, options).run().
Result<RunReport> explore(const Model& model, Strategy& strategy, Options options = {});

}  // namespace prowl
