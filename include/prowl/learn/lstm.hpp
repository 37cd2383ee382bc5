// A long short-term memory cell (Hochreiter & Schmidhuber), the history GMetaExp's autoregressive
// encoder runs over its per-step graph summaries (App. B.1; docs/learned.md, "Autoregressive
// history"), with hand-written backpropagation through time one step at a time.
//
//   [i; f; o; g] = [σ; σ; σ; tanh](W x + U h_prev + b)      four gates of `hidden` each
//   c = f ⊙ c_prev + i ⊙ g,   h = o ⊙ tanh(c)
//
// Every parameter lives in one vector (W, then U, then b), as Ggnn's do.
#pragma once

#include <cstdint>

#include <Eigen/Dense>

namespace prowl::learn {

class Lstm {
 public:
  // The state carried from one step to the next; an empty one stands for zeros.
  struct State {
    Eigen::VectorXd h, c;
  };
  // What backpropagation needs of one step; `out` is the state after it.
  struct Step {
    Eigen::VectorXd x, h_prev, c_prev, i, f, o, g, tanh_c;
    State out;
  };

  // W and U uniform in ±sqrt(6 / (fan_in + fan_out)) from `seed`; b 0 but the forget gate's, 1
  // (so that the cell keeps its state until it learns otherwise).
  Lstm(int inputs, int hidden, std::uint64_t seed);

  static Eigen::Index parameter_count(int inputs, int hidden);
  int inputs() const { return inputs_; }
  int hidden() const { return hidden_; }
  Eigen::VectorXd& parameters() { return theta_; }
  const Eigen::VectorXd& parameters() const { return theta_; }

  // One step from `previous` (empty: zeros). REQUIRES: x has inputs() rows; a non-empty previous
  // has hidden() rows in h and c.
  Step forward(const Eigen::VectorXd& x, const State& previous) const;
  // Backpropagates one step. On entry `d` is the gradient of the loss over step.out (an empty h or
  // c: zeros); on return it is the gradient over the state before the step. Adds the gradient over
  // parameters() to `into` (resized from empty) and returns the one over step.x.
  Eigen::VectorXd backward(const Step& step, State& d, Eigen::VectorXd& into) const;

 private:
  int inputs_;
  int hidden_;
  Eigen::VectorXd theta_;
};

}  // namespace prowl::learn
