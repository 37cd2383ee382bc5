// The graph policy (docs/learned.md, "Graph policy"): GMetaExp's encoder (Ggnn) over the graph
// memory, and a head that scores each offered move from its features, the embeddings of the node
// the agent is at and of the move's target (when known), and the graph's readout. Trained by the
// same A2C as MovePolicy (prowl/learn/a2c.hpp); its critic reads the state features.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "prowl/learn/env.hpp"
#include "prowl/learn/ggnn.hpp"
#include "prowl/learn/lstm.hpp"
#include "prowl/learn/mlp.hpp"

namespace prowl::learn {

// Per memory node: 1; whether the agent is there; log(1 + visits); its untried moves / 4; whether
// it has any; 1 / (1 + the known-route distance to the nearest node with untried moves).
inline constexpr int kNodeFeatures = 6;
// Their name, recorded in graph policy files and checked when they are loaded.
inline constexpr std::string_view kNodeFeatureSet = "nodes-v1";
// The memory as the encoder's input: a column per memory node, an arc of type 0 per known move
// and one of type 1 back along it.
GraphInput memory_graph(const View& view);

class GraphPolicy {
 public:
  static constexpr double kSkipRateFactor = 5;
  // What the head sees of the whole memory beside the two nodes' embeddings (the paper's
  // ablation, Tables 5-6): the attention readout (graph), the mean of the node embeddings (pool),
  // or nothing (node). With `history` (the paper's autoregressive variants) an LSTM runs over the
  // episode's steps instead, reading at each the readout, the mean or the current node's
  // embedding, and the head sees its output.
  enum class Summary { kGraph, kPool, kNode };
  // With local information a move's input has a one-hot of its label among these directions
  // (zeros for any other label), as the paper's policy has a logit per direction; with history
  // the LSTM reads the label of the move taken last the same way, beside its summary, so that it
  // can steer by where the agent came from.
  static constexpr std::array<std::string_view, 4> kDirections = {"north", "east", "south", "west"};
  struct Shape {
    int hidden = 16;  // node embeddings
    int rounds = 3;   // message-passing rounds (the paper: 5)
    int readout = 16;
    int head = 32;  // the head's hidden layer
    Summary summary = Summary::kGraph;
    bool history = false;  // the LSTM over the steps
    int lstm = 16;         // its state's width
    // Only what the paper's ablation gives its variants: of each move, the features its own node
    // shows (whether its target is unknown, whether it is back, the untried moves here, the
    // budget spent), not what the memory tells of its target (visits, untried moves, the route
    // to the frontier) nor its label's record; and no node's route to the frontier. What else
    // there is to know the encoder must find in the memory's structure. Node does not see the
    // embeddings of the moves' targets either (the paper's node variant knows the current node
    // only); pool does, as members of its set: a move tells which node it leads to, and pool's
    // nodes know nothing of each other (0 rounds from prowl eval --ablation --information local).
    bool local = false;
    // A linear term over the move's features added to the head's score, past its hidden layer:
    // the linear softmax control's scorer inside the graph policy, which start_from_linear() sets
    // and training goes on from (docs/learned.md, "Training a graph policy"). Its Adam rate is
    // kSkipRateFactor times the policy's: the linear control's 0.05 at the default 0.01.
    bool skip = true;
    // What the LSTM reads at each step: readout or hidden (then the last move's direction).
    int step_size() const { return summary == Summary::kGraph ? readout : hidden; }
    int label_size() const { return local ? static_cast<int>(kDirections.size()) : 0; }
    int lstm_input() const { return step_size() + label_size(); }
    // A move's own features, as the head reads them: kMoveFeatures, then its direction.
    int move_size() const;
    // The summary's width, as the head reads it: lstm with history; else readout, hidden or 0.
    int summary_size() const {
      if (history) return lstm;
      return summary == Summary::kGraph ? readout : summary == Summary::kPool ? hidden : 0;
    }
  };
  GraphPolicy(Shape shape, std::uint64_t seed, double learning_rate);

  // What the policy carries from one decision of an episode to the next: the LSTM's state (empty
  // at the start, and always without history).
  using Carry = Lstm::State;

  // What the update needs of one decision.
  struct Record {
    GraphInput graph;
    int current = 0;
    std::vector<int> targets;             // by move: its memory node, or -1
    std::vector<Eigen::VectorXd> inputs;  // by move: the head's input
    Eigen::VectorXd scores;               // by move: the head's output
    Eigen::VectorXd probabilities;        // their softmax
    Lstm::Step step;                      // with history: the LSTM's step
    Carry carry;                          // to give the next decision's observe()
  };
  // The decision at `view`, after the episode's earlier ones left `carry`.
  Record observe(const View& view, const Carry& carry = {}) const;
  Eigen::VectorXd probabilities(const View& view) const { return observe(view).probabilities; }
  // The best move of a first decision (with history, later ones need observe()'s carry).
  std::size_t greedy(const View& view) const;
  bool recurrent() const { return shape_.history; }

  struct Gradient {
    Gradients head;
    Eigen::VectorXd encoder;
    Eigen::VectorXd lstm;
    Eigen::VectorXd skip;
  };
  // Adds to `into` the gradient of Σ_b dz[b] · score_b of the record's moves. Through time: on
  // entry `d_carry` is the gradient of the later decisions' losses over record.carry, on return
  // the gradient over the carry observe() was given (call it for an episode's decisions last
  // first, with one d_carry, empty at first).
  void actor_gradient(const Record& record, const Eigen::VectorXd& dz, Gradient& into,
                      Carry& d_carry) const;
  void actor_gradient(const Record& record, const Eigen::VectorXd& dz, Gradient& into) const {
    Carry none;
    actor_gradient(record, dz, into, none);
  }
  // One Adam step of the head, the encoder, the LSTM and the skip along scale · gradient.
  void apply(const Gradient& gradient, double scale);

  Mlp& critic() { return critic_; }
  const Mlp& critic() const { return critic_; }
  const Ggnn& encoder() const { return encoder_; }
  Ggnn& encoder() { return encoder_; }
  const Mlp& head() const { return head_; }
  const Shape& shape() const { return shape_; }
  // With history: its LSTM.
  const Lstm& lstm() const { return lstm_; }
  Lstm& lstm() { return lstm_; }
  // With skip: the linear term's weights over the move features (kMoveFeatures; else empty).
  const Eigen::VectorXd& skip() const { return skip_; }
  Eigen::VectorXd& skip() { return skip_; }
  // Makes the scores those of a linear scorer with these weights over the move features: the
  // skip takes them and the head's output layer is set to 0 (the head's and the skip's optimizer
  // states start again).
  // REQUIRES: shape().skip; weights.size() == kMoveFeatures.
  void start_from_linear(const Eigen::VectorXd& weights);
  // Replaces the head's, the encoder's, the LSTM's and the skip's weights (from a policy file).
  // REQUIRES: the sizes of this policy's: head.sizes() == head().sizes(), encoder.size() == the
  // encoder's parameters, lstm.size() == the LSTM's (0 without history), skip.size() ==
  // kMoveFeatures with skip (else 0).
  void load(Mlp head, const Eigen::VectorXd& encoder, const Eigen::VectorXd& lstm = {},
            const Eigen::VectorXd& skip = {});

 private:
  Shape shape_;
  double learning_rate_;
  Ggnn encoder_;
  Lstm lstm_;  // 1 × 1 and unused without history
  Mlp head_;
  Mlp critic_;
  Eigen::VectorXd skip_;  // empty without skip
  VectorAdam encoder_adam_;
  VectorAdam lstm_adam_;
  VectorAdam skip_adam_;
};

void add(GraphPolicy::Gradient& into, const GraphPolicy::Gradient& from);

// "graph", "pool", "node"; and back (nullopt for another name).
std::string_view summary_name(GraphPolicy::Summary summary);
std::optional<GraphPolicy::Summary> parse_summary(std::string_view name);

}  // namespace prowl::learn
