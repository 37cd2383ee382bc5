#include "karel_graph_policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <utility>

#include "prowl/core/status.hpp"
#include "prowl/learn/mlp.hpp"

namespace karel {

namespace {

using prowl::learn::Ggnn;
using prowl::learn::GraphInput;

enum Row {
  kRowIf = 5,
  kRowIfElse = 6,
  kRowWhile = 7,
  kRowRepeat = 8,
  kRowRoot = 9,
  kRowCond = 10,
  kRowNegated = 15,
  kRowTrueCovered = 16,
  kRowFalseCovered = 17,
  kRowTrueThisInput = 18,
  kRowFalseThisInput = 19,
  kRowQuestion = 20,
  kRowAsked = 21,
  kRowSteps = 22,
  kRowTimes = 23,
};

constexpr int kBody = 0, kElse = 1, kParent = 2, kNext = 3, kPrevious = 4;

}  // namespace

ProgramGraph::ProgramGraph(const Program& program)
    : node_of_(static_cast<std::size_t>(program.conditionals), -1) {
  std::vector<const Stmt*> stmts;  // by node
  add(nullptr, stmts);
  walk(program.body, 0, kBody, stmts);
  graph_.features = Eigen::MatrixXd::Zero(kAstFeatures, static_cast<Eigen::Index>(stmts.size()));
  for (std::size_t n = 0; n < stmts.size(); ++n) {
    const Stmt* s = stmts[n];
    auto column = graph_.features.col(static_cast<Eigen::Index>(n));
    if (s == nullptr) {
      column[kRowRoot] = 1;
      continue;
    }
    switch (s->kind) {
      case Stmt::Kind::kAction:
        column[static_cast<int>(s->action)] = 1;
        continue;
      case Stmt::Kind::kRepeat:
        column[kRowRepeat] = 1;
        column[kRowTimes] = s->times / 10.0;
        continue;
      case Stmt::Kind::kIf:
        column[kRowIf] = 1;
        break;
      case Stmt::Kind::kIfElse:
        column[kRowIfElse] = 1;
        break;
      case Stmt::Kind::kWhile:
        column[kRowWhile] = 1;
        break;
    }
    column[kRowCond + static_cast<int>(s->cond)] = 1;
    column[kRowNegated] = s->negated ? 1 : 0;
  }
}

int ProgramGraph::add(const Stmt* stmt, std::vector<const Stmt*>& stmts) {
  const int n = static_cast<int>(stmts.size());
  stmts.push_back(stmt);
  if (stmt != nullptr && stmt->id >= 0) node_of_[static_cast<std::size_t>(stmt->id)] = n;
  return n;
}

void ProgramGraph::walk(const std::vector<Stmt>& block, int parent, int type,
                        std::vector<const Stmt*>& stmts) {
  int previous = -1;
  for (const Stmt& s : block) {
    const int n = add(&s, stmts);
    graph_.arcs.push_back({parent, n, type});
    graph_.arcs.push_back({n, parent, kParent});
    if (previous >= 0) {
      graph_.arcs.push_back({previous, n, kNext});
      graph_.arcs.push_back({n, previous, kPrevious});
    }
    previous = n;
    walk(s.body, n, kBody, stmts);
    walk(s.orelse, n, kElse, stmts);
  }
}

const GraphInput& ProgramGraph::at(const Question& q) {
  for (std::size_t c = 0; c < node_of_.size(); ++c) {
    auto column = graph_.features.col(node_of_[c]);
    const bool run_true = q.run->seen_true[c] != 0, run_false = q.run->seen_false[c] != 0;
    column[kRowTrueCovered] = run_true || q.joint->seen_true[c] != 0 ? 1 : 0;
    column[kRowFalseCovered] = run_false || q.joint->seen_false[c] != 0 ? 1 : 0;
    column[kRowTrueThisInput] = run_true ? 1 : 0;
    column[kRowFalseThisInput] = run_false ? 1 : 0;
  }
  if (question_ >= 0) {
    graph_.features.block(kRowQuestion, question_, 3, 1).setZero();
  }
  question_ = node_of(q.stmt->id);
  auto column = graph_.features.col(question_);
  column[kRowQuestion] = 1;
  column[kRowAsked] = std::log1p(static_cast<double>(q.asked));
  column[kRowSteps] = static_cast<double>(q.steps) / kMaxSteps;
  return graph_;
}

Ggnn::Shape GraphInputPolicy::default_shape() {
  Ggnn::Shape shape;
  shape.features = kAstFeatures;
  shape.edge_types = kAstEdgeTypes;
  shape.hidden = 16;
  shape.rounds = 5;
  shape.readout = 16;
  return shape;
}

GraphInputPolicy::GraphInputPolicy(const InputPolicy& start, std::uint64_t seed, Ggnn::Shape shape)
    : linear(start),
      net(shape, seed),
      head_node(Eigen::VectorXd::Zero(shape.hidden)),
      head_readout(Eigen::VectorXd::Zero(shape.readout)) {}

GraphInputPolicy::Scored GraphInputPolicy::score(const ProgramIndex& index, ProgramGraph& graph,
                                                 const Question& q) const {
  Scored s;
  s.difference = outcome_difference(index, q);
  const Ggnn::Output out = net.forward(graph.at(q));
  s.node = out.nodes.col(graph.node_of(q.stmt->id));
  s.readout = out.readout;
  s.logit = linear_logit(linear.weights, s.difference) + head_node.dot(s.node) +
            head_readout.dot(s.readout);
  return s;
}

Eigen::VectorXd GraphInputPolicy::logit_gradient(const GraphDecision& d,
                                                 const std::vector<GraphInput::Arc>& arcs) const {
  const Eigen::Index hidden = head_node.size(), out = head_readout.size();
  Eigen::VectorXd g(kOutcomeFeatures + hidden + out + net.parameters().size());
  for (int f = 0; f < kOutcomeFeatures; ++f) g[f] = d.difference[static_cast<std::size_t>(f)];
  g.segment(kOutcomeFeatures, hidden) = d.embedding;
  g.segment(kOutcomeFeatures + hidden, out) = d.readout;
  auto theta = g.tail(net.parameters().size());
  if ((head_node.array() == 0).all() && (head_readout.array() == 0).all()) {
    theta.setZero();  // the logit does not read the GGNN
    return g;
  }
  GraphInput at;
  at.features = d.features;
  at.arcs = arcs;
  Eigen::MatrixXd d_nodes = Eigen::MatrixXd::Zero(hidden, d.features.cols());
  d_nodes.col(d.node) = head_node;
  theta = net.gradient(at, d_nodes, head_readout);
  return g;
}

Eigen::VectorXd GraphInputPolicy::parameters() const {
  const Eigen::VectorXd& theta = net.parameters();
  Eigen::VectorXd w(kOutcomeFeatures);
  for (int f = 0; f < kOutcomeFeatures; ++f) w[f] = linear.weights[static_cast<std::size_t>(f)];
  Eigen::VectorXd p(kOutcomeFeatures + head_node.size() + head_readout.size() + theta.size());
  p << w, head_node, head_readout, theta;
  return p;
}

void GraphInputPolicy::set_parameters(const Eigen::VectorXd& p) {
  PROWL_CHECK(p.size() == kOutcomeFeatures + head_node.size() + head_readout.size() +
                              Ggnn::parameter_count(net.shape()),
              "GraphInputPolicy::set_parameters: a vector of parameters()'s size");
  for (int f = 0; f < kOutcomeFeatures; ++f) linear.weights[static_cast<std::size_t>(f)] = p[f];
  Eigen::Index at = kOutcomeFeatures;
  head_node = p.segment(at, head_node.size());
  at += head_node.size();
  head_readout = p.segment(at, head_readout.size());
  at += head_readout.size();
  net.parameters() = p.tail(p.size() - at);
}

Coverage graph_policy_input(const Program& program, const ProgramIndex& index, ProgramGraph& graph,
                            const GraphInputPolicy& policy, Coverage& joint, std::mt19937_64& rng,
                            bool sample, std::vector<GraphDecision>* decisions) {
  LazyRun run(program);
  std::vector<int> asked(static_cast<std::size_t>(program.conditionals), 0);
  while (const Stmt* s = run.decision()) {
    const Question q{s, &run.result().coverage, &joint, asked[static_cast<std::size_t>(s->id)]++,
                     run.result().steps};
    GraphInputPolicy::Scored scored = policy.score(index, graph, q);
    GraphDecision d;
    d.p_true = probability_true(scored.logit);
    d.chose_true = pick_outcome(scored.logit, sample, rng);
    const bool chose_true = d.chose_true;
    if (decisions != nullptr) {
      d.difference = scored.difference;
      d.features = graph.graph().features;
      d.node = graph.node_of(s->id);
      d.embedding = std::move(scored.node);
      d.readout = std::move(scored.readout);
      decisions->push_back(std::move(d));
    }
    run.choose(chose_true);
  }
  Coverage mine = run.result().coverage;
  joint.merge(mine);
  return mine;
}

namespace {

// The REINFORCE gradient (ascent) over every parameter from one program's episodes; *coverage
// gets their summed final joint coverage.
Eigen::VectorXd program_gradient(const GraphInputPolicy& policy, std::uint64_t seed,
                                 const GraphTrainOptions& options, double* coverage) {
  const Program program = random_program(seed);
  const ProgramIndex index(program);
  ProgramGraph graph(program);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  Eigen::VectorXd g =
      Eigen::VectorXd::Zero(kOutcomeFeatures + policy.head_node.size() +
                            policy.head_readout.size() + policy.net.parameters().size());
  *coverage = reinforce_program<GraphDecision>(
      program, options.samples, options.inputs,
      [&](Coverage& joint, std::vector<GraphDecision>* made) {
        graph_policy_input(program, index, graph, policy, joint, rng, true, made);
      },
      [&](const GraphDecision& d, double scale) {
        if (scale != 0) g += scale * policy.logit_gradient(d, graph.graph().arcs);
      });
  return g;
}

}  // namespace

Eigen::VectorXd update_gradient(const GraphInputPolicy& policy, int update,
                                const GraphTrainOptions& options, double* coverage) {
  const auto programs = static_cast<std::size_t>(options.programs_per_update);
  const unsigned threads = std::max(1u, options.threads);
  std::vector<Eigen::VectorXd> gradients(programs);
  std::vector<double> covered(programs);
  const auto work = [&](unsigned t) {
    for (std::size_t p = t; p < programs; p += threads) {
      const std::uint64_t seed = options.seed + static_cast<std::uint64_t>(update) * programs + p;
      gradients[p] = program_gradient(policy, seed, options, &covered[p]);
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work, t);
  work(0);
  for (std::thread& h : helpers) h.join();
  // Summed in program order, so that the thread count does not change the rounding.
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(gradients.front().size());
  double total = 0;
  for (std::size_t p = 0; p < programs; ++p) {
    sum += gradients[p];
    total += covered[p];
  }
  if (!options.linear) sum.head(kOutcomeFeatures).setZero();
  const double episodes = static_cast<double>(programs) * options.samples;
  if (coverage != nullptr) *coverage = total / episodes;
  return sum / episodes;
}

GraphInputPolicy train_graph_input_policy(const InputPolicy& start,
                                          const GraphTrainOptions& options, PolicyTrainLog* log) {
  GraphInputPolicy policy(options.linear ? start : InputPolicy{}, options.net_seed);
  Eigen::VectorXd parameters = policy.parameters();
  prowl::learn::VectorAdam adam(parameters.size(), options.learning_rate);
  for (int u = 0; u < options.updates; ++u) {
    double coverage = 0;
    const Eigen::VectorXd ascent = update_gradient(policy, u, options, &coverage);
    adam.step(parameters, -ascent, 0.0);  // Adam descends: ascend the coverage
    policy.set_parameters(parameters);
    if (log != nullptr) log->coverage.push_back(coverage);
  }
  return policy;
}

}  // namespace karel
