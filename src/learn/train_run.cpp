#include "prowl/learn/train_run.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "prowl/core/interrupt.hpp"
#include "prowl/learn/policy_file.hpp"

namespace prowl::learn {

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
  options.updates = static_cast<int>((run.episodes + options.envs - 1) / options.envs);
  const int every = std::max(1, options.updates / 20);
  double recent = 0;
  int in_recent = 0;
  out << fmt::format("{}: {}, {} update{} of {} episodes, seed {}{}\n", run.program, run.title,
                     options.updates, options.updates == 1 ? "" : "s", options.envs, run.seed,
                     run.start ? ", from " + run.start_file : std::string());
  const auto progress = [&](const CurvePoint& p) {
    recent += p.coverage;
    ++in_recent;
    if (p.update % every == 0 || p.update == options.updates) {
      out << fmt::format("  update {:>5}  episodes {:>7}  coverage {:.4f}\n", p.update,
                         p.update * options.envs, recent / in_recent);
      out.flush();
      recent = 0;
      in_recent = 0;
    }
    return interrupts() == 0;
  };
  const auto curve =
      std::visit([&](auto& p) { return train_a2c(env, p, options, progress); }, policy);
  if (interrupts() > 0) {
    out << fmt::format("interrupted after {} updates: {} not written\n", curve.size(), run.output);
    return interrupt_exit_code();
  }
  std::vector<std::pair<std::string, std::string>> header = std::move(run.header);
  header.insert(header.end(),
                {{"seed", std::to_string(run.seed)},
                 {"episodes", std::to_string(static_cast<long>(curve.size()) * options.envs)},
                 {"algorithm", "a2c"},
                 {"entropy", fmt::format("{}", options.entropy)},
                 {"learning_rate", fmt::format("{}", learning_rate)}});
  if (run.start) {
    std::string from = run.start_file;  // a header value is one line
    std::replace_if(
        from.begin(), from.end(), [](char c) { return c == '\n' || c == '\r'; }, '?');
    header.emplace_back("fine_tuned_from", from);
  }
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
