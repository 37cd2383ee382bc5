#include "prowl/learn/graph_policy.hpp"

#include <cmath>

#include "prowl/core/status.hpp"
#include "prowl/learn/a2c.hpp"
#include "prowl/learn/features.hpp"

namespace prowl::learn {

GraphInput memory_graph(const View& view) {
  const Memory& m = *view.memory;
  const std::vector<int> distance = frontier_distance(m);
  GraphInput graph;
  graph.features = Eigen::MatrixXd::Zero(kNodeFeatures, m.nodes());
  for (int v = 0; v < m.nodes(); ++v) {
    const std::size_t i = static_cast<std::size_t>(v);
    graph.features.col(v) << 1, v == m.current ? 1 : 0, std::log1p(m.visits[i]), m.untried[i] / 4.0,
        m.untried[i] > 0 ? 1 : 0, distance[i] < 0 ? 0 : 1.0 / (1.0 + distance[i]);
    for (const Memory::Edge& e : m.edges[i]) {
      if (e.to < 0) continue;
      graph.arcs.push_back({v, e.to, 0});
      graph.arcs.push_back({e.to, v, 1});
    }
  }
  return graph;
}

GraphPolicy::GraphPolicy(Shape shape, std::uint64_t seed, double learning_rate)
    : shape_(shape),
      encoder_({kNodeFeatures, shape.hidden, 2, shape.rounds, shape.readout}, seed),
      head_({kMoveFeatures + 2 * shape.hidden + shape.readout, shape.head, 1}, Activation::kTanh,
            seed + 1, MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      critic_({kStateFeatures, shape.head, 1}, Activation::kTanh, seed + 2,
              MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      encoder_adam_(encoder_.parameters().size(), learning_rate) {}

GraphPolicy::Record GraphPolicy::observe(const View& view) const {
  PROWL_CHECK(!view.moves->empty(), "GraphPolicy: a state with moves");
  Record r;
  r.graph = memory_graph(view);
  r.current = view.memory->current;
  const Ggnn::Output out = encoder_.forward(r.graph);
  const std::vector<Eigen::VectorXd> moves = move_features(view);
  const Eigen::Index d = shape_.hidden;
  Eigen::VectorXd scores(static_cast<Eigen::Index>(moves.size()));
  for (std::size_t b = 0; b < moves.size(); ++b) {
    const int target = (*view.moves)[b].target;
    Eigen::VectorXd input(kMoveFeatures + 2 * d + shape_.readout);
    input << moves[b], out.nodes.col(r.current),
        target >= 0 ? Eigen::VectorXd(out.nodes.col(target)) : Eigen::VectorXd::Zero(d),
        out.readout;
    scores[static_cast<Eigen::Index>(b)] = head_.forward(input)[0];
    r.targets.push_back(target);
    r.inputs.push_back(std::move(input));
  }
  r.probabilities = softmax(scores);
  return r;
}

std::size_t GraphPolicy::greedy(const View& view) const {
  Eigen::Index best = 0;
  observe(view).probabilities.maxCoeff(&best);
  return static_cast<std::size_t>(best);
}

void GraphPolicy::actor_gradient(const Record& record, const Eigen::VectorXd& dz,
                                 Gradient& into) const {
  const Eigen::Index d = shape_.hidden;
  Eigen::MatrixXd d_nodes = Eigen::MatrixXd::Zero(d, record.graph.features.cols());
  Eigen::VectorXd d_readout = Eigen::VectorXd::Zero(shape_.readout);
  for (std::size_t b = 0; b < record.inputs.size(); ++b) {
    Eigen::VectorXd d_input;
    add_gradients(
        into.head,
        head_.gradient(record.inputs[b],
                       Eigen::VectorXd::Constant(1, dz[static_cast<Eigen::Index>(b)]), &d_input));
    d_nodes.col(record.current) += d_input.segment(kMoveFeatures, d);
    if (record.targets[b] >= 0) {
      d_nodes.col(record.targets[b]) += d_input.segment(kMoveFeatures + d, d);
    }
    d_readout += d_input.tail(shape_.readout);
  }
  const Eigen::VectorXd g = encoder_.gradient(record.graph, d_nodes, d_readout);
  if (into.encoder.size() == 0) {
    into.encoder = g;
  } else {
    into.encoder += g;
  }
}

void GraphPolicy::apply(const Gradient& gradient, double scale) {
  if (!gradient.head.empty()) {
    Gradients head;
    add_gradients(head, gradient.head, scale);
    head_.step(head);
  }
  // The same clip as the head's.
  if (gradient.encoder.size() > 0) {
    encoder_adam_.step(encoder_.parameters(), scale * gradient.encoder, 1.0);
  }
}

void add(GraphPolicy::Gradient& into, const GraphPolicy::Gradient& from) {
  if (!from.head.empty()) add_gradients(into.head, from.head);
  if (from.encoder.size() == 0) return;
  if (into.encoder.size() == 0) {
    into.encoder = from.encoder;
  } else {
    into.encoder += from.encoder;
  }
}

}  // namespace prowl::learn
