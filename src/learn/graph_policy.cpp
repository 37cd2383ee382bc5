#include "prowl/learn/graph_policy.hpp"

#include <cmath>

#include "prowl/core/status.hpp"
#include "prowl/learn/a2c.hpp"
#include "prowl/learn/features.hpp"
#include "prowl/learn/policy_file.hpp"

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
      lstm_(shape.history ? shape.step_size() : 1, shape.history ? shape.lstm : 1, seed + 3),
      head_({kMoveFeatures + 2 * shape.hidden + shape.summary_size(), shape.head, 1},
            Activation::kTanh, seed + 1, MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      critic_({kStateFeatures, shape.head, 1}, Activation::kTanh, seed + 2,
              MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      encoder_adam_(encoder_.parameters().size(), learning_rate),
      lstm_adam_(lstm_.parameters().size(), learning_rate) {}

GraphPolicy::Record GraphPolicy::observe(const View& view, const Carry& carry) const {
  PROWL_CHECK(!view.moves->empty(), "GraphPolicy: a state with moves");
  Record r;
  r.graph = memory_graph(view);
  r.current = view.memory->current;
  std::vector<Eigen::VectorXd> moves = move_features(view);
  if (shape_.local) {
    r.graph.features.row(5).setZero();  // the route to the frontier
    for (Eigen::VectorXd& m : moves) m({3, 4, 5, 8, 9, 10, 11}).setZero();
  }
  const Ggnn::Output out = encoder_.forward(r.graph);
  const Eigen::Index d = shape_.hidden;
  Eigen::VectorXd summary = shape_.summary == Summary::kGraph ? out.readout
                            : shape_.summary == Summary::kPool
                                ? Eigen::VectorXd(out.nodes.rowwise().mean())
                                : Eigen::VectorXd();
  if (shape_.history) {
    r.step = lstm_.forward(
        shape_.summary == Summary::kNode ? Eigen::VectorXd(out.nodes.col(r.current)) : summary,
        carry);
    r.carry = r.step.out;
    summary = r.carry.h;
  }
  // With local information only the graph variant sees the moves' targets in the memory.
  const bool see_targets = !shape_.local || shape_.summary == Summary::kGraph;
  Eigen::VectorXd scores(static_cast<Eigen::Index>(moves.size()));
  for (std::size_t b = 0; b < moves.size(); ++b) {
    const int target = see_targets ? (*view.moves)[b].target : -1;
    Eigen::VectorXd input(kMoveFeatures + 2 * d + shape_.summary_size());
    input << moves[b], out.nodes.col(r.current),
        target >= 0 ? Eigen::VectorXd(out.nodes.col(target)) : Eigen::VectorXd::Zero(d), summary;
    scores[static_cast<Eigen::Index>(b)] = head_.forward(input)[0];
    r.targets.push_back(target);
    r.inputs.push_back(std::move(input));
  }
  r.probabilities = softmax(scores);
  r.scores = std::move(scores);
  return r;
}

std::size_t GraphPolicy::greedy(const View& view) const {
  Eigen::Index best = 0;
  observe(view).probabilities.maxCoeff(&best);
  return static_cast<std::size_t>(best);
}

void GraphPolicy::actor_gradient(const Record& record, const Eigen::VectorXd& dz, Gradient& into,
                                 Carry& d_carry) const {
  const Eigen::Index d = shape_.hidden;
  Eigen::MatrixXd d_nodes = Eigen::MatrixXd::Zero(d, record.graph.features.cols());
  Eigen::VectorXd d_readout = Eigen::VectorXd::Zero(shape_.readout);
  Eigen::VectorXd d_summary = Eigen::VectorXd::Zero(shape_.summary_size());
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
    d_summary += d_input.tail(shape_.summary_size());
  }
  if (shape_.history) {
    // This step's h is read by its moves and carried to the next step.
    d_carry.h = d_carry.h.size() == 0 ? d_summary : Eigen::VectorXd(d_carry.h + d_summary);
    d_summary = lstm_.backward(record.step, d_carry, into.lstm);
  }
  if (shape_.summary == Summary::kGraph) {
    d_readout += d_summary;
  } else if (shape_.summary == Summary::kPool) {
    // The mean of n columns: each gets 1/n of the summary's gradient.
    d_nodes.colwise() += d_summary / static_cast<double>(d_nodes.cols());
  } else if (shape_.history) {
    d_nodes.col(record.current) += d_summary;  // the LSTM read the current node's embedding
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
  if (gradient.lstm.size() > 0) lstm_adam_.step(lstm_.parameters(), scale * gradient.lstm, 1.0);
}

void GraphPolicy::load(Mlp head, const Eigen::VectorXd& encoder, const Eigen::VectorXd& lstm) {
  PROWL_CHECK(head.sizes() == head_.sizes() && encoder.size() == encoder_.parameters().size() &&
                  lstm.size() == (shape_.history ? lstm_.parameters().size() : 0),
              "GraphPolicy::load: the sizes of this policy");
  head.set_options(head_.options());
  head_ = std::move(head);
  encoder_.parameters() = encoder;
  if (shape_.history) lstm_.parameters() = lstm;
}

PolicyFile to_policy_file(const GraphPolicy& policy, const Env& env,
                          const std::vector<std::pair<std::string, std::string>>& extra) {
  const GraphPolicy::Shape& shape = policy.shape();
  PolicyFile file{{{"kind", "graph-policy"},
                   {"features", std::string(kMoveFeatureSet)},
                   {"node_features", std::string(kNodeFeatureSet)},
                   {"env", env.name()},
                   {"mode", std::string(mode_name(env.mode()))},
                   {"hidden", std::to_string(shape.hidden)},
                   {"rounds", std::to_string(shape.rounds)},
                   {"readout", std::to_string(shape.readout)},
                   {"summary", std::string(summary_name(shape.summary))},
                   {"history", shape.history ? "lstm" : "none"},
                   {"information", shape.local ? "local" : "full"}},
                  policy.head(),
                  {{"encoder", policy.encoder().parameters()}}};
  if (shape.history) {
    file.header.emplace_back("lstm", std::to_string(shape.lstm));
    file.vectors.emplace_back("lstm", policy.lstm().parameters());
  }
  file.header.insert(file.header.end(), extra.begin(), extra.end());
  return file;
}

Result<GraphPolicy> graph_policy_of(const PolicyFile& file, const std::string& source) {
  if (const std::string nodes = policy_header(file, "node_features"); nodes != kNodeFeatureSet) {
    return Status::invalid(source + ": the graph policy reads node features " +
                           (nodes.empty() ? "<none>" : nodes) + "; this prowl computes " +
                           std::string(kNodeFeatureSet) + ": train it again with this prowl");
  }
  GraphPolicy::Shape shape;
  shape.hidden = policy_header_int(file, "hidden", 1, 4096).value_or(-1);
  shape.rounds = policy_header_int(file, "rounds", 0, 4096).value_or(-1);
  shape.readout = policy_header_int(file, "readout", 1, 4096).value_or(-1);
  const std::vector<int>& s = file.network.sizes();
  if (shape.hidden < 0 || shape.rounds < 0 || shape.readout < 0 || s.size() != 3) {
    return Status::invalid(
        source +
        ": a graph policy needs hidden= and readout= (1 to 4096), rounds= (0 to 4096) and "
        "a head of one hidden layer: train it again with prowl train");
  }
  shape.head = s[1];
  const std::string summary = policy_header(file, "summary");
  const std::optional<GraphPolicy::Summary> kind =
      parse_summary(summary.empty() ? "graph" : summary);
  if (!kind) {
    return Status::invalid(source + ": unknown summary=" + summary +
                           "; a graph policy's summary is graph, pool or node");
  }
  shape.summary = *kind;
  const std::string history = policy_header(file, "history");
  if (history != "" && history != "none" && history != "lstm") {
    return Status::invalid(source + ": unknown history=" + history +
                           "; a graph policy's history is none or lstm");
  }
  shape.history = history == "lstm";
  const std::string information = policy_header(file, "information");
  if (information != "" && information != "full" && information != "local") {
    return Status::invalid(source + ": unknown information=" + information +
                           "; a graph policy's information is full or local");
  }
  shape.local = information == "local";
  if (shape.history) {
    shape.lstm = policy_header_int(file, "lstm", 1, 4096).value_or(-1);
    if (shape.lstm < 0) {
      return Status::invalid(source +
                             ": a graph policy with history=lstm needs lstm= (1 to 4096): train "
                             "it again with prowl train");
    }
  }
  const int inputs = kMoveFeatures + 2 * shape.hidden + shape.summary_size();
  if (s.front() != inputs || s.back() != 1) {
    return Status::invalid(source + ": the graph policy's head takes " + std::to_string(s.front()) +
                           " inputs, not " + std::to_string(inputs) +
                           " (the move features, two hidden= wide embeddings and its summary)");
  }
  // Checked before anything of that shape is built: the file's numbers bound what is allocated.
  const Eigen::Index expected =
      Ggnn::parameter_count({kNodeFeatures, shape.hidden, 2, shape.rounds, shape.readout});
  const Eigen::Index lstm =
      shape.history ? Lstm::parameter_count(shape.step_size(), shape.lstm) : 0;
  if (file.vectors.size() != (shape.history ? 2u : 1u) || file.vectors[0].first != "encoder" ||
      file.vectors[0].second.size() != expected ||
      (shape.history &&
       (file.vectors[1].first != "lstm" || file.vectors[1].second.size() != lstm))) {
    return Status::invalid(
        source + ": a graph policy ends with 'vector encoder " + std::to_string(expected) + "'" +
        (shape.history ? " and 'vector lstm " + std::to_string(lstm) + "'" : "") +
        " for its shape, and nothing else");
  }
  GraphPolicy policy(shape, 1, 0.01);
  policy.load(file.network, file.vectors[0].second,
              shape.history ? file.vectors[1].second : Eigen::VectorXd());
  return policy;
}

std::string_view summary_name(GraphPolicy::Summary summary) {
  switch (summary) {
    case GraphPolicy::Summary::kGraph:
      return "graph";
    case GraphPolicy::Summary::kPool:
      return "pool";
    case GraphPolicy::Summary::kNode:
      return "node";
  }
  return "graph";
}

std::optional<GraphPolicy::Summary> parse_summary(std::string_view name) {
  for (GraphPolicy::Summary s :
       {GraphPolicy::Summary::kGraph, GraphPolicy::Summary::kPool, GraphPolicy::Summary::kNode}) {
    if (summary_name(s) == name) return s;
  }
  return std::nullopt;
}

void add(GraphPolicy::Gradient& into, const GraphPolicy::Gradient& from) {
  if (!from.head.empty()) add_gradients(into.head, from.head);
  for (auto [to, part] : {std::pair{&into.encoder, &from.encoder}, {&into.lstm, &from.lstm}}) {
    if (part->size() == 0) continue;
    if (to->size() == 0) {
      *to = *part;
    } else {
      *to += *part;
    }
  }
}

}  // namespace prowl::learn
