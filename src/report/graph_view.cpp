#include "prowl/report/graph_view.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "prowl/core/status.hpp"
#include "prowl/report/groups.hpp"

namespace prowl {

namespace {

// Node keys while a view is built: a state's number, or `base + k` for the k-th node off the
// graph (base: the number of states, at least 1, as the initial state exists without a graph).
using Key = std::uint64_t;
constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();

// The recorded edges' indices grouped by their source (or target) state.
struct EdgeIndex {
  std::vector<std::uint32_t> start;  // per state, and one past the last
  std::vector<std::uint32_t> edges;
  std::pair<const std::uint32_t*, const std::uint32_t*> of(StateId s) const {
    return {edges.data() + start[s], edges.data() + start[s + 1]};
  }
};

EdgeIndex index_edges(const std::vector<Edge>& edges, std::uint64_t states, bool by_source) {
  EdgeIndex index;
  index.start.assign(states + 1, 0);
  for (const Edge& e : edges) ++index.start[(by_source ? e.from : e.to) + 1];
  for (std::uint64_t s = 0; s < states; ++s) index.start[s + 1] += index.start[s];
  index.edges.resize(edges.size());
  std::vector<std::uint32_t> next(index.start.begin(), index.start.end() - 1);
  for (std::uint32_t k = 0; k < edges.size(); ++k) {
    index.edges[next[by_source ? edges[k].from : edges[k].to]++] = k;
  }
  return index;
}

// A node off the graph: reached from `parent` by a step named `action`.
struct OffNode {
  Key parent = 0;
  std::string action;
  bool fails = false;
  auto tie() const { return std::tie(parent, action, fails); }
  bool operator<(const OffNode& o) const { return tie() < o.tie(); }
};

// An edge of a path off the graph (its action as the step names it).
struct OffEdge {
  Key from = 0, to = 0;
  std::string action;
  auto tie() const { return std::tie(from, to, action); }
  bool operator<(const OffEdge& o) const { return tie() < o.tie(); }
};

class ViewBuilder {
 public:
  ViewBuilder(const RunReport& r, const GraphViewOptions& o) : r_(r), options_(o) {
    if (r.graph && r.graph->states > 0) {
      graph_ = &*r.graph;
      PROWL_CHECK(graph_->edges.size() < kUnset, "report graph: too many edges to draw from");
      for (const Edge& e : graph_->edges) {
        PROWL_CHECK(
            e.action < r.coverage.size() && e.from < graph_->states && e.to < graph_->states,
            fmt::format("report graph: edge {} -{}-> {} is not in the graph", e.from, e.action,
                        e.to));
      }
      out_ = index_edges(graph_->edges, graph_->states, true);
    }
    base_ = graph_ ? graph_->states : 1;
  }

  GraphView build() {
    const std::vector<FindingGroup> groups = group_findings(r_.findings);
    paths_.resize(r_.findings.size());
    for (const FindingGroup& g : groups) {
      for (std::size_t k = 0; k < g.findings.size(); ++k) {
        walk(g.findings[k], k == 0 ? PathMark::kShortestPath : PathMark::kOtherPath);
      }
    }
    select_states();
    GraphView view;
    view.recorded = graph_ != nullptr;
    view.states = graph_ ? graph_->states : 0;
    view.transitions = graph_ ? graph_->edges.size() : 0;
    add_nodes(view);
    add_edges(view);
    trim_edges(view);
    view.labelled = view.edges.size() <= options_.labelled_edges;
    for (const std::vector<Key>& path : paths_) {
      std::vector<std::size_t>& nodes = view.paths.emplace_back();
      for (Key k : path) nodes.push_back(index_of(k));
    }
    return view;
  }

 private:
  struct Mark {
    PathMark mark = PathMark::kNone;
    std::vector<std::size_t> failing;
  };

  void mark_node(Key k, PathMark mark) {
    PathMark& m = marks_[k].mark;
    m = std::max(m, mark);
  }

  // Follows finding i's steps from the initial state, recording its nodes and edges.
  void walk(std::size_t i, PathMark mark) {
    const Finding& f = r_.findings[i];
    Key at = 0;
    bool on_graph = graph_ != nullptr;
    std::vector<Key>& path = paths_[i];
    path.push_back(at);
    mark_node(at, mark);
    for (std::size_t k = 0; k < f.steps.size(); ++k) {
      const std::string& step = f.steps[k].action;
      const bool last = k + 1 == f.steps.size();
      // A failing action reached no state; an invariant failed in the state its step reached.
      const bool fails = last && f.kind != FindingKind::kInvariant;
      const auto [to, via] = on_graph && !fails ? follow(static_cast<StateId>(at), step)
                                                : std::pair<StateId, ActionId>{kNoState, kNoAction};
      Key next = 0;
      if (to != kNoState) {
        next = to;
        PathMark& m = graph_path_edges_[{at, next, via}];
        m = std::max(m, mark);
      } else {
        on_graph = false;
        next = off_node({at, step, fails});
        PathMark& m = off_edges_[{at, next, step}];
        if (m == PathMark::kNone) off_order_.push_back({at, next, step});
        m = std::max(m, mark);
      }
      at = next;
      path.push_back(at);
      mark_node(at, mark);
    }
    marks_[at].failing.push_back(i);
  }

  // The state a step named `step` leads to from `s` along the recorded edges, and the action of
  // the edge: by the same name if any edge has it, else by a place the step's value filled.
  // kNoState when no edge fits, or when fitting edges lead to different states.
  std::pair<StateId, ActionId> follow(StateId s, const std::string& step) const {
    const auto [begin, end] = out_.of(s);
    for (const bool exact : {true, false}) {
      StateId to = kNoState;
      ActionId via = kNoAction;
      for (const std::uint32_t* k = begin; k != end; ++k) {
        const Edge& e = graph_->edges[*k];
        const std::string& name = r_.coverage[e.action].name;
        if (exact ? name != step : name == step || !step_may_name(name, step)) continue;
        if (to != kNoState && to != e.to) return {kNoState, kNoAction};
        to = e.to;
        via = e.action;
      }
      if (to != kNoState) return {to, via};
    }
    return {kNoState, kNoAction};
  }

  Key off_node(OffNode node) {
    const auto [it, added] = off_index_.try_emplace(std::move(node), off_nodes_.size());
    if (added) off_nodes_.push_back(it->first);
    return base_ + it->second;
  }

  // The states to draw: all within the budget, else the paths' states and the nearest others.
  void select_states() {
    if (!graph_) {
      selected_ = {0};
      return;
    }
    const std::uint64_t n = graph_->states;
    std::vector<char> in(n, 0);
    std::vector<StateId> queue;
    for (const std::vector<Key>& path : paths_) {
      for (Key k : path) {
        if (k < n && !in[k]) {
          in[k] = 1;
          queue.push_back(static_cast<StateId>(k));
        }
      }
    }
    if (queue.empty()) {
      in[0] = 1;
      queue.push_back(0);
    }
    if (n <= std::max<std::uint64_t>(options_.node_budget, queue.size())) {
      std::fill(in.begin(), in.end(), 1);
    } else {
      grow(in, queue);
    }
    for (StateId s = 0; s < n; ++s) {
      if (in[s]) selected_.push_back(s);
    }
  }

  // Breadth-first from the states in `queue` over edges in either direction, until the budget.
  void grow(std::vector<char>& in, std::vector<StateId>& queue) const {
    const EdgeIndex into = index_edges(graph_->edges, graph_->states, false);
    std::size_t count = queue.size();
    for (std::size_t q = 0; q < queue.size() && count < options_.node_budget; ++q) {
      for (const EdgeIndex* index : {&out_, &into}) {
        const auto [begin, end] = index->of(queue[q]);
        for (const std::uint32_t* k = begin; k != end && count < options_.node_budget; ++k) {
          const Edge& e = graph_->edges[*k];
          const StateId t = index == &out_ ? e.to : e.from;
          if (in[t]) continue;
          in[t] = 1;
          queue.push_back(t);
          ++count;
        }
      }
    }
  }

  std::size_t index_of(Key k) const {
    if (k < base_) {
      const auto it = std::lower_bound(selected_.begin(), selected_.end(), k);
      PROWL_CHECK(it != selected_.end() && *it == k, "graph view: a path state was not selected");
      return static_cast<std::size_t>(it - selected_.begin());
    }
    return selected_.size() + (k - base_);
  }

  void add_nodes(GraphView& view) const {
    for (StateId s : selected_) view.nodes.push_back({.kind = ViewNode::Kind::kState, .state = s});
    for (const OffNode& off : off_nodes_) {
      view.nodes.push_back({.kind = off.fails ? ViewNode::Kind::kFails : ViewNode::Kind::kStep});
    }
    for (const auto& [key, m] : marks_) {
      ViewNode& node = view.nodes[index_of(key)];
      node.mark = m.mark;
      node.failing = m.failing;
    }
    view.drawn_states = graph_ ? selected_.size() : 0;
  }

  // The recorded transitions between drawn states, then the paths' edges off the graph; parallel
  // ones with the same mark merged. All of them, before trim_edges().
  void add_edges(GraphView& view) const {
    std::map<std::tuple<std::size_t, std::size_t, PathMark>, std::size_t> at;
    auto add = [&](std::size_t from, std::size_t to, PathMark mark, const std::string& action,
                   std::uint64_t transitions) {
      const auto [it, added] = at.try_emplace({from, to, mark}, view.edges.size());
      if (added) view.edges.push_back({from, to, {}, 0, mark});
      ViewEdge& edge = view.edges[it->second];
      if (std::find(edge.actions.begin(), edge.actions.end(), action) == edge.actions.end()) {
        edge.actions.push_back(action);
      }
      edge.transitions += transitions;
    };
    if (graph_) {
      std::vector<std::uint32_t> node(graph_->states, kUnset);
      for (std::size_t i = 0; i < selected_.size(); ++i) {
        node[selected_[i]] = static_cast<std::uint32_t>(i);
      }
      for (const Edge& e : graph_->edges) {
        if (node[e.from] == kUnset || node[e.to] == kUnset) continue;
        const auto it = graph_path_edges_.find({e.from, e.to, e.action});
        const PathMark mark = it == graph_path_edges_.end() ? PathMark::kNone : it->second;
        add(node[e.from], node[e.to], mark, r_.coverage[e.action].name, 1);
      }
    }
    for (const OffEdge& e : off_order_) {
      add(index_of(e.from), index_of(e.to), off_edges_.at(e), e.action, 0);
    }
  }

  // Within the edge budget: the paths' edges, then for each node the first edge into it from
  // another (so that no drawn state hangs alone), then the others, in the order recorded.
  void trim_edges(GraphView& view) const {
    std::vector<char> keep(view.edges.size(), 0);
    std::size_t kept = 0;
    auto take = [&](std::size_t i) {
      if (!keep[i]) {
        keep[i] = 1;
        ++kept;
      }
    };
    for (std::size_t i = 0; i < view.edges.size(); ++i) {
      if (view.edges[i].mark != PathMark::kNone) take(i);
    }
    std::vector<char> reached(view.nodes.size(), 0);
    for (std::size_t i = 0; i < view.edges.size(); ++i) {
      const ViewEdge& e = view.edges[i];
      if (e.from == e.to || reached[e.to]) continue;
      reached[e.to] = 1;
      if (kept < options_.edge_budget) take(i);
    }
    for (std::size_t i = 0; i < view.edges.size() && kept < options_.edge_budget; ++i) take(i);
    std::vector<ViewEdge> edges;
    for (std::size_t i = 0; i < view.edges.size(); ++i) {
      if (!keep[i]) continue;
      view.drawn_transitions += view.edges[i].transitions;
      edges.push_back(std::move(view.edges[i]));
    }
    view.edges = std::move(edges);
  }

  const RunReport& r_;
  const GraphViewOptions& options_;
  const ReportGraph* graph_ = nullptr;
  Key base_ = 1;
  EdgeIndex out_;
  std::vector<std::vector<Key>> paths_;
  std::map<Key, Mark> marks_;
  std::map<OffNode, std::size_t> off_index_;
  std::vector<OffNode> off_nodes_;
  std::map<std::tuple<Key, Key, ActionId>, PathMark> graph_path_edges_;
  std::map<OffEdge, PathMark> off_edges_;
  std::vector<OffEdge> off_order_;
  std::vector<StateId> selected_;  // ascending
};

// Skips one value as params.cpp renders it: a double-quoted text with \ escapes, or a bare word
// up to the next ',' or ')'. Returns where it ends.
std::size_t skip_value(std::string_view text, std::size_t at) {
  if (at < text.size() && text[at] == '"') {
    for (++at; at < text.size(); ++at) {
      if (text[at] == '\\') {
        ++at;
      } else if (text[at] == '"') {
        return at + 1;
      }
    }
    return text.size();
  }
  while (at < text.size() && text[at] != ',' && text[at] != ')') ++at;
  return at;
}

}  // namespace

GraphView select_graph(const RunReport& report, const GraphViewOptions& options) {
  return ViewBuilder(report, options).build();
}

bool step_may_name(std::string_view action, std::string_view step) {
  if (action == step) return true;
  if (action.find("=#") == std::string_view::npos || action.find('(') == std::string_view::npos) {
    return false;
  }
  std::size_t i = 0, j = 0;
  bool places = false;
  while (i < action.size()) {
    if (action[i] == '#' && i > 0 && action[i - 1] == '=' && places) {
      std::size_t end = i + 1;
      while (end < action.size() && std::isdigit(static_cast<unsigned char>(action[end]))) ++end;
      if (end > i + 1 && end < action.size() && (action[end] == ',' || action[end] == ')')) {
        i = end;
        const std::size_t value_end = skip_value(step, j);
        if (value_end == j) return false;
        j = value_end;
        continue;
      }
    }
    if (j >= step.size() || action[i] != step[j]) return false;
    places = places || action[i] == '(';
    ++i;
    ++j;
  }
  return j == step.size();
}

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string drawn_text(const GraphView& v) {
  if (!v.recorded) return "drawn: the findings' paths only (the run recorded no graph)";
  auto plural = [](std::uint64_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", with_commas(n), n == 1 ? one : many);
  };
  std::string text;
  if (v.whole()) {
    text = fmt::format("drawn: the whole graph, {} and {}", plural(v.states, "state", "states"),
                       plural(v.transitions, "transition", "transitions"));
  } else {
    text = fmt::format("drawn: {} of {} and {} of {} — {}", with_commas(v.drawn_states),
                       plural(v.states, "state", "states"), with_commas(v.drawn_transitions),
                       plural(v.transitions, "transition", "transitions"),
                       v.paths.empty() ? "the initial state's neighbourhood"
                                       : "the findings' paths and their neighbourhood");
  }
  if (!v.labelled) text += "; only the paths' transitions are labelled";
  return text;
}

std::string node_label(const ViewNode& node) {
  switch (node.kind) {
    case ViewNode::Kind::kState:
      return std::to_string(node.state);
    case ViewNode::Kind::kFails:
      return "fails";
    default:
      return "";
  }
}

}  // namespace prowl
