// Karel's input policy over a GGNN of the program's tree (examples/karel/karel_graph_policy.hpp):
// the tree as a graph, the question written into its features, the logit's gradient against
// finite differences, a start that is the linear policy, and training deterministic at any thread
// count.
#ifdef PROWL_HAVE_KAREL

#include "karel_graph_policy.hpp"
#include "karel_testkit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

namespace {

using Arc = prowl::learn::GraphInput::Arc;

std::vector<std::tuple<int, int, int>> arcs_of(const karel::ProgramGraph& g) {
  std::vector<std::tuple<int, int, int>> out;
  for (const Arc& a : g.graph().arcs) out.emplace_back(a.from, a.to, a.type);
  return out;
}

TEST(KarelGraphPolicy, TheTreeIsAGraphOfStatementsWithTypedArcs) {
  const karel::Program p = karel_testkit::program(
      "DEF run m( move IFELSE c( not c( frontIsClear c) c) i( turnLeft i) ELSE e( putMarker e) "
      "REPEAT R=4 r( WHILE c( markersPresent c) w( pickMarker w) r) m)");
  karel::ProgramGraph g(p);
  // 0 the program, 1 move, 2 IFELSE, 3 turnLeft, 4 putMarker, 5 REPEAT, 6 WHILE, 7 pickMarker.
  ASSERT_EQ(g.nodes(), 8);
  EXPECT_EQ(g.node_of(0), 2);
  EXPECT_EQ(g.node_of(1), 6);
  const std::vector<std::tuple<int, int, int>> expected = {
      {0, 1, 0}, {1, 0, 2},                        // move, in the program's body
      {0, 2, 0}, {2, 0, 2}, {1, 2, 3}, {2, 1, 4},  // IFELSE, after move
      {2, 3, 0}, {3, 2, 2},                        // turnLeft, its body
      {2, 4, 1}, {4, 2, 2},                        // putMarker, its ELSE
      {0, 5, 0}, {5, 0, 2}, {2, 5, 3}, {5, 2, 4},  // REPEAT, after IFELSE
      {5, 6, 0}, {6, 5, 2},                        // WHILE, in REPEAT
      {6, 7, 0}, {7, 6, 2}};                       // pickMarker, in WHILE
  EXPECT_EQ(arcs_of(g), expected);
  const Eigen::MatrixXd& f = g.graph().features;
  ASSERT_EQ(f.rows(), karel::kAstFeatures);
  EXPECT_EQ(f(9, 0), 1);   // the program
  EXPECT_EQ(f(0, 1), 1);   // move
  EXPECT_EQ(f(6, 2), 1);   // IFELSE
  EXPECT_EQ(f(10, 2), 1);  // frontIsClear
  EXPECT_EQ(f(15, 2), 1);  // negated
  EXPECT_EQ(f(1, 3), 1);   // turnLeft
  EXPECT_EQ(f(4, 4), 1);   // putMarker
  EXPECT_EQ(f(8, 5), 1);   // REPEAT
  EXPECT_DOUBLE_EQ(f(23, 5), 0.4);
  EXPECT_EQ(f(7, 6), 1);   // WHILE
  EXPECT_EQ(f(13, 6), 1);  // markersPresent
  EXPECT_EQ(f(15, 6), 0);
  EXPECT_EQ(f(3, 7), 1);                      // pickMarker
  EXPECT_EQ(f.col(1).sum(), 1);               // an action: its kind only
  EXPECT_TRUE(f.middleRows(16, 7).isZero());  // no question asked, nothing covered yet
}

TEST(KarelGraphPolicy, TheQuestionAndTheCoverageAreWrittenIntoTheFeatures) {
  const karel::Program p = karel_testkit::program(
      "DEF run m( IF c( frontIsClear c) i( move i) WHILE c( leftIsClear c) w( turnLeft w) m)");
  karel::ProgramGraph g(p);
  karel::Coverage run(2), joint(2);
  joint.seen_true[0] = 1;  // an earlier input
  run.seen_false[1] = 1;   // this one
  karel::Question q{&p.body[1], &run, &joint, 3, 250};
  const Eigen::MatrixXd f = g.at(q).features;
  const int if_node = g.node_of(0), while_node = g.node_of(1);
  EXPECT_EQ(f.block(16, if_node, 7, 1), (Eigen::VectorXd(7) << 1, 0, 0, 0, 0, 0, 0).finished());
  EXPECT_EQ(f.block(16, while_node, 7, 1),
            (Eigen::VectorXd(7) << 0, 1, 0, 1, 1, std::log1p(3.0), 0.25).finished());
  // The next question moves the question's rows to its node.
  q.stmt = &p.body[0];
  q.asked = 0;
  const Eigen::MatrixXd h = g.at(q).features;
  EXPECT_EQ(h.block(20, while_node, 3, 1), Eigen::VectorXd::Zero(3));
  EXPECT_EQ(h(20, if_node), 1);
  EXPECT_DOUBLE_EQ(h(22, if_node), 0.25);
}

// A program with several questions, and a policy with every part of the logit nonzero.
struct Fixture {
  karel::Program program = karel::random_program(4242);
  karel::ProgramIndex index{program};
  karel::ProgramGraph graph{program};
  karel::GraphInputPolicy policy{karel::InputPolicy{}, 5};
  Fixture() {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    Eigen::VectorXd p = policy.parameters();
    for (Eigen::Index i = 0; i < p.size(); ++i) p[i] += u(rng);
    policy.set_parameters(p);
  }
  double logit(const karel::GraphDecision& d) const {
    prowl::learn::GraphInput at;
    at.features = d.features;
    at.arcs = graph.graph().arcs;
    const prowl::learn::Ggnn::Output out = policy.net.forward(at);
    return karel::linear_logit(policy.linear.weights, d.difference) +
           policy.head_node.dot(out.nodes.col(d.node)) + policy.head_readout.dot(out.readout);
  }
};

TEST(KarelGraphPolicy, TheLogitsGradientMatchesFiniteDifferencesForEveryParameter) {
  Fixture fx;
  karel::Coverage joint(fx.program.conditionals);
  std::mt19937_64 rng(9);
  std::vector<karel::GraphDecision> decisions;
  karel::graph_policy_input(fx.program, fx.index, fx.graph, fx.policy, joint, rng, true,
                            &decisions);
  ASSERT_FALSE(decisions.empty());
  const karel::GraphDecision& d = decisions.back();
  // The logit recorded is the one recomputed from the decision's record.
  EXPECT_NEAR(1.0 / (1.0 + std::exp(-fx.logit(d))), d.p_true, 1e-12);
  const Eigen::VectorXd analytic = fx.policy.logit_gradient(d, fx.graph.graph().arcs);
  const Eigen::VectorXd keep = fx.policy.parameters();
  ASSERT_EQ(analytic.size(), keep.size());
  int moved = 0;
  for (Eigen::Index i = 0; i < keep.size(); ++i) {
    Eigen::VectorXd p = keep;
    p[i] += 1e-6;
    fx.policy.set_parameters(p);
    const double up = fx.logit(d);
    p[i] = keep[i] - 1e-6;
    fx.policy.set_parameters(p);
    const double down = fx.logit(d);
    const double numeric = (up - down) / 2e-6;
    EXPECT_NEAR(analytic[i], numeric, 1e-6 * (1 + std::abs(numeric))) << "parameter " << i;
    moved += analytic[i] != 0;
  }
  fx.policy.set_parameters(keep);
  EXPECT_GT(moved, keep.size() / 2);
}

// A linear policy trained a little: the start of the graph policy's training.
karel::InputPolicy short_linear_training() {
  karel::PolicyTrainOptions options;
  options.updates = 30;
  return karel::train_input_policy(options);
}

TEST(KarelGraphPolicy, AnUpdateStepsUpTheCoveragesGradient) {
  const karel::InputPolicy linear = short_linear_training();
  karel::GraphTrainOptions options;
  options.updates = 1;
  for (const bool with_linear : {true, false}) {
    options.linear = with_linear;
    const karel::GraphInputPolicy start(with_linear ? linear : karel::InputPolicy{},
                                        options.net_seed);
    const Eigen::VectorXd ascent = karel::update_gradient(start, 0, options);
    const Eigen::VectorXd step =
        karel::train_graph_input_policy(linear, options).parameters() - start.parameters();
    // Adam's first step is the learning rate along the sign of the gradient, coordinate by
    // coordinate: up the coverage's.
    ASSERT_EQ(step.size(), ascent.size());
    for (Eigen::Index i = 0; i < step.size(); ++i) {
      const double expected = options.learning_rate * ascent[i] / (std::abs(ascent[i]) + 1e-8);
      EXPECT_NEAR(step[i], expected, 1e-12) << "parameter " << i;
    }
    // u = v = 0: the logit reads nothing of the GGNN yet, so its weights have no gradient.
    const Eigen::Index head =
        karel::kOutcomeFeatures + start.head_node.size() + start.head_readout.size();
    EXPECT_TRUE((ascent.tail(ascent.size() - head).array() == 0).all());
    EXPECT_GT(ascent.segment(karel::kOutcomeFeatures, head - karel::kOutcomeFeatures)
                  .cwiseAbs()
                  .minCoeff(),
              0.0);
    // w moves with the linear policy, and not without.
    EXPECT_EQ((ascent.head(karel::kOutcomeFeatures).array() != 0).any(), with_linear);
  }
}

TEST(KarelGraphPolicy, ItStartsAsTheLinearPolicyAndTrainsTheSameAtOneAndTwoThreads) {
  const karel::InputPolicy linear = short_linear_training();
  karel::GraphTrainOptions options;
  options.updates = 0;
  const karel::GraphInputPolicy start = karel::train_graph_input_policy(linear, options);
  for (std::uint64_t seed = 1000; seed < 1020; ++seed) {
    const karel::Program p = karel::random_program(seed);
    const karel::ProgramIndex index(p);
    karel::ProgramGraph graph(p);
    karel::Coverage a(p.conditionals), b(p.conditionals);
    std::mt19937_64 ra(seed), rb(seed);
    std::vector<karel::Decision> da;
    std::vector<karel::GraphDecision> db;
    for (int k = 0; k < 4; ++k) {  // two likeliest inputs, then two drawn
      karel::policy_input(p, index, linear, a, ra, k >= 2, &da);
      karel::graph_policy_input(p, index, graph, start, b, rb, k >= 2, &db);
    }
    ASSERT_EQ(da.size(), db.size()) << "program " << seed;
    for (std::size_t i = 0; i < da.size(); ++i) {
      EXPECT_EQ(da[i].chose_true, db[i].chose_true);
      EXPECT_DOUBLE_EQ(da[i].p_true, db[i].p_true);
    }
    EXPECT_EQ(a.seen_true, b.seen_true);
    EXPECT_EQ(a.seen_false, b.seen_false);
  }
  options.updates = 3;
  options.threads = 1;
  karel::PolicyTrainLog log;
  const karel::GraphInputPolicy one = karel::train_graph_input_policy(linear, options, &log);
  EXPECT_EQ(log.coverage.size(), 3u);
  options.threads = 2;
  const karel::GraphInputPolicy two = karel::train_graph_input_policy(linear, options);
  EXPECT_EQ((one.parameters() - two.parameters()).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_NE(one.parameters(), start.parameters());
  EXPECT_NE(one.head_node, Eigen::VectorXd::Zero(one.head_node.size()));
  // Alone, the GGNN trains from nothing and keeps w at zero.
  options.linear = false;
  const karel::GraphInputPolicy alone = karel::train_graph_input_policy(linear, options);
  EXPECT_EQ(alone.linear.weights, karel::OutcomeFeatures{});
  EXPECT_NE(alone.head_node, Eigen::VectorXd::Zero(alone.head_node.size()));
}

}  // namespace

#endif  // PROWL_HAVE_KAREL
