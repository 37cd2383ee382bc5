// `prowl replay TRACE [--model FILE.yaml]`: replays a trace of a YAML-model target (written by
// `prowl explore --trace-dir`) against the service the model file describes. The model file is
// --model, else the trace's model-file option; a relative path is taken from the current
// directory, as `prowl explore` took it.
#include <iostream>
#include <optional>
#include <string>
#include <utility>

#include "commands.hpp"
#include "prowl/cli/run_main.hpp"

namespace prowl::app {

int trace_command(MainSettings settings, int argc, char** argv) {
  CommandLine command_line(std::move(settings));
  std::string model_path;
  command_line.add_string_flag("--model", "FILE",
                               "the model file (YAML); default: the trace's model-file option",
                               &model_path);
  if (std::optional<int> code = command_line.parse(argc, argv)) return *code;
  const trace::Trace& trace = *command_line.trace();
  if (!model_path.empty()) return run_model_file(command_line, model_path);
  std::optional<std::string> recorded = trace.header.option("model-file");
  if (!recorded || recorded->empty()) {
    std::cerr << command_line.trace_path()
              << ":1: the trace names no model file (it has no model-file option); give one "
                 "with --model FILE.yaml\n";
    return kExitUsage;
  }
  return run_model_file(command_line, *recorded,
                        "the trace's model-file option names this file; give another with "
                        "--model FILE.yaml");
}

int replay_command(int argc, char** argv) {
  // A trace of `prowl reach` (kind=reach, or --system given) replays on its system file.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--system" || arg.rfind("--system=", 0) == 0)
      return reach_replay_command(argc, argv);
    if (!arg.empty() && arg[0] != '-' && (i == 1 || std::string(argv[i - 1]) != "--model") &&
        is_reach_trace(arg)) {
      return reach_replay_command(argc, argv);
    }
    if (!arg.empty() && arg[0] != '-' && is_worst_case_trace(arg)) {
      return worst_case_replay_command(argc, argv);
    }
  }
  MainSettings settings;
  settings.program = "prowl replay";
  settings.command = MainCommand::kReplay;
  settings.description =
      "Replays a trace written by `prowl explore --trace-dir` (or by hand) against the service\n"
      "its model file describes, from the initial state: prints each request with its outcome,\n"
      "the failures, and whether the failure the trace records happened, after which step.\n"
      "The model file is --model, else the trace's model-file option (a relative path is taken\n"
      "from the current directory). See docs/trace-format.md.";
  return trace_command(std::move(settings), argc, argv);
}

}  // namespace prowl::app
