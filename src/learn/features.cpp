#include "prowl/learn/features.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

namespace prowl::learn {

std::vector<int> frontier_distance(const Memory& m) {
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
    if (m.untried[v] > 0) {
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
    }
    f[6] = here_untried;
    f[7] = spent(view);
    f[8] = move.label_tries > 0 ? static_cast<double>(move.label_new) / move.label_tries : 0;
    f[9] = move.label_tries == 0 ? 1 : 0;
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
