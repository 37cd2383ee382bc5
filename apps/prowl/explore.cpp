#include <iostream>

#include "commands.hpp"
#include "prowl/cli/run_main.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/modelfile/http_model.hpp"

namespace prowl::app {

int run_model_file(CommandLine& command_line, const std::string& path, std::string_view hint) {
  command_line.add_trace_option("model-file", path);
  // Listing actions starts nothing, so it needs none of the ${env:...} values a run needs.
  auto model = modelfile::load_model_file(path, {.resolve_env = !command_line.list_actions()});
  if (!model) {
    // "FILE:LINE:COL: message" first on the line, as compilers write it, for editors to jump to.
    std::cerr << escape_lines(model.status().message()) << '\n';
    if (!hint.empty()) std::cerr << "  hint: " << hint << '\n';
    return model.status().exit_code();
  }
  return command_line.run(**model);
}

int explore_command(int argc, char** argv) {
  MainSettings settings;
  settings.program = "prowl explore";
  settings.description =
      "Explores an HTTP service described by a YAML model file: its requests (actions), what\n"
      "makes up a state (databases, HTTP observations) and what must always hold (invariants).\n"
      "The file is checked before anything starts; the service and its databases are started,\n"
      "restored and stopped as the file declares. See docs/model-file.md.";
  CommandLine command_line(std::move(settings));
  std::string path;
  command_line.add_positional("MODEL", "the model file (YAML)", &path);
  if (std::optional<int> code = command_line.parse(argc, argv)) return *code;
  // As given: `prowl replay` opens it from the current directory, as explore did.
  return run_model_file(command_line, path);
}

}  // namespace prowl::app
