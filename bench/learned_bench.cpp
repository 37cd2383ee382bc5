// learned_bench: exploration policies on the graph distributions of GMetaExp (seed 002,
// docs/learned.md), over held-out graphs and seeds, beside the paper's figures. Lines:
//
//   RESULT env=E mode=M policy=P coverage=MEAN ci=HALF_WIDTH graphs=G seeds=S
//   PAPER env=E policy=P coverage=C (what the paper or the calibration reports)
//   DIFF env=E mode=M a=P b=Q difference=D ci=HALF_WIDTH above_zero=yes|no (P − Q, paired by
//        graph: the interval is over the graphs' differences)
//
// usage: learned_bench [--env maze6,er-app] [--modes vision,bump] [--graphs G] [--seeds S]
//                      [--seed FIRST] [--updates U] [--linear-updates LU] [--rounds R]
//                      [--ablation 0|1|local] [--per-graph E] [--train-seed T] [--envs N]
//                      [--entropy W] [--graph-lr L] [--ablation-seeds K]
//                      [--keep-best-window B]
// --ablation 1 adds the history summaries of the paper's Tables 5-6: the graph policy with the
// node's embedding only (node-nonAR), the mean of the node embeddings (pool-nonAR), and the
// attention readout (graph-nonAR: `learned`'s network, trained here as the other variants are,
// with their seeds); and each with an LSTM over the steps'
// summaries feeding the head instead (node-AR, pool-AR, graph-AR), with the DIFF lines of the
// order Table 5 reports. --ablation local trains all six with only the information the paper's
// variants get (GraphPolicy::Shape::local; node and pool without message passing, node without
// the moves' targets). --ablation-seeds K (default 1) trains each variant K times, at training
// seeds T .. T+K-1, and scores a graph by the mean of the K policies' runs on it, so that the
// rows and their DIFF lines average over training as well as over graphs; a row's
// by_training_seed= lists each seed's mean, with its training curve's first and last tenth.
// Each variant also gets a ROW-sampled row: its moves drawn from its probabilities, as in
// training, S runs a graph. --keep-best-window B (default 0) trains every learned row with
// A2cOptions::keep_best_window = B: each keeps the policy after its best B consecutive training
// updates, by the training curve, instead of the last one (fine-tuning keeps its best greedy
// run on the graph, as before).
// `learned` is the graph policy (prowl/learn/graph_policy.hpp, R message-passing rounds, default
// 3), trained as prowl trains one (train_graph_policy): started from the `linear` row's policy and
// trained U updates further (LU 0: from its own first weights, for U updates).
// `qtable` is tabular Q-learning trained on each held-out graph itself (E episodes, default
// 1,000) with the node id as its state, the paper's fine-tuning baseline, reporting the best
// greedy run it reaches; `qtable_history` the same with the whole state of the episode (node,
// step, visited set, back stack), stronger than the paper's. `linear` is the linear softmax over
// move features trained by A2C (LU updates of N episodes, default 2,000, on training graphs
// disjoint from the held-out ones; training seed T, default 1), then run greedily once per
// held-out graph.
// `linear_finetuned` and `learned_finetuned` go on training a copy on each held-out graph alone
// (E episodes, in updates of N), then run greedily with the weights of the best greedy run after
// an update (the zero-shot one included), as qtable reports its best. --per-graph 0 leaves out
// these four rows.
// Training: N episodes per update (16), entropy weight W (0.003), the graph policy's Adam rate L
// (0.01; the linear one's is 0.05). The ablation's variants are trained as `learned` is, but
// with local information (no linear start: the linear control would see more than they may).
// Graph g (g = 0 .. G-1) is reset(FIRST + g); policy seed s of it is FIRST·1000 + g·S + s. The 95%
// interval is 1.96 standard errors over the G·S episodes.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "list_flag.hpp"

#include "prowl/learn/a2c.hpp"
#include "prowl/learn/baselines.hpp"
#include "prowl/learn/env.hpp"
#include "prowl/learn/evaluate.hpp"

namespace {

using prowl::learn::Env;
using prowl::learn::Mode;

struct Paper {
  const char* env;
  const char* policy;
  const char* coverage;
};

// GMetaExp's Table 2 (MAZE6), Table 4 (ER-APP), and the Python calibration (1,000 mazes).
const Paper kPaper[] = {
    {"maze6", "random", "0.329 (paper); calibration: vision 0.26, bump 0.23"},
    {"maze6", "randdfs", "0.539 (paper); calibration: vision 0.72, bump 0.54"},
    {"maze6", "greedy", "calibration: vision 0.72, bump 0.54"},
    {"maze6", "learned", "0.7160 (GMetaExp, 1-layer features), 0.7340 (2-layer)"},
    {"er-app", "randdfs", "0.52 (paper, real apps)"},
    {"er-app", "qtable", "0.60 (paper: tabular Q fine-tuned on each app)"},
    {"er-app", "learned", "0.65 zero-shot (paper, real apps)"},
    {"er-app", "learned_finetuned", "0.68 fine-tuned (paper, real apps)"},
    {"maze6", "node-nonAR", "0.3363 (Table 5, 1-layer features), 0.3409 (Table 6, 2-layer)"},
    {"maze6", "pool-nonAR", "0.4151 (Table 5), 0.5217 (Table 6)"},
    {"maze6", "graph-nonAR", "0.6634 (Table 5), 0.6780 (Table 6)"},
    {"maze6", "node-AR", "0.6603 (Table 5), 0.7063 (Table 6)"},
    {"maze6", "pool-AR", "0.6671 (Table 5), 0.7074 (Table 6)"},
    {"maze6", "graph-AR", "0.7160 (Table 5), 0.7340 (Table 6)"},
};

int usage() {
  std::fprintf(stderr,
               "usage: learned_bench [--env maze6,er-app] [--modes vision,bump] [--graphs G] "
               "[--seeds S] [--seed FIRST] [--updates U] [--linear-updates LU] [--rounds R] "
               "[--ablation 0|1|local] [--per-graph E] [--train-seed T] [--envs N] [--entropy W] "
               "[--graph-lr L] [--ablation-seeds K] [--keep-best-window B]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string envs = "maze6,er-app", modes = "vision,bump";
  long graphs = 100, seeds = 5, first = 1000, updates = 300, rounds = 3, ablation = 0,
       ablation_seeds = 1, keep_window = 0;
  // The episodes qtable and the fine-tuned policies get on each held-out graph (0: none of them).
  long per_graph = 1000, train_seed = 1, envs_per_update = 16,
       linear_updates = prowl::learn::kLinearStartUpdates;
  double entropy = prowl::learn::A2cOptions{}.entropy, graph_lr = 0.01;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    char* end = nullptr;
    if (flag == "--env") {
      envs = argv[i + 1];
    } else if (flag == "--modes") {
      modes = argv[i + 1];
    } else if (flag == "--entropy" || flag == "--graph-lr") {
      const double value = std::strtod(argv[i + 1], &end);
      if (end == argv[i + 1] || *end != '\0' || !std::isfinite(value) || value < 0 ||
          (flag == "--graph-lr" && value == 0)) {
        return usage();
      }
      (flag == "--entropy" ? entropy : graph_lr) = value;
    } else if (flag == "--ablation") {
      const std::string value = argv[i + 1];
      if (value != "0" && value != "1" && value != "local") return usage();
      ablation = value == "0" ? 0 : value == "1" ? 1 : 2;
    } else if (flag == "--graphs" || flag == "--seeds" || flag == "--seed" || flag == "--updates" ||
               flag == "--rounds" || flag == "--per-graph" || flag == "--train-seed" ||
               flag == "--envs" || flag == "--linear-updates" || flag == "--ablation-seeds" ||
               flag == "--keep-best-window") {
      const long value = std::strtol(argv[i + 1], &end, 10);
      const bool zero = flag == "--seed" || flag == "--per-graph" || flag == "--linear-updates" ||
                        flag == "--keep-best-window";
      if (end == argv[i + 1] || *end != '\0' || value < (zero ? 0 : 1) ||
          (flag != "--seed" && flag != "--train-seed" && value > INT_MAX) ||
          (flag == "--train-seed" && value >= static_cast<long>(prowl::learn::kMaxTrainingSeed)) ||
          (flag == "--ablation-seeds" && value > 100)) {
        return usage();
      }
      (flag == "--graphs"             ? graphs
       : flag == "--seeds"            ? seeds
       : flag == "--updates"          ? updates
       : flag == "--rounds"           ? rounds
       : flag == "--seed"             ? first
       : flag == "--per-graph"        ? per_graph
       : flag == "--envs"             ? envs_per_update
       : flag == "--linear-updates"   ? linear_updates
       : flag == "--ablation-seeds"   ? ablation_seeds
       : flag == "--keep-best-window" ? keep_window
                                      : train_seed) = value;
    } else {
      return usage();
    }
  }
  if (argc % 2 == 0) return usage();
  if (train_seed + ablation_seeds > static_cast<long>(prowl::learn::kMaxTrainingSeed)) {
    return usage();
  }
  using Run = std::function<double(Env&, std::uint64_t)>;
  std::vector<std::pair<std::string, Run>> policies = {
      {"random", prowl::learn::run_random},
      {"randdfs", prowl::learn::run_randdfs},
      {"greedy", prowl::learn::run_greedy},
      {"qtable",
       [per_graph](Env& env, std::uint64_t seed) {
         return prowl::learn::run_qtable(
             env, seed, {prowl::learn::QState::kNode, static_cast<int>(per_graph)});
       }},
      {"qtable_history",
       [per_graph](Env& env, std::uint64_t seed) {
         return prowl::learn::run_qtable(
             env, seed, {prowl::learn::QState::kHistory, static_cast<int>(per_graph)});
       }},
  };
  if (per_graph == 0) policies.resize(3);
  for (const std::string& name : bench::split_list(envs)) {
    for (const std::string& mode_text : bench::split_list(modes)) {
      const std::optional<Mode> mode = prowl::learn::parse_mode(mode_text);
      if (!mode) return usage();
      auto env = prowl::learn::make_env(name, *mode);
      if (!env) {
        if (name == "er-app" && *mode == Mode::kBump) continue;  // er-app has one mode
        std::fprintf(stderr, "learned_bench: %s\n", env.status().message().c_str());
        return 2;
      }
      std::map<std::string, std::vector<double>> means;  // by policy: each graph's mean
      const auto print = [&](const std::string& policy, const std::vector<double>& by_graph,
                             int policy_seeds, const std::string& extra) {
        means[policy] = by_graph;
        const prowl::learn::Score score = prowl::learn::score_of(by_graph, policy_seeds);
        fmt::print(
            "RESULT env={} mode={} policy={} coverage={:.4f} ci={:.4f} graphs={} seeds={}{}\n",
            name, mode_text, policy, score.mean, score.half_width, graphs, policy_seeds, extra);
        for (const Paper& p : kPaper) {
          if (name == p.env && policy == p.policy) {
            fmt::print("PAPER env={} policy={} coverage={}\n", p.env, p.policy, p.coverage);
          }
        }
        std::fflush(stdout);
      };
      for (const auto& [policy, run] : policies) {
        print(policy,
              prowl::learn::graph_means(**env, run, static_cast<int>(graphs),
                                        static_cast<int>(seeds), static_cast<std::uint64_t>(first)),
              static_cast<int>(seeds), "");
      }
      if ((*env)->has_back() || name == "er-app") {
        // The offline optimum (the graph known): the ceiling of every policy.
        const prowl::learn::Runner optimum = [](Env& e, std::uint64_t) {
          return prowl::learn::optimal_coverage(e);
        };
        print("optimum",
              prowl::learn::graph_means(**env, optimum, static_cast<int>(graphs), 1,
                                        static_cast<std::uint64_t>(first)),
              1, "");
      }
      // The learned policies, trained by A2C on other graphs and run greedily (one run per
      // held-out graph: they are deterministic).
      prowl::learn::A2cOptions options;
      options.updates = static_cast<int>(updates);
      options.threads = 2;
      options.seed = static_cast<std::uint64_t>(train_seed);
      options.envs = static_cast<int>(envs_per_update);
      options.entropy = entropy;
      options.keep_best_window = static_cast<int>(keep_window);
      // A trained policy's row, then its fine-tuned row.
      const auto learned = [&](const std::string& policy_name, auto& policy,
                               const std::vector<prowl::learn::CurvePoint>& curve) {
        const prowl::learn::Runner greedy = [&policy](Env& e, std::uint64_t) {
          return prowl::learn::run_policy(e, policy);
        };
        print(policy_name,
              prowl::learn::graph_means(**env, greedy, static_cast<int>(graphs), 1,
                                        static_cast<std::uint64_t>(first)),
              1,
              fmt::format(" trained={}x{} last_train_coverage={:.4f} keep_best_window={}",
                          curve.size(), options.envs, curve.back().coverage,
                          options.keep_best_window));
        // Fine-tuned: a copy goes on training on each held-out graph alone for as many episodes
        // as qtable gets there (1,000 by default, in updates of N), then runs greedily on it,
        // with the weights of its best greedy run there after an update (keep_best), as qtable
        // reports the best greedy run it reaches.
        if (per_graph == 0) return;
        prowl::learn::A2cOptions tune = options;
        tune.updates = (static_cast<int>(per_graph) + tune.envs - 1) / tune.envs;
        tune.keep_best = true;
        const prowl::learn::Runner tuned = [&](Env& e, std::uint64_t seed) {
          auto copy = policy;
          tune.graph = e.graph_seed();
          tune.seed = seed % prowl::learn::kMaxTrainingSeed;
          prowl::learn::train_a2c(e, copy, tune);
          e.reset(*tune.graph);
          return prowl::learn::run_policy(e, copy);
        };
        print(policy_name + "_finetuned",
              prowl::learn::graph_means(**env, tuned, static_cast<int>(graphs), 1,
                                        static_cast<std::uint64_t>(first)),
              1, fmt::format(" tuned={}x{} per graph", tune.updates, tune.envs));
      };
      // The linear softmax over move features, and the graph policy (Ggnn over the memory)
      // started from it.
      prowl::learn::MovePolicy linear({}, options.seed, 0.05);
      prowl::learn::GraphPolicy graph({16, static_cast<int>(rounds), 16, 32}, options.seed,
                                      graph_lr);
      const prowl::learn::GraphCurves curves = prowl::learn::train_graph_policy(
          **env, graph, options, static_cast<int>(linear_updates), {}, &linear);
      if (linear_updates > 0) learned("linear", linear, curves.linear);
      learned("learned", graph, curves.graph);
      // The acceptance's comparisons, paired graph by graph.
      const std::pair<const char*, const char*> pairs[] = {
          {"learned", "randdfs"}, {"learned", "greedy"},
          {"learned", "qtable"},  {"learned", "qtable_history"},
          {"linear", "qtable"},   {"learned_finetuned", "learned"},
          {"linear", "randdfs"},  {"linear_finetuned", "linear"}};
      const auto print_difference = [&](const char* a, const char* b) {
        const prowl::learn::Score d = prowl::learn::difference(means[a], means[b]);
        fmt::print("DIFF env={} mode={} a={} b={} difference={:+.4f} ci={:.4f} above_zero={}\n",
                   name, mode_text, a, b, d.mean, d.half_width,
                   d.mean - d.half_width > 0 ? "yes" : "no");
      };
      for (const auto& [a, b] : pairs) {
        if (means.count(a) && means.count(b)) print_difference(a, b);
      }
      if (ablation == 0) continue;
      using Summary = prowl::learn::GraphPolicy::Summary;
      for (const bool history : {false, true}) {
        for (Summary summary : {Summary::kNode, Summary::kPool, Summary::kGraph}) {
          const std::string row =
              std::string(prowl::learn::summary_name(summary)) + (history ? "-AR" : "-nonAR");
          const bool local = ablation == 2;
          // With local information node and pool get no message passing (docs/learned.md).
          const int r = local && summary != Summary::kGraph ? 0 : static_cast<int>(rounds);
          // Each graph's coverage, averaged over the variant's training seeds.
          std::vector<double> by_graph(static_cast<std::size_t>(graphs), 0.0);
          std::vector<double> sampled_by_graph(static_cast<std::size_t>(graphs), 0.0);
          std::string by_seed;  // each training seed's mean coverage
          for (long k = 0; k < ablation_seeds; ++k) {
            prowl::learn::A2cOptions trained = options;
            trained.seed = options.seed + static_cast<std::uint64_t>(k);
            prowl::learn::GraphPolicy variant({16, r, 16, 32, summary, history, 16, local, !local},
                                              trained.seed, graph_lr);
            // Each with full information starts from the `linear` row's policy (trained at the
            // first training seed).
            if (!local && linear_updates > 0) prowl::learn::start_from(variant, linear);
            const std::vector<prowl::learn::CurvePoint> curve =
                prowl::learn::train_a2c(**env, variant, trained);
            // The training curve's first and last tenth, beside the greedy runs' mean.
            const auto tenth = [&](bool last) {
              const std::size_t n = std::max<std::size_t>(1, curve.size() / 10);
              double sum = 0;
              for (std::size_t i = 0; i < n; ++i) {
                sum += curve[last ? curve.size() - n + i : i].coverage;
              }
              return sum / static_cast<double>(n);
            };
            const prowl::learn::Runner greedy = [&variant](Env& e, std::uint64_t) {
              return prowl::learn::run_policy(e, variant);
            };
            const std::vector<double> runs = prowl::learn::graph_means(
                **env, greedy, static_cast<int>(graphs), 1, static_cast<std::uint64_t>(first));
            // The same policy with each move drawn from its probabilities, as in training: S
            // runs a graph, at the baselines' policy seeds.
            const prowl::learn::Runner sampled = [&variant](Env& e, std::uint64_t seed) {
              return prowl::learn::run_policy_sampled(e, variant, seed);
            };
            const std::vector<double> sampled_runs = prowl::learn::graph_means(
                **env, sampled, static_cast<int>(graphs), static_cast<int>(seeds),
                static_cast<std::uint64_t>(first));
            for (std::size_t g = 0; g < runs.size(); ++g) {
              by_graph[g] += runs[g] / static_cast<double>(ablation_seeds);
              sampled_by_graph[g] += sampled_runs[g] / static_cast<double>(ablation_seeds);
            }
            by_seed += fmt::format("{}{:.4f}(train:{:.3f}->{:.3f})", k == 0 ? "" : ",",
                                   prowl::learn::score_of(runs, 1).mean, tenth(false), tenth(true));
          }
          print(row, by_graph, 1,
                fmt::format(
                    " trained={}x{} training_seeds={} keep_best_window={} by_training_seed={}",
                    options.updates, options.envs, ablation_seeds, keep_window, by_seed));
          print(row + "-sampled", sampled_by_graph, static_cast<int>(seeds),
                fmt::format(" training_seeds={} keep_best_window={}", ablation_seeds, keep_window));
        }
      }
      // The order Table 5 reports: graph-AR > graph-nonAR > pool-nonAR > node-nonAR.
      print_difference("graph-AR", "graph-nonAR");
      print_difference("graph-nonAR", "pool-nonAR");
      print_difference("pool-nonAR", "node-nonAR");
      print_difference("graph-AR-sampled", "graph-nonAR-sampled");
      print_difference("graph-nonAR-sampled", "pool-nonAR-sampled");
      print_difference("pool-nonAR-sampled", "node-nonAR-sampled");
    }
  }
  return 0;
}
