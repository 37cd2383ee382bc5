#include "prowl/learn/features.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

namespace prowl::learn {

namespace {

// Breadth first from every node with sources[v] over the reversed known moves.
std::vector<int> distance_to(const Memory& m, const std::vector<char>& sources) {
  const std::size_t n = static_cast<std::size_t>(m.nodes());
  std::vector<std::vector<int>> into(n);
  for (std::size_t v = 0; v < n; ++v) {
    for (const Memory::Edge& e : m.edges[v]) {
      if (e.to >= 0) into[static_cast<std::size_t>(e.to)].push_back(static_cast<int>(v));
    }
  }
  std::vector<int> distance(n, -1);
  std::deque<int> queue;
  for (std::size_t v = 0; v < n; ++v) {
    if (sources[v]) {
      distance[v] = 0;
      queue.push_back(static_cast<int>(v));
    }
  }
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    for (int u : into[static_cast<std::size_t>(v)]) {
      if (distance[static_cast<std::size_t>(u)] < 0) {
        distance[static_cast<std::size_t>(u)] = distance[static_cast<std::size_t>(v)] + 1;
        queue.push_back(u);
      }
    }
  }
  return distance;
}

}  // namespace

std::vector<int> frontier_distance(const Memory& m) {
  std::vector<char> sources(static_cast<std::size_t>(m.nodes()));
  for (std::size_t v = 0; v < sources.size(); ++v) sources[v] = m.untried[v] > 0 ? 1 : 0;
  return distance_to(m, sources);
}

std::optional<std::vector<int>> LabelPositions::after(int from, const std::string& label) const {
  if (from < 0 || static_cast<std::size_t>(from) >= of.size()) return std::nullopt;
  if (of[static_cast<std::size_t>(from)].empty() && !labels.empty()) return std::nullopt;
  for (const auto& [name, axis] : labels) {
    if (name != label) continue;
    std::vector<int> p = of[static_cast<std::size_t>(from)];
    p[static_cast<std::size_t>(axis.first)] += axis.second;
    return p;
  }
  return std::nullopt;
}

namespace {

// The labels' coordinates: a label and the one that undid it share a coordinate with opposite
// signs; a label never undone has one of its own. False on a contradiction.
bool assign_axes(const Memory& m, LabelPositions& out) {
  auto& labels = out.labels;
  const auto find = [&](const std::string& label) {
    return std::find_if(labels.begin(), labels.end(),
                        [&](const auto& entry) { return entry.first == label; });
  };
  int axes = 0;
  for (std::size_t u = 0; u < m.edges.size(); ++u) {
    for (const Memory::Edge& e : m.edges[u]) {
      if (e.label.empty()) return false;  // moves without labels (an explorer's window)
      if (e.to < 0) continue;
      if (static_cast<std::size_t>(e.to) == u) return false;  // a move that stays
      for (const Memory::Edge& r : m.edges[static_cast<std::size_t>(e.to)]) {
        if (r.to != static_cast<int>(u)) continue;
        if (r.label == e.label) return false;
        auto a = find(e.label), b = find(r.label);
        if (a == labels.end() && b == labels.end()) {
          labels.push_back({e.label, {axes, 1}});
          labels.push_back({r.label, {axes++, -1}});
        } else if (b == labels.end()) {
          labels.push_back({r.label, {a->second.first, -a->second.second}});
        } else if (a == labels.end()) {
          labels.push_back({e.label, {b->second.first, -b->second.second}});
        } else if (a->second.first != b->second.first || a->second.second != -b->second.second) {
          return false;
        }
      }
    }
  }
  for (const auto& edges : m.edges) {
    for (const Memory::Edge& e : edges) {
      if (e.to >= 0 && find(e.label) == labels.end()) labels.push_back({e.label, {axes++, 1}});
    }
  }
  out.axes = axes;
  return true;
}

}  // namespace

std::optional<LabelPositions> label_positions(const Memory& m) {
  LabelPositions out;
  if (!assign_axes(m, out)) return std::nullopt;
  const std::size_t n = static_cast<std::size_t>(m.nodes());
  std::vector<int> origin(static_cast<std::size_t>(out.axes), 0);
  out.of.assign(n, {});
  if (n == 0) return out;
  out.of[0] = origin;
  std::deque<int> queue{0};
  std::vector<char> placed(n, 0);
  placed[0] = 1;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (const Memory::Edge& e : m.edges[static_cast<std::size_t>(u)]) {
      if (e.to < 0) continue;
      std::vector<int> p = *out.after(u, e.label);
      const std::size_t v = static_cast<std::size_t>(e.to);
      if (placed[v] && out.of[v] != p) return std::nullopt;
      if (!placed[v]) {
        placed[v] = 1;
        out.of[v] = std::move(p);
        queue.push_back(e.to);
      }
    }
  }
  std::vector<std::vector<int>> sorted;
  for (std::size_t v = 0; v < n; ++v) {
    if (placed[v]) sorted.push_back(out.of[v]);
  }
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return std::nullopt;
  return out;
}

std::vector<int> promising_distance(const Memory& m,
                                    const std::optional<LabelPositions>& positions) {
  std::vector<std::vector<int>> known;
  if (positions) {
    known = positions->of;
    std::sort(known.begin(), known.end());
  }
  const bool labelled = positions && m.untried_labels.size() == m.visits.size();
  std::vector<char> sources(static_cast<std::size_t>(m.nodes()));
  for (std::size_t v = 0; v < sources.size(); ++v) {
    if (m.untried[v] == 0) continue;
    if (!labelled || m.untried_labels[v].empty()) {
      sources[v] = 1;
      continue;
    }
    for (const std::string& label : m.untried_labels[v]) {
      const auto p = positions->after(static_cast<int>(v), label);
      if (!p || !std::binary_search(known.begin(), known.end(), *p)) sources[v] = 1;
    }
  }
  return distance_to(m, sources);
}

namespace {

double spent(const View& view) {
  return std::min(1.0, static_cast<double>(view.steps) / static_cast<double>(view.budget));
}

}  // namespace

std::vector<Eigen::VectorXd> move_features(const View& view) {
  return move_features(view, frontier_distance(*view.memory));
}

Eigen::MatrixXd move_feature_columns(const View& view, const std::vector<int>& distance) {
  const Memory& m = *view.memory;
  const double here_untried = m.untried[static_cast<std::size_t>(m.current)] / 4.0;
  Eigen::MatrixXd out =
      Eigen::MatrixXd::Zero(kMoveFeatures, static_cast<Eigen::Index>(view.moves->size()));
  // Dead reckoning: the untried moves placed on known nodes, the known ones' distance to a node
  // with a promising untried move.
  // Without a move known there is nothing to place (a candidate state of --strategy learned).
  const bool moved = std::any_of(m.edges.begin(), m.edges.end(),
                                 [](const std::vector<Memory::Edge>& e) { return !e.empty(); });
  const std::optional<LabelPositions> positions =
      moved ? label_positions(m) : std::optional<LabelPositions>();
  std::vector<std::vector<int>> known;
  std::vector<int> promising_storage;
  if (positions) {
    known = positions->of;
    std::sort(known.begin(), known.end());
    promising_storage = promising_distance(m, positions);
  }
  // Placing nothing, the promising nodes are those with untried moves.
  const std::vector<int>& promising = positions ? promising_storage : distance;
  for (Eigen::Index i = 0; i < out.cols(); ++i) {
    const Move& move = (*view.moves)[static_cast<std::size_t>(i)];
    auto f = out.col(i);
    f[0] = 1;
    f[1] = move.target < 0 ? 1 : 0;
    f[2] = move.back ? 1 : 0;
    if (move.target >= 0) {
      const std::size_t t = static_cast<std::size_t>(move.target);
      f[3] = std::log1p(static_cast<double>(m.visits[t]));
      f[4] = m.untried[t] > 0 ? 1 : 0;
      f[5] = distance[t] < 0 ? 0 : 1.0 / (1.0 + distance[t]);
      f[11] = promising[t] < 0 ? 0 : 1.0 / (1.0 + promising[t]);
    }
    f[6] = here_untried;
    f[7] = spent(view);
    f[8] = move.label_tries > 0 ? static_cast<double>(move.label_new) / move.label_tries : 0;
    f[9] = move.label_tries == 0 ? 1 : 0;
    if (positions && move.target < 0 && !move.back) {
      const auto p = positions->after(m.current, move.label);
      f[10] = p && std::binary_search(known.begin(), known.end(), *p) ? 1 : 0;
    }
  }
  return out;
}

std::vector<Eigen::VectorXd> move_features(const View& view, const std::vector<int>& distance) {
  const Eigen::MatrixXd columns = move_feature_columns(view, distance);
  std::vector<Eigen::VectorXd> out;
  out.reserve(static_cast<std::size_t>(columns.cols()));
  for (Eigen::Index i = 0; i < columns.cols(); ++i) out.emplace_back(columns.col(i));
  return out;
}

Eigen::VectorXd state_features(const View& view) {
  const Memory& m = *view.memory;
  int open = 0;
  for (int u : m.untried) open += u > 0 ? 1 : 0;
  Eigen::VectorXd f(kStateFeatures);
  f << 1, spent(view), view.coverage, static_cast<double>(open) / m.nodes();
  return f;
}

}  // namespace prowl::learn
