#include "prowl/learn/mlp.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"

namespace prowl::learn {
namespace {

Eigen::VectorXd vec(std::initializer_list<double> values) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double value : values) v(i++) = value;
  return v;
}

// sizes {2,2,2}: W1 = [1 -2; 0.5 1], b1 = [0.5, -2]; W2 = [2 -1; -1 3], b2 = [0.25, 0].
std::vector<Layer> hand_set_layers() {
  Layer hidden{Eigen::MatrixXd(2, 2), vec({0.5, -2})};
  hidden.weights << 1, -2, 0.5, 1;
  Layer output{Eigen::MatrixXd(2, 2), vec({0.25, 0})};
  output.weights << 2, -1, -1, 3;
  return {hidden, output};
}

MlpOptions sgd(double learning_rate, double clip = 0) {
  return {learning_rate, Optimizer::kSgd, clip};
}

TEST(Mlp, ComputesTheForwardPassOfHandSetWeightsWithRelu) {
  const Mlp net(hand_set_layers(), Activation::kRelu);
  // z1 = [1 - 1 + 0.5, 0.5 + 0.5 - 2] = [0.5, -1] -> a1 = [0.5, 0]; y = [1 + 0.25, -0.5 + 0].
  const Eigen::VectorXd y = net.forward(vec({1, 0.5}));
  ASSERT_EQ(y.size(), 2);
  EXPECT_EQ(y(0), 1.25);
  EXPECT_EQ(y(1), -0.5);
  EXPECT_EQ(net.sizes(), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(net.parameter_count(), 12u);
}

TEST(Mlp, ComputesTheForwardPassOfHandSetWeightsWithTanh) {
  const Mlp net(hand_set_layers(), Activation::kTanh);
  const Eigen::VectorXd y = net.forward(vec({1, 0.5}));
  const double a1 = std::tanh(0.5);
  const double a2 = std::tanh(-1.0);
  EXPECT_DOUBLE_EQ(y(0), 2 * a1 - a2 + 0.25);
  EXPECT_DOUBLE_EQ(y(1), -a1 + 3 * a2);
}

TEST(Mlp, ComputesManyInputsAtOnceAsOneByOne) {
  for (Activation activation : {Activation::kRelu, Activation::kTanh}) {
    const Mlp network({4, 6, 3, 2}, activation, 5);
    const Eigen::MatrixXd x = Eigen::MatrixXd::Random(4, 7);
    const Eigen::MatrixXd y = network.forward_columns(x);
    ASSERT_EQ(y.rows(), 2);
    ASSERT_EQ(y.cols(), 7);
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      EXPECT_TRUE(y.col(c).isApprox(network.forward(x.col(c)), 1e-12)) << "column " << c;
    }
  }
}

TEST(Mlp, DrawsEveryWeightFromTheSeedLayerByLayerRowByRowWithHeAndXavierLimits) {
  const Mlp net({4, 8, 8, 2}, Activation::kRelu, 42);
  // Layers feeding ReLU: He, sqrt(6 / fan_in); the linear output: Xavier, sqrt(6 / (in + out)).
  const double limits[] = {std::sqrt(6.0 / 4), std::sqrt(6.0 / 8), std::sqrt(6.0 / 10)};
  Rng rng(42);
  ASSERT_EQ(net.layers().size(), 3u);
  for (std::size_t l = 0; l < 3; ++l) {
    const Layer& layer = net.layers()[l];
    double largest = 0;
    for (Eigen::Index r = 0; r < layer.weights.rows(); ++r) {
      for (Eigen::Index c = 0; c < layer.weights.cols(); ++c) {
        EXPECT_EQ(layer.weights(r, c), (2.0 * rng.unit() - 1.0) * limits[l]);
        largest = std::max(largest, std::abs(layer.weights(r, c)));
      }
    }
    EXPECT_LE(largest, limits[l]);
    EXPECT_GT(largest, limits[l] / 2);
    EXPECT_TRUE(layer.bias.isZero(0.0));
  }
  const Mlp tanh_net({4, 8, 2}, Activation::kTanh, 42);
  Rng again(42);
  EXPECT_EQ(tanh_net.layers()[0].weights(0, 0), (2.0 * again.unit() - 1.0) * std::sqrt(6.0 / 12));
}

TEST(Mlp, SameSeedGivesBitIdenticalWeightsAndAnotherSeedDifferentOnes) {
  const Mlp a({12, 32, 32, 2}, Activation::kRelu, 7);
  const Mlp b({12, 32, 32, 2}, Activation::kRelu, 7);
  const Mlp c({12, 32, 32, 2}, Activation::kRelu, 8);
  for (std::size_t l = 0; l < a.layers().size(); ++l) {
    EXPECT_EQ(a.layers()[l].weights, b.layers()[l].weights);
    EXPECT_EQ(a.layers()[l].bias, b.layers()[l].bias);
    EXPECT_NE(a.layers()[l].weights, c.layers()[l].weights);
  }
}

// The gradient of L = c·forward(x) against central finite differences, layer by layer: the
// relative error ||analytic - numeric|| / (||analytic|| + ||numeric||) of every weight matrix and
// bias vector is below 1e-6.
void check_gradient(Activation activation) {
  const Mlp net({3, 5, 4, 2}, activation, 2024);
  const Eigen::VectorXd x = vec({0.3, -0.7, 1.1});
  const Eigen::VectorXd c = vec({0.8, -1.3});
  const Gradients analytic = net.gradient(x, c);
  ASSERT_EQ(analytic.size(), 3u);
  const double h = 1e-6;
  auto loss = [&](const std::vector<Layer>& layers) {
    Mlp probe = net;
    probe.set_layers(layers);
    return c.dot(probe.forward(x));
  };
  for (std::size_t l = 0; l < net.layers().size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const Layer& layer = net.layers()[l];
    Layer numeric{Eigen::MatrixXd::Zero(layer.weights.rows(), layer.weights.cols()),
                  Eigen::VectorXd::Zero(layer.bias.size())};
    for (Eigen::Index i = 0; i < layer.weights.size(); ++i) {
      std::vector<Layer> plus = net.layers();
      std::vector<Layer> minus = net.layers();
      plus[l].weights.data()[i] += h;
      minus[l].weights.data()[i] -= h;
      numeric.weights.data()[i] = (loss(plus) - loss(minus)) / (2 * h);
    }
    for (Eigen::Index i = 0; i < layer.bias.size(); ++i) {
      std::vector<Layer> plus = net.layers();
      std::vector<Layer> minus = net.layers();
      plus[l].bias(i) += h;
      minus[l].bias(i) -= h;
      numeric.bias(i) = (loss(plus) - loss(minus)) / (2 * h);
    }
    const Layer& a = analytic[l];
    ASSERT_GT(a.weights.norm(), 0.0);
    EXPECT_LT((a.weights - numeric.weights).norm() / (a.weights.norm() + numeric.weights.norm()),
              1e-6);
    EXPECT_LT((a.bias - numeric.bias).norm() / (a.bias.norm() + numeric.bias.norm()), 1e-6);
  }
}

TEST(MlpGradient, MatchesFiniteDifferencesInEveryLayerWithRelu) {
  check_gradient(Activation::kRelu);
}

TEST(MlpGradient, MatchesFiniteDifferencesInEveryLayerWithTanh) {
  check_gradient(Activation::kTanh);
}

TEST(MlpGradient, GivesTheInputGradientOfANetworkFedByAnother) {
  for (const Activation activation : {Activation::kRelu, Activation::kTanh}) {
    const Mlp net({4, 6, 3}, activation, 17);
    const Eigen::VectorXd x = vec({0.3, -0.7, 1.1, 0.2});
    const Eigen::VectorXd c = vec({0.5, -1.5, 2.0});
    Eigen::VectorXd d_input;
    net.gradient(x, c, &d_input);
    ASSERT_EQ(d_input.size(), 4);
    ASSERT_GT(d_input.norm(), 0.0);
    for (Eigen::Index i = 0; i < 4; ++i) {
      Eigen::VectorXd up = x, down = x;
      up[i] += 1e-6;
      down[i] -= 1e-6;
      const double numeric = (c.dot(net.forward(up)) - c.dot(net.forward(down))) / 2e-6;
      EXPECT_NEAR(d_input[i], numeric, 1e-6) << activation_name(activation) << " input " << i;
    }
  }
}

TEST(MlpTrain, TakesTheHandComputedSgdStepOnTheChosenOutputOnly) {
  Mlp net(hand_set_layers(), Activation::kRelu, sgd(0.1));
  // y(0) = 1.25, target 2.25: error -1, loss 0.5. dL/dy = [-1, 0]; a1 = [0.5, 0];
  // delta1 = W2ᵀ·dL/dy ⊙ relu'(z1) = [-2, 1] ⊙ [1, 0] = [-2, 0]; x = [1, 0.5].
  EXPECT_EQ(net.train(vec({1, 0.5}), 0, 2.25), 0.5);
  const Layer& hidden = net.layers()[0];
  const Layer& output = net.layers()[1];
  EXPECT_DOUBLE_EQ(output.weights(0, 0), 2.05);  // 2 - 0.1 · (-1 · 0.5)
  EXPECT_EQ(output.weights(0, 1), -1);           // a1(1) = 0
  EXPECT_DOUBLE_EQ(output.bias(0), 0.35);
  // The other output's error is not part of the loss: its row is untouched.
  EXPECT_EQ(output.weights(1, 0), -1);
  EXPECT_EQ(output.weights(1, 1), 3);
  EXPECT_EQ(output.bias(1), 0);
  EXPECT_DOUBLE_EQ(hidden.weights(0, 0), 1.2);   // 1 - 0.1 · (-2 · 1)
  EXPECT_DOUBLE_EQ(hidden.weights(0, 1), -1.9);  // -2 - 0.1 · (-2 · 0.5)
  EXPECT_DOUBLE_EQ(hidden.bias(0), 0.7);
  // The inactive ReLU unit passes no gradient.
  EXPECT_EQ(hidden.weights(1, 0), 0.5);
  EXPECT_EQ(hidden.weights(1, 1), 1);
  EXPECT_EQ(hidden.bias(1), -2);
}

TEST(MlpTrain, AMiniBatchStepsAlongTheMeanOfItsExamplesGradients) {
  // Two examples on the hand-set network, SGD 0.1. Alone, example A moves the output bias of
  // y(0) by -0.1·(1.25 - 2.25) = +0.1 and example B (y(1) of the same input: -1·0.5 + 3·0 + 0 =
  // -0.5, target 0.5, error -1) the bias of y(1) by +0.1; as a batch of two each moves by half.
  Mlp net(hand_set_layers(), Activation::kRelu, sgd(0.1));
  const double loss = net.train({Example{vec({1, 0.5}), 0, 2.25}, Example{vec({1, 0.5}), 1, 0.5}});
  EXPECT_DOUBLE_EQ(loss, 0.5);  // (0.5 + 0.5) / 2
  EXPECT_DOUBLE_EQ(net.layers()[1].bias(0), 0.25 + 0.05);
  EXPECT_DOUBLE_EQ(net.layers()[1].bias(1), 0.05);
  // The same as the sum of the two half-weight single steps' gradients.
  Mlp one(hand_set_layers(), Activation::kRelu, sgd(0.1));
  Gradients a = one.gradient(vec({1, 0.5}), vec({-0.5, 0}));
  const Gradients b = one.gradient(vec({1, 0.5}), vec({0, -0.5}));
  for (std::size_t l = 0; l < a.size(); ++l) {
    a[l].weights += b[l].weights;
    a[l].bias += b[l].bias;
  }
  one.step(a);
  for (std::size_t l = 0; l < a.size(); ++l) {
    EXPECT_TRUE(one.layers()[l].weights.isApprox(net.layers()[l].weights));
    EXPECT_TRUE(one.layers()[l].bias.isApprox(net.layers()[l].bias));
  }
  EXPECT_THROW(net.train(std::vector<Example>{}), LogicError);
}

TEST(MlpStep, ScalesAGradientAboveTheClipDownToTheClipNorm) {
  Layer zero{Eigen::MatrixXd::Zero(1, 2), vec({0})};
  Mlp net({zero}, Activation::kRelu, sgd(1.0, 1.0));
  Layer g{Eigen::MatrixXd(1, 2), vec({0})};
  g.weights << 3, 4;  // norm 5, clipped to 1
  net.step({g});
  EXPECT_DOUBLE_EQ(net.layers()[0].weights(0, 0), -0.6);
  EXPECT_DOUBLE_EQ(net.layers()[0].weights(0, 1), -0.8);
  g.weights << 0.3, 0.4;  // norm 0.5, under the clip: unchanged
  net.step({g});
  EXPECT_DOUBLE_EQ(net.layers()[0].weights(0, 0), -0.9);
  EXPECT_DOUBLE_EQ(net.layers()[0].weights(0, 1), -1.2);
}

TEST(MlpStep, MovesEachParameterByTheLearningRateOnAdamsFirstSteps) {
  Layer zero{Eigen::MatrixXd::Zero(1, 2), vec({0})};
  Mlp net({zero}, Activation::kRelu, {0.01, Optimizer::kAdam, 0});
  Layer g{Eigen::MatrixXd(1, 2), vec({-2})};
  g.weights << 0.5, -30;
  // With a constant gradient the bias-corrected moments are g and g², so each step is
  // learning_rate · g / (|g| + 1e-8): 0.01 against the gradient's sign, whatever its size.
  net.step({g});
  net.step({g});
  EXPECT_NEAR(net.layers()[0].weights(0, 0), -0.02, 1e-9);
  EXPECT_NEAR(net.layers()[0].weights(0, 1), 0.02, 1e-9);
  EXPECT_NEAR(net.layers()[0].bias(0), 0.02, 1e-9);
}

double mean_loss(const Mlp& net, const std::vector<Eigen::VectorXd>& xs,
                 const std::vector<double>& ys) {
  double sum = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double e = net.forward(xs[i])(0) - ys[i];
    sum += 0.5 * e * e;
  }
  return sum / static_cast<double>(xs.size());
}

TEST(MlpTrain, LowersTheLossOnATinyRegression) {
  std::vector<Eigen::VectorXd> xs;
  std::vector<double> ys;
  for (double a : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
    for (double b : {-1.0, 0.0, 1.0}) {
      xs.push_back(vec({a, b}));
      ys.push_back(2 * a - b + 0.5);
    }
  }
  Mlp net({2, 8, 1}, Activation::kTanh, 3, {0.01, Optimizer::kAdam, 0});
  const double before = mean_loss(net, xs, ys);
  double last_epoch = 0;
  for (int epoch = 0; epoch < 500; ++epoch) {
    last_epoch = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) last_epoch += net.train(xs[i], 0, ys[i]);
  }
  const double after = mean_loss(net, xs, ys);
  EXPECT_GT(before, 0.5);
  EXPECT_LT(after, 1e-3);
  EXPECT_LT(last_epoch / static_cast<double>(xs.size()), 2e-3);
}

TEST(MlpTrain, LearnsXorWithAFixedSeed) {
  const std::vector<Eigen::VectorXd> xs = {vec({0, 0}), vec({0, 1}), vec({1, 0}), vec({1, 1})};
  const std::vector<double> ys = {0, 1, 1, 0};
  for (Activation activation : {Activation::kRelu, Activation::kTanh}) {
    SCOPED_TRACE(std::string(activation_name(activation)));
    Mlp net({2, 8, 1}, activation, 11, {0.01, Optimizer::kAdam, 0});
    for (int epoch = 0; epoch < 2000; ++epoch) {
      for (std::size_t i = 0; i < xs.size(); ++i) net.train(xs[i], 0, ys[i]);
    }
    for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(net.forward(xs[i])(0), ys[i], 0.05);
  }
}

TEST(Mlp, CopiesOwnTheirParametersAndOptimizerState) {
  Mlp online({2, 4, 2}, Activation::kTanh, 5);
  const Mlp target = online;
  online.train(vec({1, -1}), 1, 3.0);
  const Mlp fresh({2, 4, 2}, Activation::kTanh, 5);
  for (std::size_t l = 0; l < 2; ++l) {
    EXPECT_NE(online.layers()[l].weights, target.layers()[l].weights);
    EXPECT_EQ(target.layers()[l].weights, fresh.layers()[l].weights);
    EXPECT_EQ(target.layers()[l].bias, fresh.layers()[l].bias);
  }
}

TEST(Mlp, NamesItsActivationsAsThePolicyFileDoes) {
  EXPECT_EQ(activation_name(Activation::kRelu), "relu");
  EXPECT_EQ(activation_name(Activation::kTanh), "tanh");
  EXPECT_EQ(parse_activation("tanh"), Activation::kTanh);
  EXPECT_EQ(parse_activation("relu"), Activation::kRelu);
  EXPECT_EQ(parse_activation("ReLU"), std::nullopt);
}

TEST(Mlp, ThrowsOnBrokenPreconditions) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Mlp({3}, Activation::kRelu, 1), LogicError);
  EXPECT_THROW(Mlp({3, 0, 1}, Activation::kRelu, 1), LogicError);
  EXPECT_THROW(Mlp({3, 1}, Activation::kRelu, 1, sgd(0)), LogicError);
  EXPECT_THROW(Mlp({3, 1}, Activation::kRelu, 1, sgd(0.1, -1)), LogicError);
  EXPECT_THROW(Mlp(std::vector<Layer>{}, Activation::kRelu), LogicError);
  std::vector<Layer> unchained = hand_set_layers();
  unchained[1].weights = Eigen::MatrixXd::Zero(2, 3);
  EXPECT_THROW(Mlp(unchained, Activation::kRelu), LogicError);
  Mlp net({3, 4, 2}, Activation::kTanh, 1);
  EXPECT_THROW(net.forward(vec({1, 2})), LogicError);
  EXPECT_THROW(net.gradient(vec({1, 2, 3}), vec({1})), LogicError);
  EXPECT_THROW(net.train(vec({1, 2, 3}), 2, 0.0), LogicError);
  EXPECT_THROW(net.train(vec({1, 2, 3}), -1, 0.0), LogicError);
  EXPECT_THROW(net.train(vec({1, 2, 3}), 0, nan), LogicError);
  EXPECT_THROW(net.set_layers(hand_set_layers()), LogicError);
  EXPECT_THROW(net.step(hand_set_layers()), LogicError);
  EXPECT_THROW(net.set_options(sgd(nan)), LogicError);
}

}  // namespace
}  // namespace prowl::learn
