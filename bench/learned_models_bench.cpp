// learned_models_bench: the learned strategy on real prowl models (docs/learned.md, "Real
// models"), beside random, coverage and mcts, with the same step budget and seeds. Lines:
//
//   TRAIN policy=P env=E graphs=G updates=U seconds=X coverage=C
//   RESULT model=M strategy=S seeds=N states=MEDIAN states_mean=MEAN ci=HALF_WIDTH
//          bugs_all=K/N first_finding=MEDIAN steps_per_s=R
//
// usage: learned_models_bench [--seeds 20] [--max-steps 2000] [--updates 100]
//                             [--models counters,orders,philo] [--no-shop]
//
// Two linear move policies (prowl/learn/a2c.hpp) are trained first: `er` on er-app graphs (the
// paper's distribution), `models` on the state graphs of the bench's orders and philo models at
// other, smaller parameters (prowl/learn/model_env.hpp, T = 200). Each then explores, zero-shot,
// counters (K = 6, N = 10), orders and philo at their SPIN-comparison parameters, and the demo's
// shop service over real HTTP (its 3 seeded bugs: stock_conserved, refunds_within_payments,
// shipped_orders_paid), as `learned` (jump) and `learned-walk`, for --max-steps steps per seed.
// states: distinct states reached; bugs_all: seeds that found every distinct invariant the model
// can break (3 on the shop; the bench models have none); first_finding: the median steps to the
// first finding over the seeds that found one ("-" when none did); steps_per_s over all seeds.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "list_flag.hpp"

#include "models/models.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/learn/a2c.hpp"
#include "prowl/learn/learned_strategy.hpp"
#include "prowl/learn/model_env.hpp"
#include "prowl/strategy/coverage_guided.hpp"
#include "prowl/strategy/mcts.hpp"
#include "prowl/strategy/random.hpp"
#ifdef SHOP_API_BINARY
#include "prowl/modelfile/http_model.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using prowl::learn::MovePolicy;

struct Settings {
  int seeds = 20;
  std::uint64_t max_steps = 2000;
  int updates = 100;
  bool shop = true;
  std::string models = "counters,orders,philo";  // --models: which of the bench models, in order
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "learned_models_bench: %s\n", message.c_str());
  std::exit(3);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

MovePolicy train(const char* name, prowl::learn::Env& env, int updates) {
  MovePolicy policy({}, 1, 0.05);
  prowl::learn::A2cOptions options;
  options.updates = updates;
  options.threads = 2;
  const auto start = std::chrono::steady_clock::now();
  const auto curve = prowl::learn::train_a2c(env, policy, options);
  fmt::print("TRAIN policy={} env={} updates={} seconds={:.1f} coverage={:.3f}\n", name, env.name(),
             updates, seconds_since(start), curve.back().coverage);
  std::fflush(stdout);
  return policy;
}

MovePolicy train_on_models(int updates) {
  std::vector<std::shared_ptr<const prowl::learn::ModelGraph>> graphs;
  const auto add = [&](const prowl::Model& model) {
    auto graph = prowl::learn::explore_model_graph(model, 20000);
    if (!graph) fail(graph.status().message());
    graphs.push_back(std::make_shared<const prowl::learn::ModelGraph>(std::move(*graph)));
  };
  add(bench::make_orders_model({.nord = 2, .nprice = 2, .tot = 4, .maxref = 1}));
  add(bench::make_orders_model({.nord = 3, .nprice = 2, .tot = 6, .maxref = 2}));
  add(bench::make_philo_model({.np = 4}));
  add(bench::make_philo_model({.np = 6}));
  auto env = prowl::learn::make_model_env(std::move(graphs), 200);
  return train("models", *env, updates);
}

// One strategy's runs on one model, one per seed.
struct Tally {
  std::vector<double> states;
  std::vector<double> first;  // steps to the first finding, where one was found
  int all_bugs = 0;
  std::uint64_t steps = 0;
  double seconds = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

using MakeStrategy = std::function<std::unique_ptr<prowl::Strategy>(std::uint64_t seed)>;

void measure(const char* model_name, const prowl::Model& model, int bugs, const char* strategy,
             const MakeStrategy& make, const Settings& s) {
  Tally t;
  for (int i = 1; i <= s.seeds; ++i) {
    const std::uint64_t seed = static_cast<std::uint64_t>(i);
    prowl::Options options;
    options.seed = seed;
    options.max_steps = s.max_steps;
    options.confirm = false;
    auto strategy_run = make(seed);
    const auto start = std::chrono::steady_clock::now();
    auto report = prowl::explore(model, *strategy_run, options);
    t.seconds += seconds_since(start);
    if (!report) fail(fmt::format("{} {}: {}", model_name, strategy, report.status().message()));
    t.states.push_back(static_cast<double>(report->stats.states));
    t.steps += report->stats.steps;
    std::set<std::string> names;
    for (const prowl::Finding& f : report->findings) names.insert(f.name);
    if (bugs > 0 && static_cast<int>(names.size()) >= bugs) ++t.all_bugs;
    if (report->findings.empty()) continue;
    options.stop_on_first = true;
    auto again = make(seed);
    auto first = prowl::explore(model, *again, options);
    if (!first) fail(first.status().message());
    t.first.push_back(static_cast<double>(first->stats.steps));
  }
  double mean = 0;
  for (double v : t.states) mean += v / static_cast<double>(t.states.size());
  double var = 0;
  for (double v : t.states) var += (v - mean) * (v - mean);
  const double ci = t.states.size() > 1
                        ? 1.96 * std::sqrt(var / static_cast<double>(t.states.size() - 1)) /
                              std::sqrt(static_cast<double>(t.states.size()))
                        : 0;
  const double first = median(t.first);
  fmt::print(
      "RESULT model={} strategy={} seeds={} states={:.0f} states_mean={:.1f} ci={:.1f} "
      "bugs_all={}/{} first_finding={} steps_per_s={:.0f}\n",
      model_name, strategy, s.seeds, median(t.states), mean, ci, bugs > 0 ? t.all_bugs : 0,
      bugs > 0 ? s.seeds : 0, std::isnan(first) ? std::string("-") : fmt::format("{:.0f}", first),
      static_cast<double>(t.steps) / t.seconds);
  std::fflush(stdout);
}

void measure_all(const char* name, const prowl::Model& model, int bugs, const MovePolicy& er,
                 const MovePolicy& models, const Settings& s) {
  measure(
      name, model, bugs, "random",
      [](std::uint64_t seed) { return std::make_unique<prowl::RandomStrategy>(seed); }, s);
  measure(
      name, model, bugs, "coverage",
      [](std::uint64_t) { return std::make_unique<prowl::CoverageGuided>(); }, s);
  measure(
      name, model, bugs, "mcts",
      [](std::uint64_t seed) {
        return std::make_unique<prowl::Mcts>(prowl::Mcts::kDefaultExplorationWeight,
                                             prowl::Mcts::kDefaultViolationReward,
                                             prowl::Mcts::kDefaultNewStateReward, seed);
      },
      s);
  const auto learned = [&](const MovePolicy& policy, bool walk) -> MakeStrategy {
    return [&policy, walk, &s](std::uint64_t seed) {
      prowl::learn::LearnedOptions options;
      options.walk = walk;
      options.seed = seed;
      options.budget = static_cast<int>(s.max_steps);
      return std::make_unique<prowl::learn::LearnedStrategy>(policy, options);
    };
  };
  measure(name, model, bugs, "learned-er", learned(er, false), s);
  measure(name, model, bugs, "learned-er-walk", learned(er, true), s);
  measure(name, model, bugs, "learned-models", learned(models, false), s);
  measure(name, model, bugs, "learned-models-walk", learned(models, true), s);
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seeds" && i + 1 < argc) {
      s.seeds = std::atoi(argv[++i]);
    } else if (arg == "--max-steps" && i + 1 < argc) {
      s.max_steps = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--updates" && i + 1 < argc) {
      s.updates = std::atoi(argv[++i]);
    } else if (arg == "--no-shop") {
      s.shop = false;
    } else if (arg == "--models" && i + 1 < argc) {
      s.models = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: learned_models_bench [--seeds 20] [--max-steps 2000] [--updates 100] "
                   "[--models counters,orders,philo] [--no-shop]\n");
      return 2;
    }
  }
  if (s.seeds < 1 || s.max_steps < 1 || s.updates < 1) {
    std::fprintf(stderr, "learned_models_bench: --seeds, --max-steps and --updates must be >= 1\n");
    return 2;
  }
  auto er_env = prowl::learn::make_er_app();
  const MovePolicy er = train("er", *er_env, 300);
  const MovePolicy models = train_on_models(s.updates);
  for (const std::string& name : bench::split_list(s.models)) {
    if (name == "counters") {
      measure_all("counters", bench::make_counters_model({}), 0, er, models, s);
    } else if (name == "orders") {
      measure_all("orders", bench::make_orders_model({}), 0, er, models, s);
    } else if (name == "philo") {
      measure_all("philo", bench::make_philo_model({}), 0, er, models, s);
    } else if (!name.empty()) {
      std::fprintf(stderr,
                   "learned_models_bench: --models %s: the models are counters, orders and "
                   "philo\n",
                   name.c_str());
      return 2;
    }
  }
#ifdef SHOP_API_BINARY
  if (s.shop) {
    const fs::path dir =
        fs::temp_directory_path() / fmt::format("prowl-learned-bench-{}", ::getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::setenv("SHOP_API", SHOP_API_BINARY, 1);
    ::setenv("SHOP_DB", (dir / "shop.db").c_str(), 1);
    auto shop = prowl::modelfile::load_model_file((fs::path(SHOP_API_DIR) / "shop.yaml").string());
    if (!shop) fail(shop.status().message());
    measure_all("shop", **shop, 3, er, models, s);
    fs::remove_all(dir);
  }
#endif
  return 0;
}
