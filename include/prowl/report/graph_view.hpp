// The part of a run's state graph that a graph report draws (DOT, HTML): the findings' paths,
// each bug's shortest one marked, and as much of the explored graph around them as a node budget
// allows. A finding's steps are followed from the initial state along the recorded edges
// (RunReport::graph, Options::record_edges) by their action names; a step the graph has no edge
// for (a failing action, a step of a shrunk path that never ran in the exploration, or no graph
// at all) leaves the graph and goes on in nodes of the path's own. Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/ids.hpp"
#include "prowl/explore/report.hpp"

namespace prowl {

struct GraphViewOptions {
  // The explored states drawn at most. The states on the findings' paths are always drawn, even
  // when there are more of them; the rest of the budget goes to their neighbourhood, nearest
  // first (a breadth-first search from the paths over edges in either direction).
  std::size_t node_budget = 500;
  // The edges drawn at most (parallel transitions drawn as one count once). Those of the paths
  // are always drawn; then, for each drawn state, the first transition recorded into it from
  // another, so that none hangs alone; then the others in the order the run recorded them.
  std::size_t edge_budget = 1000;
  // Above this many edges only the paths' edges are labelled (the others name their actions in
  // tooltips): labels are what makes Graphviz's layout of a dense graph slow.
  std::size_t labelled_edges = 400;
};

// How an element of the view lies on the findings' paths; the stronger mark wins.
enum class PathMark : std::uint8_t {
  kNone,
  kOtherPath,     // on a path that reaches an already shown bug ("also reached by")
  kShortestPath,  // on the shortest path of some bug (report/groups.hpp), the one shown in full
};

struct ViewNode {
  enum class Kind : std::uint8_t {
    kState,  // a state of the explored graph
    kStep,   // a state a path reached off the recorded graph (or without one)
    kFails,  // where a step failed without reaching a state (an action error, a service crash,
             // a nondeterministic step)
  };
  Kind kind = Kind::kState;
  StateId state = kNoState;  // kState: its number in the run (0: the initial state)
  PathMark mark = PathMark::kNone;
  // The findings (indices into RunReport::findings) whose last step fails here, or whose
  // invariant this state breaks; none for most nodes.
  std::vector<std::size_t> failing{};
  bool initial() const { return kind == Kind::kState && state == 0; }
};

struct ViewEdge {
  std::size_t from = 0;  // indices into GraphView::nodes
  std::size_t to = 0;
  // The actions of the transitions it stands for (parallel transitions with the same mark are one
  // edge), distinct, in the order the run recorded them.
  std::vector<std::string> actions{};
  std::uint64_t transitions = 0;  // recorded transitions drawn as this edge (0: off the graph)
  PathMark mark = PathMark::kNone;
};

struct GraphView {
  std::vector<ViewNode> nodes;  // drawn states by number, then off-graph and fails nodes
  std::vector<ViewEdge> edges;
  // Per finding: the nodes its path goes through, the initial state first.
  std::vector<std::vector<std::size_t>> paths;
  bool recorded = false;           // the run recorded its graph (with at least the initial state)
  std::uint64_t states = 0;        // in the recorded graph
  std::uint64_t transitions = 0;   // recorded transitions
  std::uint64_t drawn_states = 0;  // of those, drawn
  std::uint64_t drawn_transitions = 0;
  bool labelled = true;  // every edge labelled with its actions, not only the paths' edges
  bool whole() const { return drawn_states == states && drawn_transitions == transitions; }
};

// The view of `report` under the options. REQUIRES: every edge's action indexes report.coverage
// and its states are below graph->states.
GraphView select_graph(const RunReport& report, const GraphViewOptions& options = {});

// What the view shows, for a caption: "drawn: the whole graph, 12 states and 29 transitions",
// "drawn: 500 of 100,000 states and 1,480 of 400,000 transitions — the findings' paths and their
// neighbourhood", or "drawn: the findings' paths only (the run recorded no graph)"; when not every
// edge is labelled, followed by "; only the paths' transitions are labelled".
std::string drawn_text(const GraphView& view);

// A node's label: the state's number ("0" the initial state), "fails", or "" off the graph.
std::string node_label(const ViewNode& node);

// Whether a step named `step` may have run the action named `action` in the graph: the same
// name, or an action with a place for a state-given value (`remove(key=#1)`) that ran with a
// value there (`remove(key=7)`, `remove(key="a b")`): every other character the same.
bool step_may_name(std::string_view action, std::string_view step);

// `n` with thousands separated by commas: 100000 -> "100,000".
std::string with_commas(std::uint64_t n);

}  // namespace prowl
