#include "prowl/learn/lstm.hpp"

#include <cmath>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"

namespace prowl::learn {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

VectorXd sigmoid_vector(const VectorXd& x) { return (1.0 / (1.0 + (-x.array()).exp())).matrix(); }

// The gates' rows in W, U and b: i, f, o, g, each `hidden` long.
enum Gate : Index { kIn = 0, kForget = 1, kOut = 2, kCell = 3 };

}  // namespace

Index Lstm::parameter_count(int inputs, int hidden) {
  const Index k = hidden;
  return 4 * k * inputs + 4 * k * k + 4 * k;
}

Lstm::Lstm(int inputs, int hidden, std::uint64_t seed) : inputs_(inputs), hidden_(hidden) {
  PROWL_CHECK(inputs >= 1 && hidden >= 1, "Lstm: inputs and hidden at least 1");
  const Index k = hidden, m = inputs;
  theta_ = VectorXd::Zero(parameter_count(inputs, hidden));
  Rng rng(seed);
  const auto fill = [&](Index offset, Index count, double limit) {
    for (Index i = 0; i < count; ++i) theta_[offset + i] = (2 * rng.unit() - 1) * limit;
  };
  fill(0, 4 * k * m, std::sqrt(6.0 / static_cast<double>(m + k)));
  fill(4 * k * m, 4 * k * k, std::sqrt(6.0 / static_cast<double>(2 * k)));
  theta_.segment(4 * k * m + 4 * k * k + kForget * k, k).setOnes();
}

Lstm::Step Lstm::forward(const VectorXd& x, const State& previous) const {
  PROWL_CHECK(x.size() == inputs_, "Lstm::forward: x has inputs() rows");
  const Index k = hidden_, m = inputs_;
  Step s;
  s.x = x;
  s.h_prev = previous.h.size() == 0 ? VectorXd::Zero(k) : previous.h;
  s.c_prev = previous.c.size() == 0 ? VectorXd::Zero(k) : previous.c;
  PROWL_CHECK(s.h_prev.size() == k && s.c_prev.size() == k, "Lstm::forward: a state of hidden()");
  const Eigen::Map<const MatrixXd> w(theta_.data(), 4 * k, m);
  const Eigen::Map<const MatrixXd> u(theta_.data() + 4 * k * m, 4 * k, k);
  const Eigen::Map<const VectorXd> b(theta_.data() + 4 * k * m + 4 * k * k, 4 * k);
  const VectorXd a = w * x + u * s.h_prev + b;
  s.i = sigmoid_vector(a.segment(kIn * k, k));
  s.f = sigmoid_vector(a.segment(kForget * k, k));
  s.o = sigmoid_vector(a.segment(kOut * k, k));
  s.g = a.segment(kCell * k, k).array().tanh().matrix();
  s.out.c = s.f.cwiseProduct(s.c_prev) + s.i.cwiseProduct(s.g);
  s.tanh_c = s.out.c.array().tanh().matrix();
  s.out.h = s.o.cwiseProduct(s.tanh_c);
  return s;
}

VectorXd Lstm::backward(const Step& step, State& d, VectorXd& into) const {
  const Index k = hidden_, m = inputs_;
  if (into.size() == 0) into = VectorXd::Zero(theta_.size());
  const VectorXd dh = d.h.size() == 0 ? VectorXd::Zero(k) : d.h;
  VectorXd dc = d.c.size() == 0 ? VectorXd::Zero(k) : d.c;
  dc += dh.cwiseProduct(step.o).cwiseProduct(
      (1.0 - step.tanh_c.array().square()).matrix());  // through h = o ⊙ tanh(c)
  // The gradient over the gates' pre-activations.
  VectorXd da(4 * k);
  da.segment(kIn * k, k) =
      (dc.array() * step.g.array() * step.i.array() * (1 - step.i.array())).matrix();
  da.segment(kForget * k, k) =
      (dc.array() * step.c_prev.array() * step.f.array() * (1 - step.f.array())).matrix();
  da.segment(kOut * k, k) =
      (dh.array() * step.tanh_c.array() * step.o.array() * (1 - step.o.array())).matrix();
  da.segment(kCell * k, k) = (dc.array() * step.i.array() * (1 - step.g.array().square())).matrix();
  Eigen::Map<MatrixXd>(into.data(), 4 * k, m) += da * step.x.transpose();
  Eigen::Map<MatrixXd>(into.data() + 4 * k * m, 4 * k, k) += da * step.h_prev.transpose();
  Eigen::Map<VectorXd>(into.data() + 4 * k * m + 4 * k * k, 4 * k) += da;
  const Eigen::Map<const MatrixXd> w(theta_.data(), 4 * k, m);
  const Eigen::Map<const MatrixXd> u(theta_.data() + 4 * k * m, 4 * k, k);
  d.h = u.transpose() * da;
  d.c = dc.cwiseProduct(step.f);
  return w.transpose() * da;
}

}  // namespace prowl::learn
