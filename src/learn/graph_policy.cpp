#include "prowl/learn/graph_policy.hpp"

#include <cmath>
#include <initializer_list>

#include "prowl/core/status.hpp"
#include "prowl/learn/a2c.hpp"
#include "prowl/learn/features.hpp"
#include "prowl/learn/policy_file.hpp"

namespace prowl::learn {

int GraphPolicy::Shape::move_size() const { return kMoveFeatures + label_size(); }

namespace {

// The one-hot of `label` among GraphPolicy::kDirections (zeros for any other label).
Eigen::VectorXd direction_of(std::string_view label) {
  Eigen::VectorXd v = Eigen::VectorXd::Zero(std::ssize(GraphPolicy::kDirections));
  for (std::size_t i = 0; i < GraphPolicy::kDirections.size(); ++i) {
    if (GraphPolicy::kDirections[i] == label) v[static_cast<Eigen::Index>(i)] = 1;
  }
  return v;
}

}  // namespace

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
      learning_rate_(learning_rate),
      encoder_({kNodeFeatures, shape.hidden, 2, shape.rounds, shape.readout}, seed),
      lstm_(shape.history ? shape.lstm_input() : 1, shape.history ? shape.lstm : 1, seed + 3),
      head_({shape.move_size() + 2 * shape.hidden + shape.summary_size(), shape.head, 1},
            Activation::kTanh, seed + 1, MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      critic_({kStateFeatures, shape.head, 1}, Activation::kTanh, seed + 2,
              MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      skip_(shape.skip ? Eigen::VectorXd::Zero(kMoveFeatures) : Eigen::VectorXd()),
      encoder_adam_(encoder_.parameters().size(), learning_rate),
      lstm_adam_(lstm_.parameters().size(), learning_rate),
      skip_adam_(skip_.size(), kSkipRateFactor * learning_rate_) {}

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
    Eigen::VectorXd step(shape_.lstm_input());
    step.head(shape_.step_size()) =
        shape_.summary == Summary::kNode ? Eigen::VectorXd(out.nodes.col(r.current)) : summary;
    if (shape_.label_size() > 0) {
      step.tail(shape_.label_size()) = direction_of(view.memory->last_label);
    }
    r.step = lstm_.forward(step, carry);
    r.carry = r.step.out;
    summary = r.carry.h;
  }
  // With local information the node variant does not see the moves' targets in the memory.
  const bool see_targets = !shape_.local || shape_.summary != Summary::kNode;
  Eigen::VectorXd scores(static_cast<Eigen::Index>(moves.size()));
  for (std::size_t b = 0; b < moves.size(); ++b) {
    const int target = see_targets ? (*view.moves)[b].target : -1;
    Eigen::VectorXd input(shape_.move_size() + 2 * d + shape_.summary_size());
    input.head(kMoveFeatures) = moves[b];
    if (shape_.label_size() > 0) {
      input.segment(kMoveFeatures, shape_.label_size()) = direction_of((*view.moves)[b].label);
    }
    input.tail(2 * d + shape_.summary_size()) << out.nodes.col(r.current),
        target >= 0 ? Eigen::VectorXd(out.nodes.col(target)) : Eigen::VectorXd::Zero(d), summary;
    scores[static_cast<Eigen::Index>(b)] =
        head_.forward(input)[0] + (shape_.skip ? skip_.dot(moves[b]) : 0.0);
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
    const Eigen::Index own = shape_.move_size();
    d_nodes.col(record.current) += d_input.segment(own, d);
    if (record.targets[b] >= 0) {
      d_nodes.col(record.targets[b]) += d_input.segment(own + d, d);
    }
    d_summary += d_input.tail(shape_.summary_size());
    if (shape_.skip) {
      const auto features = record.inputs[b].head(kMoveFeatures);
      const double g = dz[static_cast<Eigen::Index>(b)];
      if (into.skip.size() == 0) {
        into.skip = g * features;
      } else {
        into.skip += g * features;
      }
    }
  }
  if (shape_.history) {
    // This step's h is read by its moves and carried to the next step.
    d_carry.h = d_carry.h.size() == 0 ? d_summary : Eigen::VectorXd(d_carry.h + d_summary);
    d_summary = lstm_.backward(record.step, d_carry, into.lstm).head(shape_.step_size());
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
  if (gradient.skip.size() > 0) skip_adam_.step(skip_, scale * gradient.skip, 1.0);
}

void GraphPolicy::start_from_linear(const Eigen::VectorXd& weights) {
  PROWL_CHECK(shape_.skip && weights.size() == kMoveFeatures,
              "GraphPolicy::start_from_linear: a policy with skip, kMoveFeatures weights");
  skip_ = weights;
  skip_adam_ = VectorAdam(skip_.size(), kSkipRateFactor * learning_rate_);
  std::vector<Layer> layers = head_.layers();
  layers.back().weights.setZero();
  layers.back().bias.setZero();
  head_.set_layers(std::move(layers));
}

void GraphPolicy::load(Mlp head, const Eigen::VectorXd& encoder, const Eigen::VectorXd& lstm,
                       const Eigen::VectorXd& skip) {
  PROWL_CHECK(head.sizes() == head_.sizes() && encoder.size() == encoder_.parameters().size() &&
                  lstm.size() == (shape_.history ? lstm_.parameters().size() : 0) &&
                  skip.size() == skip_.size(),
              "GraphPolicy::load: the sizes of this policy");
  head.set_options(head_.options());
  head_ = std::move(head);
  encoder_.parameters() = encoder;
  if (shape_.history) lstm_.parameters() = lstm;
  skip_ = skip;
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
                   {"information", shape.local ? "local" : "full"},
                   {"skip", shape.skip ? "linear" : "none"}},
                  policy.head(),
                  {{"encoder", policy.encoder().parameters()}}};
  if (shape.history) {
    file.header.emplace_back("lstm", std::to_string(shape.lstm));
    file.vectors.emplace_back("lstm", policy.lstm().parameters());
  }
  if (shape.skip) file.vectors.emplace_back("skip", policy.skip());
  file.header.insert(file.header.end(), extra.begin(), extra.end());
  return file;
}

namespace {

// The value of header line `key`, one of `values` (the first when the file has no such line); an
// invalid Status naming the key and the values otherwise.
Result<std::string> header_choice(const PolicyFile& file, const std::string& source,
                                  const std::string& key,
                                  std::initializer_list<std::string_view> values) {
  const std::string value = policy_header(file, key);
  if (value.empty()) return std::string(*values.begin());
  std::string listed;
  std::size_t i = 0;
  for (std::string_view v : values) {
    if (v == value) return value;
    listed += std::string(i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::string(v);
    ++i;
  }
  return Status::invalid(source + ": unknown " + key + "=" + value + "; a graph policy's " + key +
                         " is " + listed);
}

// The vectors a policy of this shape ends with, in order, and their sizes: checked before
// anything of that shape is built, so that the file's numbers bound what is allocated.
Status check_vectors(const PolicyFile& file, const std::string& source,
                     const GraphPolicy::Shape& shape) {
  std::vector<std::pair<std::string, Eigen::Index>> blocks{
      {"encoder",
       Ggnn::parameter_count({kNodeFeatures, shape.hidden, 2, shape.rounds, shape.readout})}};
  if (shape.history) {
    blocks.emplace_back("lstm", Lstm::parameter_count(shape.lstm_input(), shape.lstm));
  }
  if (shape.skip) blocks.emplace_back("skip", kMoveFeatures);
  bool fits = file.vectors.size() == blocks.size();
  std::string wanted;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    fits = fits && file.vectors[i].first == blocks[i].first &&
           file.vectors[i].second.size() == blocks[i].second;
    wanted += (i == 0 ? "" : " and ") +
              ("'vector " + blocks[i].first + " " + std::to_string(blocks[i].second) + "'");
  }
  if (fits) return Status::ok();
  return Status::invalid(source + ": a graph policy ends with " + wanted +
                         " for its shape, and nothing else");
}

}  // namespace

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
  const Result<std::string> summary =
      header_choice(file, source, "summary", {"graph", "pool", "node"});
  const Result<std::string> history = header_choice(file, source, "history", {"none", "lstm"});
  const Result<std::string> information =
      header_choice(file, source, "information", {"full", "local"});
  const Result<std::string> skip = header_choice(file, source, "skip", {"none", "linear"});
  for (const Result<std::string>* choice : {&summary, &history, &information, &skip}) {
    if (!*choice) return choice->status();
  }
  shape.summary = *parse_summary(*summary);
  shape.history = *history == "lstm";
  shape.local = *information == "local";
  shape.skip = *skip == "linear";
  if (shape.history) {
    shape.lstm = policy_header_int(file, "lstm", 1, 4096).value_or(-1);
    if (shape.lstm < 0) {
      return Status::invalid(source +
                             ": a graph policy with history=lstm needs lstm= (1 to 4096): train "
                             "it again with prowl train");
    }
  }
  const int inputs = shape.move_size() + 2 * shape.hidden + shape.summary_size();
  if (s.front() != inputs || s.back() != 1) {
    return Status::invalid(source + ": the graph policy's head takes " + std::to_string(s.front()) +
                           " inputs, not " + std::to_string(inputs) + " (the move features, " +
                           (shape.local ? "their direction, " : "") +
                           "two hidden= wide embeddings and its summary)");
  }
  if (Status fits = check_vectors(file, source, shape); !fits) return fits;
  const auto vector_of = [&](const std::string& name) {
    for (const auto& [n, v] : file.vectors) {
      if (n == name) return v;
    }
    return Eigen::VectorXd();
  };
  GraphPolicy policy(shape, 1, 0.01);
  policy.load(file.network, vector_of("encoder"), vector_of("lstm"), vector_of("skip"));
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
  for (auto [to, part] : {std::pair{&into.encoder, &from.encoder},
                          {&into.lstm, &from.lstm},
                          {&into.skip, &from.skip}}) {
    if (part->size() == 0) continue;
    if (to->size() == 0) {
      *to = *part;
    } else {
      *to += *part;
    }
  }
}

}  // namespace prowl::learn
