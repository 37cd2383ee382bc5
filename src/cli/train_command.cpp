// PROGRAM train: the learned strategy's policy, trained on the program's own model
// (docs/learned.md, "On your own model").
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "command_line_impl.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/learn/learned_strategy.hpp"
#include "prowl/learn/model_env.hpp"
#include "prowl/learn/train_run.hpp"

namespace prowl {

int CommandLine::Impl::train(const Model& model) {
  if (Status valid = model.validate(); !valid) {
    print_error(valid);
    return kExitUsage;
  }
  if (app->count("--linear-episodes") > 0 && (network != "graph" || !from_path.empty())) {
    print_error(Status::invalid(
        "--linear-episodes is for a new graph policy: give --network graph, and no --from (a "
        "policy file keeps its own)"));
    return kExitUsage;
  }
  learn::TrainRun run;
  if (!from_path.empty()) {
    Result<learn::AnyPolicy> policy = learn::read_policy_for_models(from_path);
    if (!policy) {
      print_error(policy.status());
      return kExitUsage;
    }
    run.start = std::move(*policy);
    run.start_file = from_path;
  }
  Result<learn::ModelGraph> graph = learn::explore_model_graph(model, graph_steps);
  if (!graph) {
    print_error(graph.status());
    return graph.status().exit_code();
  }
  if (interrupts() > 0) {
    std::cout << fmt::format("interrupted while exploring the model: {} not written\n",
                             output_path);
    return interrupt_exit_code();
  }
  const std::size_t states = graph->out.size();
  run.program = program;
  run.title = fmt::format("model {} ({} states{}), {} steps an episode", escape_lines(model.name()),
                          states, graph->exhausted ? ", all of them" : ", a bounded part", budget);
  run.episodes = episodes;
  run.seed = seed;
  run.hidden = hidden;
  run.graph = network == "graph";
  run.linear_episodes = linear_episodes;
  run.threads = threads;
  run.keep_best_window = keep_best_window;
  run.output = output_path;
  run.header = {{"model", escape_text(model.name())},
                {"model_states", std::to_string(states)},
                {"budget", std::to_string(budget)}};
  for (const auto& [key, value] : own_options()) {
    // One line each, and each key once (a key a program gives twice keeps its first value).
    const bool one_line = value.find_first_of("\r\n") == std::string::npos;
    const std::string name = "option." + key;
    const bool known = std::any_of(run.header.begin(), run.header.end(),
                                   [&](const auto& line) { return line.first == name; });
    if (learn::valid_policy_key(key) && one_line && !known) run.header.emplace_back(name, value);
  }
  auto env =
      learn::make_model_env({std::make_shared<const learn::ModelGraph>(std::move(*graph))}, budget);
  return learn::run_training(*env, std::move(run), std::cout, std::cerr);
}

}  // namespace prowl
