// `prowl shrink TRACE [--model FILE.yaml] [-o OUT]`: shortens a failing trace of a YAML-model
// target while the same failure still happens, and writes the result (by default next to TRACE,
// with ".shrunk" before its extension). The model file is found as `prowl replay` finds it.
#include <utility>

#include "commands.hpp"
#include "prowl/cli/run_main.hpp"

namespace prowl::app {

int shrink_command(int argc, char** argv) {
  MainSettings settings;
  settings.program = "prowl shrink";
  settings.command = MainCommand::kShrink;
  settings.description =
      "Shrinks a failing trace written by `prowl explore --trace-dir` (or by hand): replays it\n"
      "against the service its model file describes (it must fail), removes requests by delta\n"
      "debugging while the same failure (kind and name) still happens, prints \"steps: N -> M\"\n"
      "and writes the shorter trace. The model file is --model, else the trace's model-file\n"
      "option (a relative path is taken from the current directory).";
  return trace_command(std::move(settings), argc, argv);
}

}  // namespace prowl::app
