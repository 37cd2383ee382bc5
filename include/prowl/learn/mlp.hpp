// Mlp: a small fully connected network (multilayer perceptron) on Eigen, with hand-written
// backpropagation and its own optimizer state. It is the function approximator of prowl's learned
// searches: the Q-network of PySE-style Q-learning over branch decisions (a few dozen input
// features, two outputs Q(s,True) and Q(s,False)) and the actor-critic of A2C. It is sized for
// that: dense double-precision layers, one example per step, no batching.
//
// Layer l computes z = W·a + b from the previous layer's activations a (the input for l = 0);
// hidden layers apply the hidden activation (ReLU or tanh) to z, the output layer is linear.
//
// An Mlp owns its parameters and its optimizer state (Adam's moments and step count) by value:
// copying one copies both, which is how a Q-learner takes a frozen target network. Const member
// functions (forward, gradient, the accessors) only read, so any number of threads may call them
// on one Mlp at once; train, step, set_layers and set_options mutate and need the caller to
// exclude every other call on the same Mlp.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace prowl::learn {

enum class Activation { kRelu, kTanh };

// "relu" or "tanh": the names the policy file uses.
std::string_view activation_name(Activation activation);
// The activation named `name` ("relu", "tanh"), or nullopt.
std::optional<Activation> parse_activation(std::string_view name);

enum class Optimizer {
  kSgd,   // p -= learning_rate · g
  kAdam,  // Kingma & Ba: β1 = 0.9, β2 = 0.999, ε = 1e-8, with bias correction
};

// The defaults: Adam with learning rate 1e-3 and no gradient clipping.
struct MlpOptions {
  double learning_rate = 1e-3;
  Optimizer optimizer = Optimizer::kAdam;
  // When > 0, a step whose gradient has a global L2 norm (over every parameter) above this value
  // scales the whole gradient down to that norm first. 0 turns clipping off.
  double gradient_clip = 0.0;
};

// One layer's parameters: weights is outputs × inputs, bias has one entry per output.
struct Layer {
  Eigen::MatrixXd weights;
  Eigen::VectorXd bias;
};

// The gradient of a loss with respect to every parameter, laid out like Mlp::layers().
using Gradients = std::vector<Layer>;

// into += scale · g, layer by layer; an empty `into` becomes scale · g.
// REQUIRES: into is empty or shaped like g.
void add_gradients(Gradients& into, const Gradients& g, double scale = 1.0);

// Adam (the same as Mlp's) over one parameter vector that is not an Mlp's, such as a Ggnn's.
class VectorAdam {
 public:
  VectorAdam(Eigen::Index size, double learning_rate);
  // One step of `parameters` along `gradient`, scaled down first to norm `clip` when above it
  // (0: no clip). REQUIRES: both have the size given.
  void step(Eigen::VectorXd& parameters, Eigen::VectorXd gradient, double clip);

 private:
  Eigen::VectorXd first_, second_;
  std::int64_t steps_ = 0;
  double learning_rate_;
};

// One training example for a single output: the network should give `target` at output `output`
// of input `input`.
struct Example {
  Eigen::VectorXd input;
  int output = 0;
  double target = 0;
};

class Mlp {
 public:
  // A network with sizes = {inputs, hidden..., outputs}. Weights are drawn from Rng(seed), layer
  // by layer and row by row, uniform in [-limit, limit): limit = sqrt(6 / fan_in) (He) for a
  // layer feeding ReLU, sqrt(6 / (fan_in + fan_out)) (Xavier) for a layer feeding tanh and for
  // the linear output layer. Biases start at 0. The same sizes, activation and seed give
  // bit-identical weights on every platform with IEEE doubles.
  // REQUIRES: sizes.size() >= 2 and every size >= 1; options valid (see set_options).
  Mlp(std::vector<int> sizes, Activation hidden, std::uint64_t seed, MlpOptions options = {});
  // A network with the given parameters (as read from a policy file); sizes follow from them.
  // REQUIRES: layers is not empty; every layer has at least one row and one column,
  // bias.size() == weights.rows(), and each layer's weights.cols() equals the previous layer's
  // weights.rows(); options valid.
  Mlp(std::vector<Layer> layers, Activation hidden, MlpOptions options = {});

  // {inputs, hidden..., outputs}.
  const std::vector<int>& sizes() const { return sizes_; }
  int inputs() const { return sizes_.front(); }
  int outputs() const { return sizes_.back(); }
  Activation hidden_activation() const { return hidden_; }
  const MlpOptions& options() const { return options_; }
  const std::vector<Layer>& layers() const { return layers_; }
  // The number of weights and biases.
  std::size_t parameter_count() const;
  // Whether every weight and bias is finite (false once training has diverged).
  bool all_finite() const;

  // Replaces the parameters and resets the optimizer state (Adam starts again from step 0).
  // REQUIRES: every layer has the shape of the corresponding layer of layers().
  void set_layers(std::vector<Layer> layers);
  // Keeps the optimizer state unless the optimizer changes, in which case it is reset.
  // REQUIRES: learning_rate > 0 and finite; gradient_clip >= 0 and finite.
  void set_options(MlpOptions options);

  // The network's outputs for input x.
  // REQUIRES: x.size() == inputs().
  Eigen::VectorXd forward(const Eigen::VectorXd& x) const;
  // forward() of each column at once: the outputs by column, the same numbers as column by column
  // up to the rounding of a matrix product.
  Eigen::MatrixXd forward_columns(const Eigen::MatrixXd& inputs_by_column) const;

  // The gradient of a loss with respect to every parameter at input x, given the loss's gradient
  // dloss_dy with respect to the outputs forward(x).
  // REQUIRES: x.size() == inputs(); dloss_dy.size() == outputs().
  // With d_input, also the loss's gradient with respect to x (for a network fed by another).
  Gradients gradient(const Eigen::VectorXd& x, const Eigen::VectorXd& dloss_dy,
                     Eigen::VectorXd* d_input = nullptr) const;

  // One optimizer step along `gradients` (descent: parameters move against them), clipped as
  // options().gradient_clip says.
  // REQUIRES: gradients has the shapes of layers().
  void step(const Gradients& gradients);

  // One step on the squared error 0.5·(y[output] − target)² of a single output, y = forward(x):
  // the other outputs contribute no error (a Q-update of the action taken). Returns that loss
  // before the step.
  // REQUIRES: x.size() == inputs(); 0 <= output < outputs(); target is finite.
  double train(const Eigen::VectorXd& x, int output, double target);
  // One step on the mean over `batch` of those squared errors (a mini-batch: the same step as
  // train() for a batch of one). Returns the mean loss before the step.
  // REQUIRES: batch is not empty; each example as train() requires.
  double train(const std::vector<Example>& batch);

 private:
  // Per-layer values of one forward pass: the pre-activations z and activations a of every
  // layer, a[0] being the input.
  struct Pass {
    std::vector<Eigen::VectorXd> z;
    std::vector<Eigen::VectorXd> a;
  };
  Pass run(const Eigen::VectorXd& x) const;
  Gradients backward(const Pass& pass, const Eigen::VectorXd& dloss_dy,
                     Eigen::VectorXd* d_input = nullptr) const;
  void reset_optimizer();

  std::vector<int> sizes_;
  Activation hidden_;
  MlpOptions options_;
  std::vector<Layer> layers_;
  // Adam's first and second moment estimates (shaped like layers_) and its step count; empty
  // with SGD.
  Gradients first_moment_;
  Gradients second_moment_;
  std::int64_t adam_steps_ = 0;
};

}  // namespace prowl::learn
