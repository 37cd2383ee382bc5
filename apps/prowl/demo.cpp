#include "commands.hpp"
#include "prowl/cli/run_main.hpp"
#include "refund/refund.hpp"

namespace prowl::app {

int demo_command(int argc, char** argv) {
  MainSettings settings;
  settings.program = "prowl demo";
  settings.description =
      "Explores the bundled refund example: a shop that charges at checkout and lets orders be\n"
      "refunded or cancelled. Its refund() forgets to refuse orders that were already refunded;\n"
      "prowl finds that bug and prints it with its shortest reproduction, then writes a JSON\n"
      "report to prowl-demo-report.json in the current directory (unless --report is given).";
  settings.default_strategy = "bfs";
  settings.default_reports = {"json:prowl-demo-report.json"};
  return run_main(examples::make_refund_model(), argc, argv, std::move(settings));
}

}  // namespace prowl::app
