// Reports with a recorded graph, for the graph report tests (DOT, HTML): the sample report of
// sample_report.hpp with a small graph its findings' paths run through, and synthetic graphs of
// any size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "prowl/explore/report.hpp"
#include "sample_report.hpp"

namespace prowl::testing {

// sample_report() with six states. The refund path runs 0 -create_order-> 1 -refund-> 2
// -refund-> 4 (the state that breaks refund_at_most_once); the cancel crash leaves state 2 by a
// failing cancel; the nondeterministic create_order fails from 0; stock_positive fails in 0.
// Two more paths: [5] reaches the refund bug the long way round (0 1 3 0 1 2 4), and [6] the
// cancel crash by an audit that the graph has no edge for (it leaves the graph there). Also: a
// rejected refund looping on 0 and on 4, create_order recorded twice from 1 to 3, cancel from 3
// back to 0, 5 reached by cancel from 2, and create_order and audit both leading from 5 back to 0
// (one edge, two names).
inline RunReport graph_report() {
  RunReport r = sample_report();
  Finding around = r.findings[0];
  around.steps = {{"create_order", 1, "ok", ""}, {"create_order", 2, "ok", ""},
                  {"cancel", 3, "ok", ""},       {"create_order", 4, "ok", ""},
                  {"refund", 5, "ok", ""},       {"refund", 6, "ok", ""}};
  Finding off = r.findings[1];
  off.steps = {{"create_order", 7, "ok", ""}, {"audit", 8, "ok", ""}, {"cancel", 9, "error", ""}};
  r.findings.push_back(around);
  r.findings.push_back(off);
  ReportGraph g;
  g.states = 6;
  // Actions as in r.coverage: 0 create_order, 1 refund, 2 cancel, 3 audit.
  g.edges = {{0, 0, 1}, {0, 1, 0}, {1, 1, 2}, {1, 0, 3}, {2, 1, 4}, {1, 0, 3},
             {3, 2, 0}, {2, 2, 5}, {4, 1, 4}, {5, 0, 0}, {5, 3, 0}};
  r.graph = g;
  return r;
}

// A run of `states` states where state s leads to 2s+1 by "left" and to 2s+2 by "right" (a
// binary tree), and every state back to the initial one by "reset"; one finding whose path goes
// left `depth` times and breaks an invariant there.
inline RunReport tree_report(std::uint64_t states, std::size_t depth) {
  RunReport r;
  r.model = "tree";
  r.strategy = "bfs";
  r.coverage = {{"left", states, states, states, 0, 0},
                {"right", states, states, states, 0, 0},
                {"reset", states, states, states, 0, 0}};
  r.stats.states = states;
  ReportGraph g;
  g.states = states;
  g.edges.reserve(3 * states);
  for (std::uint64_t s = 0; s < states; ++s) {
    const auto id = static_cast<StateId>(s);
    if (2 * s + 1 < states) g.edges.push_back({id, 0, static_cast<StateId>(2 * s + 1)});
    if (2 * s + 2 < states) g.edges.push_back({id, 1, static_cast<StateId>(2 * s + 2)});
    if (s > 0) g.edges.push_back({id, 2, 0});
  }
  r.stats.transitions = g.edges.size();
  r.graph = std::move(g);
  Finding f;
  f.kind = FindingKind::kInvariant;
  f.name = "shallow";
  f.action = "left";
  f.confirmed = true;
  for (std::size_t k = 0; k < depth; ++k) f.steps.push_back({"left", k, "ok", ""});
  r.findings = {f};
  return r;
}

}  // namespace prowl::testing
