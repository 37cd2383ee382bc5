// A Karel input policy over a graph network of the program's tree (docs/learned.md, "Karel
// program testing"; seed 002, §4.2 and App. B.1): the paper's encoder, a GGNN over the AST, added
// to the linear input policy (karel_policy.hpp).
//
// Each statement of the program is a node (and the program itself one more, the root), its
// features the statement's kind, condition and negation, and for a conditional whether each of
// its outcomes is covered by an earlier input or by this one; the node of the question asked also
// says so, how often this input asked it and the steps spent. Arcs: parent to child in a body
// (type 0) or in an ELSE block (1), child to parent (2), statement to the next one in its block
// (3) and back (4). For a question at conditional c, with H the GGNN's node embeddings after
// L rounds and g its attention readout:
//
//   logit = w · (phi(true) - phi(false)) + u · H[:, node(c)] + v · g,   p(true) = sigmoid(logit)
//
// w the linear policy's weights, u and v the head's. Training starts from a trained linear policy
// with u = v = 0 (so it starts as that policy) and goes on by the same REINFORCE as the linear
// one (each input's decisions credited with the joint coverage still to come, less the mean of
// the program's other samples), every parameter (w, u, v and the GGNN's) moved by one Adam.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "karel.hpp"
#include "karel_policy.hpp"
#include "prowl/learn/ggnn.hpp"

namespace karel {

// A node's features, by row of ProgramGraph's feature matrix:
//   0-4   action: move, turnLeft, turnRight, pickMarker, putMarker
//   5-8   IF, IFELSE, WHILE, REPEAT               9 the program (root)
//   10-14 condition: frontIsClear, leftIsClear, rightIsClear, markersPresent, noMarkersPresent
//   15    the condition is negated               16, 17 true, false covered (any input so far)
//   18, 19 true, false covered by this input      20 the question's node
//   21    at the question: log1p(times asked in this input)
//   22    at the question: steps / kMaxSteps     23 REPEAT: times / 10
inline constexpr int kAstFeatures = 24;
inline constexpr int kAstEdgeTypes = 5;

class ProgramGraph {
 public:
  explicit ProgramGraph(const Program& program);
  // The graph with the coverage and the question of q written into its features.
  const prowl::learn::GraphInput& at(const Question& q);
  const prowl::learn::GraphInput& graph() const { return graph_; }
  int node_of(int conditional) const { return node_of_[static_cast<std::size_t>(conditional)]; }
  int nodes() const { return static_cast<int>(graph_.features.cols()); }

 private:
  // A node for stmt (nullptr: the program), stmts by node.
  int add(const Stmt* stmt, std::vector<const Stmt*>& stmts);
  void walk(const std::vector<Stmt>& block, int parent, int type, std::vector<const Stmt*>& stmts);

  prowl::learn::GraphInput graph_;
  std::vector<int> node_of_;  // by conditional id
  int question_ = -1;         // the node whose question rows were written last
};

// One decision of an input, for training: what the gradient needs of it.
struct GraphDecision {
  OutcomeFeatures difference{};
  Eigen::MatrixXd features;  // the graph's features at the question
  int node = 0;
  Eigen::VectorXd embedding, readout;
  bool chose_true = false;
  double p_true = 0.5;
};

struct GraphInputPolicy {
  // The GGNN's shape for kAstFeatures and kAstEdgeTypes: hidden 16, the paper's L = 5 rounds.
  static prowl::learn::Ggnn::Shape default_shape();
  // From `start`'s weights, u = v = 0, the GGNN drawn from `seed`.
  GraphInputPolicy(const InputPolicy& start, std::uint64_t seed,
                   prowl::learn::Ggnn::Shape shape = default_shape());

  InputPolicy linear;
  prowl::learn::Ggnn net;
  Eigen::VectorXd head_node;     // u: hidden
  Eigen::VectorXd head_readout;  // v: readout

  struct Scored {
    OutcomeFeatures difference{};
    double logit = 0;
    Eigen::VectorXd node;     // H[:, node(c)]
    Eigen::VectorXd readout;  // g
  };
  Scored score(const ProgramIndex& index, ProgramGraph& graph, const Question& q) const;

  // The gradient of decision d's logit over parameters(), the question's graph having `arcs`.
  Eigen::VectorXd logit_gradient(const GraphDecision& d,
                                 const std::vector<prowl::learn::GraphInput::Arc>& arcs) const;

  // Every parameter in one vector, w, u, v, then the GGNN's; and back.
  Eigen::VectorXd parameters() const;
  void set_parameters(const Eigen::VectorXd& p);
};

// One input made by `policy`, merged into `joint`, as policy_input() does for the linear policy.
Coverage graph_policy_input(const Program& program, const ProgramIndex& index, ProgramGraph& graph,
                            const GraphInputPolicy& policy, Coverage& joint, std::mt19937_64& rng,
                            bool sample, std::vector<GraphDecision>* decisions = nullptr);

struct GraphTrainOptions {
  int updates = 300;
  int programs_per_update = 16;
  int samples = 4;
  int inputs = 5;
  double learning_rate = 0.003;    // Adam's, for every parameter
  std::uint64_t seed = 2'000'000;  // programs; disjoint from the linear training's and the bench's
  std::uint64_t net_seed = 1;      // the GGNN's initial weights
  // false: the GGNN alone, as the paper's policy (w = 0 and kept there; `start` is not used).
  bool linear = true;
  unsigned threads = 2;  // programs of an update over threads; the result does not depend on it
};

// The ascent gradient of training update `update` (its programs from options.seed + update x
// programs_per_update on) over parameters(): the mean over the update's episodes of each
// decision's REINFORCE term; zero over w without options.linear. *coverage gets the episodes' mean
// final joint coverage. The same at any options.threads.
Eigen::VectorXd update_gradient(const GraphInputPolicy& policy, int update,
                                const GraphTrainOptions& options, double* coverage = nullptr);

// Trains from `start` (a trained linear policy), or from nothing without options.linear: each
// update one Adam step along update_gradient(). Deterministic for the options, at any thread
// count. `log` gets each update's mean joint coverage of its sampled episodes.
GraphInputPolicy train_graph_input_policy(const InputPolicy& start,
                                          const GraphTrainOptions& options,
                                          PolicyTrainLog* log = nullptr);

}  // namespace karel
