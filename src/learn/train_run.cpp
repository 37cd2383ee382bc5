#include "prowl/learn/train_run.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "prowl/core/interrupt.hpp"
#include "prowl/learn/policy_file.hpp"

namespace prowl::learn {

namespace {

// The windows training kept: of a graph policy's linear start, and of the last stage.
struct KeptWindows {
  std::optional<WindowChoice> linear;
  std::optional<WindowChoice> last;
};

// The policy file's header lines after kind, features, env and mode: the run's own, then what
// the training was.
std::vector<std::pair<std::string, std::string>> training_header(TrainRun& run,
                                                                 const A2cOptions& options,
                                                                 int linear_updates,
                                                                 double learning_rate,
                                                                 const KeptWindows& kept) {
  std::vector<std::pair<std::string, std::string>> header = std::move(run.header);
  header.insert(header.end(),
                {{"seed", std::to_string(run.seed)},
                 {"episodes", std::to_string(static_cast<long>(options.updates) * options.envs)},
                 {"algorithm", "a2c"},
                 {"entropy", fmt::format("{}", options.entropy)},
                 {"learning_rate", fmt::format("{}", learning_rate)}});
  if (linear_updates > 0) {
    header.emplace_back("linear_episodes",
                        std::to_string(static_cast<long>(linear_updates) * options.envs));
  }
  if (options.keep_best_window > 0) {
    header.emplace_back("keep_best_window", std::to_string(options.keep_best_window));
  }
  if (kept.linear) {
    header.emplace_back("linear_kept_after_update", std::to_string(kept.linear->last_update()));
  }
  if (kept.last) header.emplace_back("kept_after_update", std::to_string(kept.last->last_update()));
  if (run.start) {
    std::string from = run.start_file;  // a header value is one line
    std::replace_if(
        from.begin(), from.end(), [](char c) { return c == '\n' || c == '\r'; }, '?');
    header.emplace_back("fine_tuned_from", from);
  }
  return header;
}

// The best windows training kept (A2cOptions::keep_best_window = `window`) on the linear start's
// curve and on the last stage's, said on `out`.
KeptWindows kept_windows(const GraphCurves& curves, int window, std::ostream& out) {
  KeptWindows both{chosen_window(curves.linear, window), chosen_window(curves.graph, window)};
  if (both.linear) {
    out << fmt::format("  the linear start: kept the policy after its update {}\n",
                       both.linear->last_update());
  }
  const std::optional<WindowChoice>& kept = both.last;
  if (kept) {
    out << fmt::format(
        "  kept the policy after update {} (updates {} - {}: mean coverage {:.4f})\n",
        kept->last_update(), kept->last_update() - kept->window() + 1, kept->last_update(),
        kept->coverage());
  } else if (window > 0) {
    out << fmt::format(
        "  kept the policy of the last update (fewer updates than the window of {})\n", window);
  }
  return both;
}

}  // namespace

int run_training(Env& env, TrainRun run, std::ostream& out, std::ostream& err) {
  PROWL_CHECK(run.episodes >= 1, "run_training: at least one episode");
  // The learning rates of the figures: 0.05 for move policies, 0.01 for graph policies.
  AnyPolicy policy =
      run.start ? std::move(*run.start)
      : run.graph
          ? AnyPolicy(GraphPolicy({.summary = run.summary, .history = run.history}, run.seed, 0.01))
          : AnyPolicy(MovePolicy(run.hidden, run.seed, 0.05));
  const double learning_rate = std::holds_alternative<GraphPolicy>(policy) ? 0.01 : 0.05;
  A2cOptions options;
  options.seed = run.seed;
  options.threads = run.threads;
  options.keep_best_window = run.keep_best_window;
  options.updates = static_cast<int>((run.episodes + options.envs - 1) / options.envs);
  const int linear_updates =
      !run.start && run.graph
          ? static_cast<int>((run.linear_episodes + options.envs - 1) / options.envs)
          : 0;
  const int every = std::max(1, options.updates / 20);
  double recent = 0;
  int in_recent = 0;
  out << fmt::format("{}: {}, {} update{} of {} episodes, seed {}{}{}\n", run.program, run.title,
                     options.updates, options.updates == 1 ? "" : "s", options.envs, run.seed,
                     run.start ? ", from " + run.start_file : std::string(),
                     linear_updates > 0
                         ? fmt::format(", after a linear start of {} updates", linear_updates)
                         : std::string());
  const int linear_tail = std::max(1, linear_updates / 20);
  const auto progress = [&](const CurvePoint& p, bool linear) {
    recent += p.coverage;
    ++in_recent;
    // A line is the mean since the last one: of the linear start's last twentieth, and of each
    // twentieth of the rest.
    bool done = false;
    if (linear) {
      if (p.update == linear_updates) {
        out << fmt::format("  linear start  coverage {:.4f}\n", recent / in_recent);
      }
      done = p.update == linear_updates || p.update % linear_tail == 0;
    } else if (p.update % every == 0 || p.update == options.updates) {
      out << fmt::format("  update {:>5}  episodes {:>7}  coverage {:.4f}\n", p.update,
                         p.update * options.envs, recent / in_recent);
      done = true;
    }
    out.flush();
    if (done) {
      recent = 0;
      in_recent = 0;
    }
    return interrupts() == 0;
  };
  GraphCurves curves;  // a move policy's curve as `graph`'s
  if (auto* graph = std::get_if<GraphPolicy>(&policy); graph != nullptr && !run.start) {
    curves = train_graph_policy(env, *graph, options, linear_updates, progress);
  } else {
    curves.graph = std::visit(
        [&](auto& p) {
          return train_a2c(env, p, options,
                           [&](const CurvePoint& c) { return progress(c, false); });
        },
        policy);
  }
  if (interrupts() > 0) {
    out << fmt::format("interrupted after {} updates: {} not written\n",
                       curves.linear.size() + curves.graph.size(), run.output);
    return interrupt_exit_code();
  }
  const KeptWindows kept = kept_windows(curves, options.keep_best_window, out);
  const std::vector<std::pair<std::string, std::string>> header =
      training_header(run, options, linear_updates, learning_rate, kept);
  const PolicyFile file =
      std::visit([&](const auto& p) { return to_policy_file(p, env, header); }, policy);
  if (Status st = write_policy_file(run.output, file); !st) {
    err << run.program << ": " << st.message() << '\n';
    return st.exit_code();
  }
  out << "policy written to " << run.output << '\n';
  return 0;
}

}  // namespace prowl::learn
