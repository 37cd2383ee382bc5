// `prowl train` and `prowl eval`: exploration policies trained across graphs and measured on
// held-out ones (docs/learned.md).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/learn/a2c.hpp"
#include "prowl/learn/baselines.hpp"
#include "prowl/learn/evaluate.hpp"
#include "prowl/learn/policy_file.hpp"
#include "prowl/learn/train_run.hpp"

namespace prowl::app {

namespace {

struct EnvFlags {
  std::string env;
  std::string mode = "vision";
};

void add_env_flags(CLI::App& app, EnvFlags& flags) {
  app.add_option("--env", flags.env, "the environment: maze6 or er-app")->required();
  app.add_option("--mode", flags.mode, "vision (default) or bump (maze6 only)")
      ->check(CLI::IsMember({"vision", "bump"}));
}

// The env the flags name; nullptr after printing why not.
std::unique_ptr<learn::Env> env_of(const EnvFlags& flags, std::string_view command) {
  Result<std::unique_ptr<learn::Env>> env =
      learn::make_env(flags.env, *learn::parse_mode(flags.mode));
  if (!env) {
    std::cerr << command << ": --env " << flags.env << ": " << env.status().message() << '\n';
    return nullptr;
  }
  return std::move(env).value();
}

// The policy in the file at `path`, for `env`.
Result<learn::AnyPolicy> load_policy(const std::string& path, const learn::Env& env) {
  Result<learn::PolicyFile> file = learn::read_policy_file(path);
  if (!file) return file.status();
  return learn::policy_from_file(*file, env, path);
}

int parse_failed(const CLI::App& app, const CLI::ParseError& e) {
  return app.exit(e) == 0 ? kExitOk : kExitUsage;
}

}  // namespace

int train_command(int argc, char** argv) {
  EnvFlags env_flags;
  long episodes = 0;
  std::uint64_t seed = 1;
  std::string out;
  std::vector<int> hidden;
  int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 2u));
  CLI::App app(
      "Train an exploration policy on graphs drawn from an environment (synchronous A2C over\n"
      "move features; docs/learned.md) and write it as a policy file.\n",
      "prowl train");
  add_env_flags(app, env_flags);
  app.add_option("--episodes", episodes, "the training episodes (16 per update)")
      ->required()
      ->check(CLI::Range(0L, 1'000'000'000L));
  app.add_option("--seed", seed, "the seed of the training graphs, choices and weights")
      ->check(CLI::Range(std::uint64_t{0}, learn::kMaxTrainingSeed));
  app.add_option("--hidden", hidden, "hidden layer widths of the move scorer (none: linear)")
      ->type_name("W ...")
      ->check(CLI::Range(1, 4096));
  app.add_option("--threads", threads,
                 "play each update's episodes over N threads (default: 2, or 1 on one core; the "
                 "same seed trains the same policy at any N)")
      ->type_name("N")
      ->check(CLI::Range(1, 64));
  app.add_option("-o,--output", out, "the policy file to write")->required();
  std::string network = "move";
  app.add_option("--network", network,
                 "move (default): a scorer over each move's features (--hidden: its layers; none: "
                 "the linear softmax); graph: the GGNN graph policy over the memory")
      ->check(CLI::IsMember({"move", "graph"}));
  std::string summary = "graph";
  app.add_option("--summary", summary,
                 "--network graph: what the head sees of the whole memory: graph (the attention "
                 "readout, default), pool (the mean node embedding) or node (nothing)")
      ->check(CLI::IsMember({"graph", "pool", "node"}));
  std::string history = "none";
  app.add_option("--history", history,
                 "--network graph: none (default), or lstm: an LSTM over the steps' summaries "
                 "(the paper's autoregressive encoder) feeds the head instead")
      ->check(CLI::IsMember({"none", "lstm"}));
  long linear_episodes = static_cast<long>(learn::kLinearStartUpdates) * 16;
  app.add_option("--linear-episodes", linear_episodes, std::string(learn::kLinearEpisodesHelp))
      ->type_name("N")
      ->check(CLI::Range(0L, 1'000'000'000L));
  int keep_window = 0;
  app.add_option("--keep-best-window", keep_window, std::string(learn::kKeepBestWindowHelp))
      ->type_name("B")
      ->check(CLI::Range(0, learn::kMaxKeepBestWindow));
  std::string from;
  app.add_option("--from", from,
                 "go on training this policy file (fine-tuning; its network's sizes are kept, "
                 "--hidden is ignored)")
      ->type_name("FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failed(app, e);
  }
  if (episodes < 1) {
    std::cerr << "prowl train: --episodes " << episodes
              << ": train for at least one episode (16 make one update)\n";
    return kExitUsage;
  }
  for (const char* flag : {"--summary", "--history", "--linear-episodes"}) {
    if (app.count(flag) > 0 && (network != "graph" || !from.empty())) {
      std::cerr << "prowl train: " << flag
                << " is for a new graph policy: give --network graph, and no --from (a policy "
                   "file keeps its own)\n";
      return kExitUsage;
    }
  }
  std::unique_ptr<learn::Env> env = env_of(env_flags, "prowl train");
  if (!env) return kExitUsage;
  learn::TrainRun run;
  run.program = "prowl train";
  run.title = fmt::format("{} ({})", env->name(), env_flags.mode);
  run.episodes = episodes;
  run.seed = seed;
  run.hidden = hidden;
  run.graph = network == "graph";
  run.summary = *learn::parse_summary(summary);
  run.history = history == "lstm";
  run.linear_episodes = linear_episodes;
  run.threads = threads;
  run.keep_best_window = keep_window;
  run.output = out;
  if (!from.empty()) {
    Result<learn::AnyPolicy> policy = load_policy(from, *env);
    if (!policy) {
      std::cerr << "prowl train: " << policy.status().message() << '\n';
      return kExitUsage;
    }
    run.start = std::move(*policy);
    run.start_file = from;
  }
  install_interrupt_handlers();
  return learn::run_training(*env, std::move(run), std::cout, std::cerr);
}

int eval_command(int argc, char** argv) {
  EnvFlags env_flags;
  std::string policy_path;
  int graphs = 100, seeds = 5;
  std::uint64_t first = 1000;
  CLI::App app(
      "Measure a trained policy beside the baselines (random, randdfs, greedy, qtable) on "
      "held-out\n"
      "graphs: mean final coverage and its 95% interval (docs/learned.md).\n",
      "prowl eval");
  add_env_flags(app, env_flags);
  bool ablation = false;
  long episodes = 4800;
  std::uint64_t train_seed = 1;
  auto* policy_option = app.add_option("--policy", policy_path, "a policy file prowl train wrote");
  auto* ablation_flag =
      app.add_flag("--ablation", ablation,
                   "instead of a policy file: train the graph policy with each history summary "
                   "(node, pool, graph; without and with the LSTM) and measure each (the paper's "
                   "Tables 5-6)")
          ->excludes(policy_option);
  app.add_option("--episodes", episodes, "--ablation: training episodes of each (default 4800)")
      ->check(CLI::Range(1L, 1'000'000'000L))
      ->needs(ablation_flag);
  long linear_episodes = static_cast<long>(learn::kLinearStartUpdates) * 16;
  app.add_option("--linear-episodes", linear_episodes,
                 "--ablation: the linear start's episodes of each variant with full information "
                 "(default 32000, as prowl train's)")
      ->type_name("N")
      ->check(CLI::Range(0L, 1'000'000'000L))
      ->needs(ablation_flag);
  std::string information = "full";
  app.add_option("--information", information,
                 "--ablation: full (default), or local: what the paper's variants get; the moves' "
                 "own features only, no route to the frontier, and node and pool without message "
                 "passing, so that only the memory's structure tells where to go")
      ->check(CLI::IsMember({"full", "local"}))
      ->needs(ablation_flag);
  int keep_window = 0;
  app.add_option("--keep-best-window", keep_window,
                 "--ablation: each variant's training: " + std::string(learn::kKeepBestWindowHelp))
      ->type_name("B")
      ->check(CLI::Range(0, learn::kMaxKeepBestWindow))
      ->needs(ablation_flag);
  app.add_option("--train-seed", train_seed, "--ablation: the training seed (default 1)")
      ->check(CLI::Range(std::uint64_t{0}, learn::kMaxTrainingSeed))
      ->needs(ablation_flag);
  app.add_option("--graphs", graphs, "held-out graphs (default 100)")->check(CLI::Range(1, 100000));
  app.add_option("--seeds", seeds, "runs per graph of each baseline (default 5)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--seed", first, "the first held-out graph's seed (default 1000)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failed(app, e);
  }
  if (information == "local" && app.count("--linear-episodes") > 0) {
    std::cerr << "prowl eval: --linear-episodes is for --information full: with local information "
                 "the variants start from their own weights\n";
    return kExitUsage;
  }
  if (!ablation && policy_path.empty()) {
    std::cerr << "prowl eval: --policy FILE is required (or --ablation, which trains its own)\n";
    return kExitUsage;
  }
  std::unique_ptr<learn::Env> env = env_of(env_flags, "prowl eval");
  if (!env) return kExitUsage;
  Result<learn::AnyPolicy> policy =
      ablation ? Result<learn::AnyPolicy>(learn::AnyPolicy(learn::MovePolicy({}, 1, 0.05)))
               : load_policy(policy_path, *env);
  if (!policy) {
    std::cerr << "prowl eval: " << policy.status().message() << '\n';
    return kExitUsage;
  }
  std::cout << fmt::format("prowl eval: {} ({}), {} graphs from seed {}\n", env->name(),
                           env_flags.mode, graphs, first);
  const auto line = [&](const std::string& name, const learn::Score& s, const std::string& note) {
    std::cout << fmt::format("  {:<8} {:.4f} ± {:.4f}  ({} episodes{})\n", name, s.mean,
                             s.half_width, s.episodes, note);
  };
  line("random", learn::evaluate(*env, learn::run_random, graphs, seeds, first), "");
  line("randdfs", learn::evaluate(*env, learn::run_randdfs, graphs, seeds, first), "");
  line("greedy", learn::evaluate(*env, learn::run_greedy, graphs, seeds, first), "");
  for (const learn::QState state : {learn::QState::kNode, learn::QState::kHistory}) {
    const learn::Runner qtable = [state](learn::Env& e, std::uint64_t s) {
      return learn::run_qtable(e, s, {state, 200});
    };
    const bool node = state == learn::QState::kNode;
    line(node ? "qtable" : "qtable_history", learn::evaluate(*env, qtable, graphs, seeds, first),
         node ? ", on each graph, node ids: 200 episodes, best run"
              : ", on each graph, whole state: 200 episodes, best run");
  }
  const auto measure = [&](const std::string& name, const learn::AnyPolicy& p,
                           const std::string& note) {
    const learn::Runner run = [&](learn::Env& e, std::uint64_t) {
      return std::visit([&](const auto& q) { return learn::run_policy(e, q); }, p);
    };
    line(name, learn::evaluate(*env, run, graphs, 1, first), note);
  };
  if (!ablation) {
    measure("policy", *policy, ", greedy: one per graph");
    return kExitOk;
  }
  // Measuring ends at a signal, as any program does; training (--ablation) stops between updates
  // and exits 128 + the signal.
  install_interrupt_handlers();
  learn::A2cOptions options;
  options.seed = train_seed;
  options.threads = 2;
  options.keep_best_window = keep_window;
  options.updates = static_cast<int>((episodes + options.envs - 1) / options.envs);
  // With local information no linear start: the linear scorer would see more than they may.
  const int linear_updates =
      information == "local"
          ? 0
          : static_cast<int>((linear_episodes + options.envs - 1) / options.envs);
  std::optional<learn::MovePolicy> linear;
  for (const bool history : {false, true}) {
    for (learn::GraphPolicy::Summary summary :
         {learn::GraphPolicy::Summary::kNode, learn::GraphPolicy::Summary::kPool,
          learn::GraphPolicy::Summary::kGraph}) {
      learn::GraphPolicy::Shape shape;
      shape.summary = summary;
      shape.history = history;
      shape.local = information == "local";
      shape.skip = !shape.local;
      if (shape.local && summary != learn::GraphPolicy::Summary::kGraph) shape.rounds = 0;
      learn::GraphPolicy trained(shape, train_seed, 0.01);
      // Every variant with full information starts from the same linear policy: the first
      // trains it, the others start from it.
      int own_start = 0;
      learn::MovePolicy* keep = nullptr;
      if (linear) {
        learn::start_from(trained, *linear);
      } else if (linear_updates > 0) {
        own_start = linear_updates;
        keep = &linear.emplace(learn::MovePolicy({}, train_seed, 0.05));
      }
      const learn::GraphCurves curves = learn::train_graph_policy(
          *env, trained, options, own_start,
          [](const learn::CurvePoint&, bool) { return interrupts() == 0; }, keep);
      if (interrupts() > 0) return interrupt_exit_code();
      const std::optional<learn::WindowChoice> kept =
          learn::chosen_window(curves.graph, keep_window);
      measure(std::string(learn::summary_name(summary)) + (history ? "-AR" : "-nonAR"),
              learn::AnyPolicy(trained),
              fmt::format(", greedy; trained {} updates of {}{}{}", options.updates, options.envs,
                          shape.local ? "; local information"
                          : linear_updates == 0
                              ? ""
                              : fmt::format(" after a linear start of {}", linear_updates),
                          kept ? fmt::format("; kept after update {}", kept->last_update())
                          : keep_window > 0
                              ? fmt::format("; kept the last update (fewer than {})", keep_window)
                              : ""));
      if (interrupts() > 0) return interrupt_exit_code();
    }
  }
  return kExitOk;
}

}  // namespace prowl::app
