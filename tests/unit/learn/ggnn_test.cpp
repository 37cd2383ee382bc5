#include "prowl/learn/ggnn.hpp"

#include <gtest/gtest.h>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"

namespace prowl::learn {
namespace {

// A loss with every output in it: Σ C ⊙ nodes + dᵀ readout, C and d fixed random.
struct Loss {
  Eigen::MatrixXd c;
  Eigen::VectorXd d;
  double operator()(const Ggnn& net, const GraphInput& graph) const {
    const Ggnn::Output out = net.forward(graph);
    return c.cwiseProduct(out.nodes).sum() + d.dot(out.readout);
  }
};

GraphInput four_nodes(Rng& rng) {
  GraphInput graph;
  graph.features = Eigen::MatrixXd(3, 4);
  for (Eigen::Index i = 0; i < graph.features.size(); ++i) {
    graph.features.data()[i] = 2 * rng.unit() - 1;
  }
  // Two arc types; node 3 has two incoming arcs, node 0 none.
  graph.arcs = {{0, 1, 0}, {1, 2, 1}, {2, 3, 0}, {0, 3, 1}, {3, 1, 0}};
  return graph;
}

TEST(Ggnn, ItsGradientMatchesFiniteDifferencesForEveryParameter) {
  Rng rng(7);
  const GraphInput graph = four_nodes(rng);
  Ggnn net({3, 5, 2, 3, 4}, 11);
  // Nudge the biases off zero so that their gradients are tested away from a special point.
  for (Eigen::Index i = 0; i < net.parameters().size(); ++i) {
    net.parameters()[i] += 0.05 * (2 * rng.unit() - 1);
  }
  Loss loss{Eigen::MatrixXd(5, 4), Eigen::VectorXd(4)};
  for (Eigen::Index i = 0; i < loss.c.size(); ++i) loss.c.data()[i] = 2 * rng.unit() - 1;
  for (Eigen::Index i = 0; i < loss.d.size(); ++i) loss.d[i] = 2 * rng.unit() - 1;
  const Eigen::VectorXd analytic = net.gradient(graph, loss.c, loss.d);
  ASSERT_EQ(analytic.size(), net.parameters().size());
  EXPECT_GT(analytic.cwiseAbs().minCoeff(), 0.0);  // every parameter moves the loss
  int checked = 0;
  for (Eigen::Index i = 0; i < net.parameters().size(); ++i) {
    const double keep = net.parameters()[i];
    net.parameters()[i] = keep + 1e-6;
    const double up = loss(net, graph);
    net.parameters()[i] = keep - 1e-6;
    const double down = loss(net, graph);
    net.parameters()[i] = keep;
    const double numeric = (up - down) / 2e-6;
    EXPECT_NEAR(analytic[i], numeric, 1e-6 * (1 + std::abs(numeric))) << "parameter " << i;
    ++checked;
  }
  // w_in 5·3 + b_in 5, two message types 2·(25 + 5), three GRU gates 3·(25 + 25 + 5),
  // attention 5, output 4·5 + 4.
  EXPECT_EQ(checked, 15 + 5 + 60 + 165 + 5 + 24);
}

TEST(Ggnn, ZeroRoundsIsTheReadoutOfTheInputLayerAndTheReadoutIsAnAttentionAverage) {
  Rng rng(3);
  const GraphInput graph = four_nodes(rng);
  const Ggnn net({3, 5, 2, 0, 4}, 1);
  const Ggnn::Output out = net.forward(graph);
  ASSERT_EQ(out.nodes.rows(), 5);
  ASSERT_EQ(out.nodes.cols(), 4);
  ASSERT_EQ(out.readout.size(), 4);
  // Each readout entry is an average of tanh values: inside (-1, 1).
  EXPECT_LT(out.readout.cwiseAbs().maxCoeff(), 1.0);
  // The same seed gives the same network; another seed another.
  EXPECT_EQ(Ggnn({3, 5, 2, 0, 4}, 1).parameters(), net.parameters());
  EXPECT_NE(Ggnn({3, 5, 2, 0, 4}, 2).parameters(), net.parameters());
  GraphInput bad = graph;
  bad.arcs.push_back({0, 9, 0});
  EXPECT_THROW(net.forward(bad), LogicError);
}

}  // namespace
}  // namespace prowl::learn
