// A gated graph neural network encoder (Li et al., GGNN, as GMetaExp's App. B.1 uses it;
// docs/learned.md, "Graph encoder"), with hand-written backpropagation.
//
//   H0 = tanh(W_in X + b_in)                              a column per node
//   L rounds:  M[:, v] = Σ over arcs u → v of type k of (A_k H[:, u] + c_k)   (sum aggregation)
//              Z = σ(W_z M + U_z H + b_z),  R = σ(W_r M + U_r H + b_r)
//              Ĥ = tanh(W_h M + U_h (R ⊙ H) + b_h),  H ← (1 − Z) ⊙ H + Z ⊙ Ĥ         (GRU)
//   readout:   a = softmax over nodes of wᵀ H[:, v],  g = Σ_v a_v tanh(W_o H[:, v] + b_o)
//
// Every parameter lives in one vector (parameters()), so that one Adam serves them all and a
// policy file can hold them.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

namespace prowl::learn {

struct GraphInput {
  struct Arc {
    int from = 0;
    int to = 0;
    int type = 0;
  };
  Eigen::MatrixXd features;  // features × nodes
  std::vector<Arc> arcs;
};

class Ggnn {
 public:
  struct Shape {
    int features = 1;
    int hidden = 16;
    int edge_types = 1;
    int rounds = 5;  // the paper's L
    int readout = 16;
  };
  // Weights uniform in ±sqrt(6 / (fan_in + fan_out)) from `seed`, biases 0.
  Ggnn(Shape shape, std::uint64_t seed);

  // The size of parameters() for a shape, without building one.
  static Eigen::Index parameter_count(const Shape& shape);

  const Shape& shape() const { return shape_; }
  Eigen::VectorXd& parameters() { return theta_; }
  const Eigen::VectorXd& parameters() const { return theta_; }

  struct Output {
    Eigen::MatrixXd nodes;    // hidden × nodes: H after the last round
    Eigen::VectorXd readout;  // g
  };
  // REQUIRES: graph.features has shape().features rows and at least one column; every arc's ends
  // are nodes and its type < shape().edge_types.
  Output forward(const GraphInput& graph) const;
  // The gradient over parameters() of a loss whose gradient over the output is (d_nodes,
  // d_readout).
  Eigen::VectorXd gradient(const GraphInput& graph, const Eigen::MatrixXd& d_nodes,
                           const Eigen::VectorXd& d_readout) const;

 private:
  struct Layout;
  struct Trace;
  Output run(const GraphInput& graph, Trace* trace) const;

  Shape shape_;
  Eigen::VectorXd theta_;
};

}  // namespace prowl::learn
