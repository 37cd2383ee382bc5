#include "prowl/learn/lstm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"

namespace prowl::learn {
namespace {

Eigen::VectorXd random_vector(Rng& rng, Eigen::Index n) {
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = 2 * rng.unit() - 1;
  return v;
}

// Three steps from a random state; the loss Σ_t a_tᵀ h_t + bᵀ c_3 reads every step's output.
struct Unrolled {
  std::vector<Eigen::VectorXd> xs, a;
  Eigen::VectorXd b;
  Lstm::State start;
  double loss(const Lstm& lstm) const {
    Lstm::State s = start;
    double total = 0;
    for (std::size_t t = 0; t < xs.size(); ++t) {
      s = lstm.forward(xs[t], s).out;
      total += a[t].dot(s.h);
    }
    return total + b.dot(s.c);
  }
};

TEST(Lstm, ItsGradientThroughTimeMatchesFiniteDifferences) {
  Rng rng(5);
  Lstm lstm(3, 4, 9);
  for (Eigen::Index i = 0; i < lstm.parameters().size(); ++i) {
    lstm.parameters()[i] += 0.1 * (2 * rng.unit() - 1);
  }
  Unrolled u;
  for (int t = 0; t < 3; ++t) {
    u.xs.push_back(random_vector(rng, 3));
    u.a.push_back(random_vector(rng, 4));
  }
  u.b = random_vector(rng, 4);
  u.start = {random_vector(rng, 4), random_vector(rng, 4)};
  std::vector<Lstm::Step> steps;
  Lstm::State s = u.start;
  for (const Eigen::VectorXd& x : u.xs) {
    steps.push_back(lstm.forward(x, s));
    s = steps.back().out;
  }
  Eigen::VectorXd analytic;
  std::vector<Eigen::VectorXd> dx(3);
  Lstm::State d{Eigen::VectorXd(), u.b};  // the last c is read by b only
  for (int t = 2; t >= 0; --t) {
    d.h = d.h.size() == 0 ? u.a[t] : Eigen::VectorXd(d.h + u.a[t]);
    dx[t] = lstm.backward(steps[t], d, analytic);
  }
  ASSERT_EQ(analytic.size(), Lstm::parameter_count(3, 4));
  EXPECT_EQ(analytic.size(), 4 * 4 * 3 + 4 * 4 * 4 + 4 * 4);
  EXPECT_GT(analytic.cwiseAbs().minCoeff(), 0.0);  // every parameter moves the loss
  const auto numeric = [&](double& value) {
    const double keep = value;
    value = keep + 1e-6;
    const double up = u.loss(lstm);
    value = keep - 1e-6;
    const double down = u.loss(lstm);
    value = keep;
    return (up - down) / 2e-6;
  };
  for (Eigen::Index i = 0; i < analytic.size(); ++i) {
    const double n = numeric(lstm.parameters()[i]);
    EXPECT_NEAR(analytic[i], n, 1e-6 * (1 + std::abs(n))) << "parameter " << i;
  }
  for (int t = 0; t < 3; ++t) {
    for (Eigen::Index i = 0; i < 3; ++i) {
      const double n = numeric(u.xs[t][i]);
      EXPECT_NEAR(dx[t][i], n, 1e-6 * (1 + std::abs(n))) << "step " << t << ", input " << i;
    }
  }
  // And over the state the first step started from.
  for (Eigen::Index i = 0; i < 4; ++i) {
    const double nh = numeric(u.start.h[i]);
    const double nc = numeric(u.start.c[i]);
    EXPECT_NEAR(d.h[i], nh, 1e-6 * (1 + std::abs(nh))) << "h " << i;
    EXPECT_NEAR(d.c[i], nc, 1e-6 * (1 + std::abs(nc))) << "c " << i;
  }
}

TEST(Lstm, AnEmptyStateIsZerosAndTheForgetGateStartsOpen) {
  const Lstm lstm(2, 3, 1);
  Eigen::VectorXd x(2);
  x << 0.5, -0.25;
  const Lstm::Step empty = lstm.forward(x, {});
  const Lstm::Step zeros = lstm.forward(x, {Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(3)});
  EXPECT_EQ(empty.out.h, zeros.out.h);
  EXPECT_EQ(empty.out.c, zeros.out.c);
  // b_f = 1: with x = 0 and h = 0 the forget gate is σ(1), the others σ(0) and tanh(0).
  const Lstm::Step rest = lstm.forward(Eigen::VectorXd::Zero(2), {});
  EXPECT_DOUBLE_EQ(rest.f[0], 1 / (1 + std::exp(-1.0)));
  EXPECT_DOUBLE_EQ(rest.i[0], 0.5);
  EXPECT_EQ(rest.out.h, Eigen::VectorXd::Zero(3));
  EXPECT_THROW(lstm.forward(Eigen::VectorXd::Zero(3), {}), LogicError);
  EXPECT_THROW(lstm.forward(x, {Eigen::VectorXd::Zero(2), Eigen::VectorXd::Zero(2)}), LogicError);
}

}  // namespace
}  // namespace prowl::learn
