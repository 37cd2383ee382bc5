#include "prowl/learn/a2c.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "prowl/learn/baselines.hpp"
#include "prowl/learn/evaluate.hpp"
#include "prowl/learn/features.hpp"
#include "prowl/learn/policy_file.hpp"
#include "tree_env.hpp"

namespace prowl::learn {
namespace {

double actor_loss(const Eigen::VectorXd& z, std::size_t action, double advantage, double beta) {
  const Eigen::VectorXd e = (z.array() - z.maxCoeff()).exp().matrix();
  const Eigen::VectorXd p = e / e.sum();
  const double entropy = -(p.array() * p.array().log()).sum();
  return -advantage * std::log(p[static_cast<Eigen::Index>(action)]) - beta * entropy;
}

TEST(A2c, TheActorLossGradientMatchesFiniteDifferences) {
  Eigen::VectorXd z(4);
  z << 0.3, -1.2, 0.8, 0.05;
  for (std::size_t action = 0; action < 4; ++action) {
    for (const double advantage : {0.7, -0.4}) {
      const Eigen::VectorXd e = (z.array() - z.maxCoeff()).exp().matrix();
      const Eigen::VectorXd p = e / e.sum();
      const Eigen::VectorXd dz = actor_loss_gradient(p, action, advantage, 0.05);
      for (Eigen::Index i = 0; i < 4; ++i) {
        Eigen::VectorXd up = z, down = z;
        up[i] += 1e-6;
        down[i] -= 1e-6;
        const double numeric =
            (actor_loss(up, action, advantage, 0.05) - actor_loss(down, action, advantage, 0.05)) /
            2e-6;
        EXPECT_NEAR(dz[i], numeric, 1e-7) << "action " << action << ", score " << i;
      }
    }
  }
}

TEST(A2c, LearnsToWalkAFiveNodeChainToItsEndWithinFourSteps) {
  // Start at one end, T = 4: only "always the untried move" covers all five nodes.
  Tree chain({{0, 1}, {1, 2}, {2, 3}, {3, 4}}, 4);
  MovePolicy policy({}, 3, 0.05);
  A2cOptions options;
  options.updates = 100;
  options.envs = 8;
  const auto curve = train_a2c(chain, policy, options);
  ASSERT_EQ(curve.size(), 100u);
  chain.reset(1);
  EXPECT_EQ(run_policy(chain, policy), 1.0);
  EXPECT_EQ(chain.steps(), 4);
  EXPECT_EQ(curve.back().coverage, 1.0);
  // Its moves drawn from its probabilities, as in training, it walks the chain too.
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    chain.reset(1);
    EXPECT_EQ(run_policy_sampled(chain, policy, seed), 1.0) << "seed " << seed;
  }
}

TEST(A2c, DrawsTheMoveWhoseCumulativeProbabilityFirstExceedsTheDraw) {
  Eigen::VectorXd p(3);
  p << 0.25, 0.5, 0.25;
  EXPECT_EQ(draw(p, 0.0), 0u);
  EXPECT_EQ(draw(p, 0.24), 0u);
  EXPECT_EQ(draw(p, 0.25), 1u);
  EXPECT_EQ(draw(p, 0.74), 1u);
  EXPECT_EQ(draw(p, 0.75), 2u);
  EXPECT_EQ(draw(p, 0.999), 2u);
  Eigen::VectorXd short_of_one(2);  // rounding left the sum below u: the last move
  short_of_one << 0.5, 0.25;
  EXPECT_EQ(draw(short_of_one, 0.9), 1u);
}

TEST(A2c, ASampledRunRepeatsForTheSameSeed) {
  auto maze = make_maze6(Mode::kVision);
  const MovePolicy policy({}, 1, 0.05);  // untrained: its moves are far from certain
  std::vector<std::pair<double, int>> runs;
  for (const std::uint64_t seed : {5, 5}) {
    maze->reset(1000);
    const double coverage = run_policy_sampled(*maze, policy, seed);
    runs.emplace_back(coverage, maze->steps());
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0].second, 36);  // the whole budget of T = 36
  EXPECT_GT(runs[0].first, 0.0);
}

// The CI smoke of the issue: a short training on maze6 (vision) already covers far more of 100
// held-out mazes than random moves (figures: docs/learned.md; bench/learned_bench for the rest).
TEST(A2c, AShortTrainingCoversMoreOfUnseenMazesThanRandomMoves) {
  auto maze = make_maze6(Mode::kVision);
  MovePolicy linear({}, 1, 0.05);
  GraphPolicy graph({8, 2, 8, 16}, 1, 0.01);
  A2cOptions options;
  options.updates = 100;  // at 40, 2 seeds of 24 stay near random; at 100 seeds 1-12 reach 0.65+
  options.threads = 2;
  train_a2c(*maze, linear, options);
  options.updates = 20;
  train_a2c(*maze, graph, options);
  const Score random = evaluate(*maze, run_random, 100, 2, 1000);
  const Score learned = evaluate(
      *maze, [&](Env& e, std::uint64_t) { return run_policy(e, linear); }, 100, 1, 1000);
  const Score learned_graph = evaluate(
      *maze, [&](Env& e, std::uint64_t) { return run_policy(e, graph); }, 100, 1, 1000);
  EXPECT_GT(learned.mean, random.mean + 0.2) << learned.mean << " against " << random.mean;
  EXPECT_GT(learned_graph.mean, random.mean + 0.1)
      << learned_graph.mean << " against " << random.mean;
}

TEST(A2c, PlaysTrainingGraphsOrOneGraphToFineTuneOn) {
  Tree chain({{0, 1}, {1, 2}}, 2);
  MovePolicy policy({}, 3, 0.05);
  A2cOptions options;
  options.updates = 2;
  options.envs = 3;
  options.seed = 4;
  train_a2c(chain, policy, options);
  const std::uint64_t first = kTrainingGraphs + 4 * 1'000'000;
  EXPECT_EQ(chain.seeds, (std::vector<std::uint64_t>{first, first + 1, first + 2, first + 3,
                                                     first + 4, first + 5}));
  chain.seeds.clear();
  options.graph = 1042;
  train_a2c(chain, policy, options);
  EXPECT_EQ(chain.seeds, std::vector<std::uint64_t>(6, 1042));
}

TEST(A2c, KeepBestLeavesThePolicyOfTheBestGreedyRunOnTheGraph) {
  // The same fine-tuning without keep_best, its greedy run on the graph after each update
  // recorded (on another env) with the policy that made it.
  auto app = make_er_app();
  const auto greedy = [&](const MovePolicy& p) {
    auto other = app->fresh();
    other->reset(1007);
    return run_policy(*other, p);
  };
  const MovePolicy start({}, 2, 0.2);
  A2cOptions options;
  options.updates = 30;
  options.envs = 4;
  options.seed = 3;
  options.entropy = 0;
  options.graph = 1007;
  MovePolicy plain = start;
  std::vector<double> runs{greedy(start)};
  std::vector<MovePolicy> policies{start};
  train_a2c(*app, plain, options, [&](const CurvePoint&) {
    runs.push_back(greedy(plain));
    policies.push_back(plain);
    return true;
  });
  const auto best = std::max_element(runs.begin(), runs.end());  // the first of equal ones
  // The training must pass through a better run and leave it, for the test to tell.
  ASSERT_GT(*best, runs.front());
  ASSERT_LT(runs.back(), *best);
  MovePolicy kept = start;
  options.keep_best = true;
  const auto curve = train_a2c(*app, kept, options);
  EXPECT_EQ(curve.size(), 30U);
  EXPECT_EQ(greedy(kept), *best);
  const Mlp& expected = policies[static_cast<std::size_t>(best - runs.begin())].scorer();
  EXPECT_EQ(kept.scorer().layers()[0].weights, expected.layers()[0].weights);
  // A step too long to help (learning rate 3) leaves the policy as it was.
  const MovePolicy steep({}, 2, 3.0);
  options.updates = 1;
  options.keep_best = false;
  MovePolicy worse = steep;
  train_a2c(*app, worse, options);
  ASSERT_LT(greedy(worse), greedy(steep));
  options.keep_best = true;
  MovePolicy same = steep;
  train_a2c(*app, same, options);
  EXPECT_EQ(same.scorer().layers()[0].weights, steep.scorer().layers()[0].weights);
}

TEST(Evaluate, ScoresGraphMeansAndPairedDifferences) {
  // var = ((0.25 + 0.49) − 2 · 0.36) / 1 = 0.02; half width 1.96 · sqrt(0.02 / 2) = 0.196.
  const Score s = score_of({0.5, 0.7}, 3);
  EXPECT_DOUBLE_EQ(s.mean, 0.6);
  EXPECT_NEAR(s.half_width, 0.196, 1e-12);
  EXPECT_EQ(s.episodes, 6);
  const Score d = difference({0.6, 0.8}, {0.5, 0.5});  // 0.1 and 0.3
  EXPECT_DOUBLE_EQ(d.mean, 0.2);
  EXPECT_NEAR(d.half_width, 0.196, 1e-12);
  // Graph g is reset(first + g), its seeds first·1000 + g·seeds + s.
  Tree chain({{0, 1}}, 1);
  const Runner run = [](Env& e, std::uint64_t seed) {
    return static_cast<double>(e.graph_seed() * 10000 + seed);
  };
  EXPECT_EQ(graph_means(chain, run, 2, 2, 7),
            (std::vector<double>{7 * 10000 + 7000.5, 8 * 10000 + 7002.5}));
}

TEST(A2c, TheSameSeedTrainsTheSameWeightsOnOneOrTwoThreads) {
  auto train = [](int threads) {
    auto maze = make_maze6(Mode::kVision);
    MovePolicy policy({8}, 5, 0.02);
    A2cOptions options;
    options.updates = 5;
    options.envs = 5;
    options.seed = 9;
    options.threads = threads;
    train_a2c(*maze, policy, options);
    return policy.scorer().layers();
  };
  const auto a = train(1), b = train(2);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t l = 0; l < a.size(); ++l) {
    EXPECT_EQ(a[l].weights, b[l].weights);
    EXPECT_EQ(a[l].bias, b[l].bias);
  }
}

// The policy kept is the one the same training stopped after the best window's last update
// would have left (an update's graphs and choices depend on its index alone).
TEST(A2c, KeepBestWindowLeavesThePolicyAfterTheBestWindowOfTrainingUpdates) {
  const auto train = [](int updates, int window, std::vector<CurvePoint>* curve) {
    auto maze = make_maze6(Mode::kVision);
    MovePolicy policy({}, 5, 0.05);
    A2cOptions options;
    options.updates = updates;
    options.envs = 4;
    options.seed = 11;
    options.keep_best_window = window;
    std::vector<CurvePoint> c = train_a2c(*maze, policy, options);
    if (curve != nullptr) *curve = std::move(c);
    return policy.scorer().layers();
  };
  std::vector<CurvePoint> curve;
  const auto kept = train(40, 5, &curve);
  ASSERT_EQ(curve.size(), 40u);  // the curve is the whole training's
  std::size_t best_end = 5;
  double best = -1;
  for (std::size_t end = 5; end <= curve.size(); ++end) {
    double sum = 0;
    for (std::size_t i = end - 5; i < end; ++i) sum += curve[i].coverage;
    if (sum > best + 1e-12) {
      best = sum;
      best_end = end;
    }
  }
  ASSERT_LT(best_end, 40u) << "the test needs a best window before the last";
  const std::optional<WindowChoice> chosen = chosen_window(curve, 5);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->last_update(), static_cast<int>(best_end));
  const auto stopped = train(static_cast<int>(best_end), 0, nullptr);
  const auto last = train(40, 0, nullptr);
  ASSERT_EQ(kept.size(), stopped.size());
  EXPECT_EQ(kept[0].weights, stopped[0].weights);
  EXPECT_EQ(kept[0].bias, stopped[0].bias);
  EXPECT_NE(kept[0].weights, last[0].weights);
}

TEST(A2c, ChosenWindowIsTheFirstOfTheBestMeans) {
  const std::vector<CurvePoint> curve = {{1, 0.25}, {2, 0.5}, {3, 0.75}, {4, 0.25},
                                         {5, 0.5},  {6, 1.0}, {7, 0.0},  {8, 0.5}};
  // Windows of 2: 0.75, 1.25, 1.0, 0.75, 1.5, 1.0, 0.5; the best ends at update 6.
  std::optional<WindowChoice> two = chosen_window(curve, 2);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->last_update(), 6);
  EXPECT_EQ(two->coverage(), 0.75);
  // Windows of 3: 1.5, 1.5, 1.5, 1.75, 1.5, 1.5; the best ends at update 6.
  EXPECT_EQ(chosen_window(curve, 3)->last_update(), 6);
  // Of equal windows the first: windows of 1 over {0.5, 1.0, 1.0}.
  EXPECT_EQ(chosen_window({{1, 0.5}, {2, 1.0}, {3, 1.0}}, 1)->last_update(), 2);
  // The whole curve as one window.
  std::optional<WindowChoice> all = chosen_window(curve, 8);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->last_update(), 8);
  EXPECT_EQ(all->coverage(), 3.75 / 8);
  EXPECT_FALSE(chosen_window(curve, 9).has_value());
  EXPECT_FALSE(chosen_window(curve, 0).has_value());
  // Update by update: add() says when a window is the best so far.
  WindowChoice online(2);
  std::vector<bool> best;
  for (std::size_t n = 1; n <= curve.size(); ++n) {
    best.push_back(online.add(std::span<const CurvePoint>(curve.data(), n)));
  }
  EXPECT_EQ(best, (std::vector<bool>{false, true, true, false, false, true, false, false}));
  // A curve numbered from 0: its first window can be the one chosen.
  EXPECT_EQ(chosen_window({{0, 1.0}, {1, 0.5}}, 1)->last_update(), 0);
  // add() takes the curve one point longer each time.
  WindowChoice skipping(2);
  skipping.add(std::span<const CurvePoint>(curve.data(), 1));
  EXPECT_THROW(skipping.add(std::span<const CurvePoint>(curve.data(), 3)), LogicError);
}

TEST(Features, DescribeEachMoveFromTheMemoryOnly) {
  Tree tree({{0, 1}, {0, 2}, {2, 3}}, 10);
  tree.reset(1);
  // At 0: two untried moves.
  std::vector<Eigen::VectorXd> f = move_features(tree);
  ASSERT_EQ(f.size(), 2u);
  for (const auto& m : f) {
    ASSERT_EQ(m.size(), kMoveFeatures);
    EXPECT_EQ(m[0], 1);
    EXPECT_EQ(m[1], 1);    // untried
    EXPECT_EQ(m[5], 0);    // no known target
    EXPECT_EQ(m[6], 0.5);  // two untried moves here, / 4
    EXPECT_EQ(m[7], 0);    // no step spent
    EXPECT_EQ(m[8], 0);    // no move with its label taken yet
    EXPECT_EQ(m[9], 1);
  }
  tree.step(0);  // to 1, a leaf: its only move leads back to 0, which still has one untried
  f = move_features(tree);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0][1], 0);
  EXPECT_DOUBLE_EQ(f[0][3], std::log1p(1.0));  // 0 was visited once
  EXPECT_EQ(f[0][4], 1);                       // and has an untried move
  EXPECT_EQ(f[0][5], 1.0);                     // distance 0 to a frontier
  EXPECT_EQ(f[0][6], 0);
  EXPECT_DOUBLE_EQ(f[0][7], 0.1);
  const Eigen::VectorXd s = state_features(tree);
  ASSERT_EQ(s.size(), kStateFeatures);
  EXPECT_DOUBLE_EQ(s[2], 0.5);  // 2 of 4 nodes covered
  EXPECT_DOUBLE_EQ(s[3], 0.5);  // 1 of the 2 memory nodes has untried moves
  // Labels keep the episode's record: "to 1" was taken once and reached a new node; after the
  // move back ("to 0", nothing new), 0 offers "to 1" at 1 of 1 and "to 2" never taken.
  EXPECT_EQ(f[0][8], 0);
  EXPECT_EQ(f[0][9], 1);
  tree.step(0);
  f = move_features(tree);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(tree.moves()[0].label, "to 1");
  EXPECT_EQ(f[0][8], 1);
  EXPECT_EQ(f[0][9], 0);
  EXPECT_EQ(f[1][8], 0);
  EXPECT_EQ(f[1][9], 1);
}

}  // namespace
}  // namespace prowl::learn

namespace prowl::learn {
namespace {

// Σ_t dz_tᵀ log p_t over the first decisions of maze 4 taking move 0, the policy's carry passed
// on: with Σ dz_t = 0 it is Σ_t dz_tᵀ scores_t.
double episode_loss(const GraphPolicy& policy, const std::vector<Eigen::VectorXd>& dz) {
  auto maze = make_maze6(Mode::kVision);
  maze->reset(4);
  GraphPolicy::Carry carry;
  double loss = 0;
  for (const Eigen::VectorXd& d : dz) {
    GraphPolicy::Record r = policy.observe(*maze, carry);
    loss += d.dot(r.probabilities.array().log().matrix());
    carry = r.carry;
    maze->step(0);
  }
  return loss;
}

class GraphPolicyShapes
    : public ::testing::TestWithParam<std::tuple<GraphPolicy::Summary, bool, bool>> {};

// Without history the decisions are independent; with it the gradient flows back through the
// carry: both are checked over a whole episode.
TEST_P(GraphPolicyShapes, ItsGradientOverAnEpisodeMatchesFiniteDifferences) {
  const auto [summary, history, local] = GetParam();
  // With local information the moves' directions and, with history, the last move's are inputs.
  GraphPolicy policy({6, 2, 5, 8, summary, history, 4, local}, 3, 0.01);
  ASSERT_EQ(policy.recurrent(), history);
  // The skip starts at 0: away from it, so that its term's share of every score is checked too.
  ASSERT_EQ(policy.skip().size(), kMoveFeatures);
  policy.skip() = Eigen::VectorXd::LinSpaced(kMoveFeatures, -0.6, 0.9);
  // The records of four decisions, and a dz of zero sum for each.
  auto maze = make_maze6(Mode::kVision);
  maze->reset(4);
  std::vector<GraphPolicy::Record> records;
  std::vector<Eigen::VectorXd> dz;
  GraphPolicy::Carry carry;
  for (int t = 0; t < 4; ++t) {
    records.push_back(policy.observe(*maze, carry));
    carry = records.back().carry;
    Eigen::VectorXd d =
        Eigen::VectorXd::LinSpaced(records.back().probabilities.size(), -1, 1 + 0.3 * t);
    d.array() -= d.mean();
    dz.push_back(d);
    maze->step(0);
  }
  GraphPolicy::Gradient g;
  GraphPolicy::Carry d_carry;
  for (int t = 3; t >= 0; --t) policy.actor_gradient(records[t], dz[t], g, d_carry);
  ASSERT_EQ(g.encoder.size(), policy.encoder().parameters().size());
  ASSERT_EQ(g.lstm.size(), history ? policy.lstm().parameters().size() : 0);
  const auto check = [&](Eigen::VectorXd& parameters, const Eigen::VectorXd& analytic,
                         const std::string& part, Eigen::Index stride = 5) {
    for (Eigen::Index i = 0; i < analytic.size(); i += stride) {
      const double keep = parameters[i];
      parameters[i] = keep + 1e-6;
      const double up = episode_loss(policy, dz);
      parameters[i] = keep - 1e-6;
      const double down = episode_loss(policy, dz);
      parameters[i] = keep;
      EXPECT_NEAR(analytic[i], (up - down) / 2e-6, 1e-6) << part << " parameter " << i;
    }
  };
  check(policy.encoder().parameters(), g.encoder, "encoder");
  check(policy.lstm().parameters(), g.lstm, "lstm");
  ASSERT_EQ(g.skip.size(), kMoveFeatures);
  EXPECT_NE(g.skip.cwiseAbs().maxCoeff(), 0.0);
  check(policy.skip(), g.skip, "skip", 1);
}

INSTANTIATE_TEST_SUITE_P(GraphPoolAndNode, GraphPolicyShapes,
                         ::testing::Combine(::testing::Values(GraphPolicy::Summary::kGraph,
                                                              GraphPolicy::Summary::kPool,
                                                              GraphPolicy::Summary::kNode),
                                            ::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(summary_name(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) ? "_lstm" : "") +
                                  (std::get<2>(info.param) ? "_local" : "");
                         });

TEST(GraphPolicy, WithLocalInformationItSeesNoMoreThanTheMovesOwnNodeShows) {
  auto maze = make_maze6(Mode::kVision);
  maze->reset(4);
  for (int i = 0; i < 6 && !maze->done(); ++i) maze->step(0);
  const GraphPolicy full({6, 2, 5, 8}, 3, 0.01);
  GraphPolicy::Shape shape{6, 2, 5, 8};
  shape.local = true;
  const GraphPolicy local(shape, 3, 0.01);
  const GraphPolicy::Record a = full.observe(*maze), b = local.observe(*maze);
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  bool hidden_any = false;
  for (std::size_t m = 0; m < a.inputs.size(); ++m) {
    for (int f = 0; f < kMoveFeatures; ++f) {
      const bool shown = f != 3 && f != 4 && f != 5 && f != 8 && f != 9 && f != 10 && f != 11;
      EXPECT_EQ(b.inputs[m][f], shown ? a.inputs[m][f] : 0.0) << "move " << m << ", feature " << f;
      hidden_any = hidden_any || (!shown && a.inputs[m][f] != 0);
    }
  }
  EXPECT_TRUE(hidden_any);  // this view has something to hide
  // Each move's direction follows its features, one-hot (north, east, south, west); the policy
  // with full information has no such inputs.
  for (std::size_t m = 0; m < b.inputs.size(); ++m) {
    const std::string& label = maze->moves()[m].label;
    Eigen::VectorXd direction = Eigen::VectorXd::Zero(4);
    direction[label == "north" ? 0 : label == "east" ? 1 : label == "south" ? 2 : 3] = 1;
    EXPECT_EQ(b.inputs[m].segment(kMoveFeatures, 4), direction) << "move " << m << ": " << label;
    EXPECT_EQ(b.inputs[m].size(), a.inputs[m].size() + 4);
  }
  EXPECT_GT(a.graph.features.row(5).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(b.graph.features.row(5).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(b.graph.features.topRows(5), a.graph.features.topRows(5));
  EXPECT_EQ(b.targets, a.targets);  // the graph variant sees the targets' embeddings
  shape.summary = GraphPolicy::Summary::kNode;
  const GraphPolicy node(shape, 3, 0.01);
  const GraphPolicy::Record c = node.observe(*maze);
  EXPECT_NE(std::count(a.targets.begin(), a.targets.end(), -1), std::ssize(a.targets));
  EXPECT_EQ(c.targets, std::vector<int>(a.targets.size(), -1));  // the node variant does not
  for (const Eigen::VectorXd& input : c.inputs) {
    EXPECT_EQ(input.segment(kMoveFeatures + 4 + 6, 6), Eigen::VectorXd::Zero(6));
  }
  // The pool variant sees them, as members of its set.
  shape.summary = GraphPolicy::Summary::kPool;
  const GraphPolicy pool(shape, 3, 0.01);
  const GraphPolicy::Record e = pool.observe(*maze);
  EXPECT_EQ(e.targets, a.targets);
  for (std::size_t m = 0; m < e.inputs.size(); ++m) {
    EXPECT_EQ(e.inputs[m].segment(kMoveFeatures + 4 + 6, 6) == Eigen::VectorXd::Zero(6),
              e.targets[m] < 0)
        << "move " << m;
  }
}

// Without and with the LSTM history (trained through time).
TEST(GraphPolicy, LearnsTheChainAndTrainsTheSameWeightsOnOneOrTwoThreads) {
  for (const bool history : {false, true}) {
    Tree chain({{0, 1}, {1, 2}, {2, 3}, {3, 4}}, 4);
    GraphPolicy policy({8, 2, 8, 16, GraphPolicy::Summary::kGraph, history, 8}, 3, 0.02);
    A2cOptions options;
    options.updates = 100;
    options.envs = 8;
    train_a2c(chain, policy, options);
    chain.reset(1);
    EXPECT_EQ(run_policy(chain, policy), 1.0) << "history " << history;
    EXPECT_EQ(chain.steps(), 4);
    const GraphPolicy::Shape shape{6, 2, 5, 8, GraphPolicy::Summary::kPool, history, 4};
    auto train = [&](int threads) {
      auto maze = make_maze6(Mode::kVision);
      GraphPolicy p(shape, 5, 0.02);
      A2cOptions o;
      o.updates = 3;
      o.envs = 3;
      o.threads = threads;
      train_a2c(*maze, p, o);
      return std::tuple{p.encoder().parameters(), p.lstm().parameters(), p.skip()};
    };
    const auto one = train(1);
    EXPECT_EQ(one, train(2)) << "history " << history;
    // Training moved the LSTM when there is one, and the skip.
    EXPECT_EQ(std::get<1>(one) != GraphPolicy(shape, 5, 0.02).lstm().parameters(), history);
    EXPECT_NE(std::get<2>(one), GraphPolicy(shape, 5, 0.02).skip());
  }
}

}  // namespace
}  // namespace prowl::learn

namespace prowl::learn {
namespace {

TEST(GraphPolicy, ItsPolicyFileReadsBackTheSamePolicy) {
  auto maze = make_maze6(Mode::kVision);
  GraphPolicy policy({6, 2, 5, 8}, 3, 0.01);
  A2cOptions options;
  options.updates = 2;
  options.envs = 4;
  train_a2c(*maze, policy, options);
  const PolicyFile file = to_policy_file(policy, *maze, {{"seed", "3"}});
  Result<PolicyFile> read = parse_policy(write_policy(file), "g.policy");
  ASSERT_TRUE(read) << read.status().message();
  Result<AnyPolicy> loaded = policy_from_file(*read, *maze, "g.policy");
  ASSERT_TRUE(loaded) << loaded.status().message();
  const GraphPolicy& back = std::get<GraphPolicy>(*loaded);
  EXPECT_EQ(back.shape().hidden, 6);
  EXPECT_EQ(back.shape().rounds, 2);
  EXPECT_EQ(back.shape().readout, 5);
  EXPECT_EQ(back.shape().head, 8);
  EXPECT_EQ(back.encoder().parameters(), policy.encoder().parameters());
  EXPECT_TRUE(back.shape().skip);
  EXPECT_EQ(policy_header(file, "skip"), "linear");
  ASSERT_EQ(policy.skip().size(), kMoveFeatures);
  EXPECT_NE(policy.skip().cwiseAbs().maxCoeff(), 0.0);  // training moved it
  EXPECT_EQ(back.skip(), policy.skip());
  maze->reset(77);
  for (int i = 0; i < 10 && !maze->done(); ++i) {
    EXPECT_EQ(back.probabilities(*maze), policy.probabilities(*maze)) << "step " << i;
    maze->step(policy.greedy(*maze));
  }
}

TEST(GraphPolicy, ItsPolicyFileIsCheckedAgainstItsShape) {
  auto maze = make_maze6(Mode::kVision);
  const GraphPolicy policy({6, 2, 5, 8}, 3, 0.01);
  const auto error = [&](const std::function<void(PolicyFile&)>& change) {
    PolicyFile file = to_policy_file(policy, *maze, {});
    change(file);
    Result<AnyPolicy> loaded = policy_of(file, "g.policy");
    return loaded ? std::string() : loaded.status().message();
  };
  const auto set = [](PolicyFile& file, const std::string& key, const std::string& value) {
    for (auto& [k, v] : file.header) {
      if (k == key) v = value;
    }
  };
  EXPECT_EQ(error([](PolicyFile&) {}), "");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "node_features", "nodes-v0"); }),
            "g.policy: the graph policy reads node features nodes-v0; this prowl computes "
            "nodes-v1: train it again with this prowl");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "rounds", "zero"); }),
            "g.policy: a graph policy needs hidden= and readout= (1 to 4096), rounds= (0 to 4096) "
            "and a head of one hidden layer: train it again with prowl train");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "hidden", "7"); }),
            "g.policy: the graph policy's head takes 29 inputs, not 31 (the move features, two "
            "hidden= wide embeddings and its summary)");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "summary", "lstm"); }),
            "g.policy: unknown summary=lstm; a graph policy's summary is graph, pool or node");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "summary", "pool"); }),
            "g.policy: the graph policy's head takes 29 inputs, not 30 (the move features, two "
            "hidden= wide embeddings and its summary)");
  EXPECT_EQ(error([](PolicyFile& f) { f.vectors[0].second.conservativeResize(3); }),
            "g.policy: a graph policy ends with 'vector encoder " +
                std::to_string(policy.encoder().parameters().size()) +
                "' and 'vector skip 12' for its shape, and nothing else");
  EXPECT_EQ(error([](PolicyFile& f) { f.vectors.pop_back(); }),
            "g.policy: a graph policy ends with 'vector encoder " +
                std::to_string(policy.encoder().parameters().size()) +
                "' and 'vector skip 12' for its shape, and nothing else");
  EXPECT_EQ(error([](PolicyFile& f) { std::swap(f.vectors[0], f.vectors[1]); }),
            "g.policy: a graph policy ends with 'vector encoder " +
                std::to_string(policy.encoder().parameters().size()) +
                "' and 'vector skip 12' for its shape, and nothing else");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "skip", "mlp"); }),
            "g.policy: unknown skip=mlp; a graph policy's skip is none or linear");
  // A file of before the skip: none, and no skip vector.
  EXPECT_EQ(error([](PolicyFile& f) {
              std::erase_if(f.header, [](const auto& kv) { return kv.first == "skip"; });
            }),
            "g.policy: a graph policy ends with 'vector encoder " +
                std::to_string(policy.encoder().parameters().size()) +
                "' for its shape, and nothing else");
  {
    PolicyFile old = to_policy_file(policy, *maze, {});
    std::erase_if(old.header, [](const auto& kv) { return kv.first == "skip"; });
    old.vectors.pop_back();
    Result<AnyPolicy> loaded = policy_of(old, "old.policy");
    ASSERT_TRUE(loaded) << loaded.status().message();
    EXPECT_FALSE(std::get<GraphPolicy>(*loaded).shape().skip);
    EXPECT_EQ(std::get<GraphPolicy>(*loaded).skip().size(), 0);
  }
  // A small file claiming a huge encoder is refused before anything of its size is built.
  EXPECT_EQ(
      error([&](PolicyFile& f) {
        set(f, "hidden", "4096");
        set(f, "readout", "1");
        f.network = Mlp(std::vector<int>{kMoveFeatures + 2 * 4096 + 1, 1, 1}, Activation::kTanh, 1);
      }),
      "g.policy: a graph policy ends with 'vector encoder " +
          std::to_string(Ggnn::parameter_count({kNodeFeatures, 4096, 2, 2, 1})) +
          "' and 'vector skip 12' for its shape, and nothing else");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "kind", "tree-policy"); }),
            "g.policy: not a policy prowl train wrote (kind=tree-policy, expected move-policy or "
            "graph-policy): train one with prowl train");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "history", "gru"); }),
            "g.policy: unknown history=gru; a graph policy's history is none or lstm");
  EXPECT_EQ(error([&](PolicyFile& f) { set(f, "information", "all"); }),
            "g.policy: unknown information=all; a graph policy's information is full or local");
  // A file of before the history: none.
  EXPECT_EQ(error([](PolicyFile& f) {
              std::erase_if(f.header, [](const auto& kv) { return kv.first == "history"; });
            }),
            "");
}

TEST(GraphPolicy, WithHistoryItsPolicyFileReadsBackTheSameDecisions) {
  auto maze = make_maze6(Mode::kBump);
  // As the ablation trains one with local information: no skip.
  GraphPolicy policy({6, 0, 5, 8, GraphPolicy::Summary::kNode, true, 3, true, false}, 3, 0.01);
  A2cOptions options;
  options.updates = 2;
  options.envs = 4;
  train_a2c(*maze, policy, options);
  const PolicyFile file = to_policy_file(policy, *maze, {});
  EXPECT_EQ(policy_header(file, "history"), "lstm");
  EXPECT_EQ(policy_header(file, "lstm"), "3");
  EXPECT_EQ(policy_header(file, "skip"), "none");
  ASSERT_EQ(file.vectors.size(), 2u);
  EXPECT_EQ(file.vectors[1].first, "lstm");
  Result<PolicyFile> read = parse_policy(write_policy(file), "h.policy");
  ASSERT_TRUE(read) << read.status().message();
  Result<AnyPolicy> loaded = policy_from_file(*read, *maze, "h.policy");
  ASSERT_TRUE(loaded) << loaded.status().message();
  const GraphPolicy& back = std::get<GraphPolicy>(*loaded);
  ASSERT_TRUE(back.recurrent());
  EXPECT_EQ(back.shape().lstm, 3);
  EXPECT_EQ(back.shape().rounds, 0);
  EXPECT_TRUE(back.shape().local);
  EXPECT_FALSE(back.shape().skip);
  EXPECT_EQ(back.lstm().parameters(), policy.lstm().parameters());
  maze->reset(77);
  GraphPolicy::Carry a, b;
  for (int i = 0; i < 10 && !maze->done(); ++i) {
    const GraphPolicy::Record ra = policy.observe(*maze, a), rb = back.observe(*maze, b);
    EXPECT_EQ(ra.probabilities, rb.probabilities) << "step " << i;
    a = ra.carry;
    b = rb.carry;
    maze->step(static_cast<std::size_t>(i) % maze->moves().size());
  }
  // The carry changes the decision: the same view after another history scores otherwise.
  maze->reset(77);
  EXPECT_NE(policy.observe(*maze, a).scores, policy.observe(*maze).scores);
  const auto error = [&](const std::function<void(PolicyFile&)>& change) {
    PolicyFile f = file;
    change(f);
    Result<AnyPolicy> p = policy_of(f, "h.policy");
    return p ? std::string() : p.status().message();
  };
  const std::string expected = "h.policy: a graph policy ends with 'vector encoder " +
                               std::to_string(policy.encoder().parameters().size()) +
                               "' and 'vector lstm " +
                               std::to_string(Lstm::parameter_count(6 + 4, 3)) +  // + direction
                               "' for its shape, and nothing else";
  EXPECT_EQ(error([](PolicyFile& f) { f.vectors.pop_back(); }), expected);
  EXPECT_EQ(error([](PolicyFile& f) { f.vectors[1].second.conservativeResize(5); }), expected);
  EXPECT_EQ(error([](PolicyFile& f) {
              std::erase_if(f.header, [](const auto& kv) { return kv.first == "lstm"; });
            }),
            "h.policy: a graph policy with history=lstm needs lstm= (1 to 4096): train it again "
            "with prowl train");
}

// Started from a linear policy, the graph policy scores every move as the linear one does, but
// for the linear scorer's bias, which softmax cancels: the same probabilities.
TEST(GraphPolicy, StartedFromALinearPolicyItDecidesAsThatPolicy) {
  auto maze = make_maze6(Mode::kBump);
  MovePolicy linear({}, 7, 0.05);
  A2cOptions options;
  options.updates = 5;
  options.envs = 4;
  train_a2c(*maze, linear, options);
  GraphPolicy graph({6, 2, 5, 8}, 3, 0.01);
  // Before: its own random head decides otherwise somewhere along the walk.
  double apart = 0;
  maze->reset(12);
  for (int i = 0; i < 20 && !maze->done(); ++i) {
    apart = std::max(
        apart, (graph.probabilities(*maze) - linear.probabilities(*maze)).cwiseAbs().maxCoeff());
    maze->step(static_cast<std::size_t>(i * 7) % maze->moves().size());
  }
  EXPECT_GT(apart, 1e-3);
  start_from(graph, linear);
  EXPECT_EQ(graph.skip(), linear.scorer().layers()[0].weights.row(0).transpose());
  maze->reset(12);
  for (int i = 0; i < 20 && !maze->done(); ++i) {
    const Eigen::VectorXd p = graph.probabilities(*maze), q = linear.probabilities(*maze);
    ASSERT_EQ(p.size(), q.size());
    EXPECT_LT((p - q).cwiseAbs().maxCoeff(), 1e-12) << "step " << i;
    EXPECT_EQ(graph.greedy(*maze), linear.greedy(*maze)) << "step " << i;
    maze->step(static_cast<std::size_t>(i * 7) % maze->moves().size());
  }
  // A policy without skip, or a scorer with a hidden layer, cannot start so.
  GraphPolicy::Shape plain{6, 2, 5, 8};
  plain.skip = false;
  GraphPolicy no_skip(plain, 3, 0.01);
  EXPECT_THROW(start_from(no_skip, linear), LogicError);
  EXPECT_THROW(start_from(graph, MovePolicy({4}, 7, 0.05)), LogicError);
}

// train_graph_policy: the linear stage is the linear policy train_a2c trains with the same
// options, the graph stage starts from it, and progress sees the stages in order.
TEST(GraphPolicy, TrainGraphPolicyStartsFromTheLinearStage) {
  auto maze = make_maze6(Mode::kBump);
  A2cOptions options;
  options.updates = 2;
  options.envs = 3;
  options.seed = 4;
  std::vector<std::pair<int, bool>> seen;
  MovePolicy linear({}, 99, 0.05);
  GraphPolicy graph({6, 2, 5, 8}, 4, 0.01);
  const GraphCurves curves = train_graph_policy(
      *maze, graph, options, 3,
      [&](const CurvePoint& p, bool is_linear) {
        seen.emplace_back(p.update, is_linear);
        return true;
      },
      &linear);
  EXPECT_EQ(seen, (std::vector<std::pair<int, bool>>{
                      {1, true}, {2, true}, {3, true}, {1, false}, {2, false}}));
  EXPECT_EQ(curves.linear.size(), 3u);
  EXPECT_EQ(curves.graph.size(), 2u);
  MovePolicy alone({}, 4, 0.05);
  A2cOptions first = options;
  first.updates = 3;
  const auto alone_curve = train_a2c(*maze, alone, first);
  EXPECT_EQ(linear.scorer().layers()[0].weights, alone.scorer().layers()[0].weights);
  EXPECT_EQ(curves.linear.back().coverage, alone_curve.back().coverage);
  // With no graph updates the graph policy is the linear start itself.
  options.updates = 0;
  GraphPolicy started({6, 2, 5, 8}, 4, 0.01);
  train_graph_policy(*maze, started, options, 3);
  EXPECT_EQ(started.skip(), alone.scorer().layers()[0].weights.row(0).transpose());
  // A progress that says stop in the linear stage leaves the graph stage out.
  GraphPolicy stopped({6, 2, 5, 8}, 4, 0.01);
  options.updates = 2;
  const GraphCurves cut = train_graph_policy(
      *maze, stopped, options, 3,
      [](const CurvePoint& p, bool is_linear) { return !(is_linear && p.update == 2); });
  EXPECT_EQ(cut.linear.size(), 2u);
  EXPECT_TRUE(cut.graph.empty());
}

}  // namespace
}  // namespace prowl::learn
