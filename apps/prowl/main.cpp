// prowl: the command-line tool. main() dispatches to one subcommand per file (see commands.hpp)
// and is the one place that turns an escaped programming error into an exit code.
#include <exception>
#include <iostream>
#include <string_view>

#include "commands.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/version.hpp"

namespace {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(int argc, char** argv);
};

constexpr Command kCommands[] = {
    {"demo", "explore the bundled shop service over HTTP and show the bugs it finds",
     prowl::app::demo_command},
    {"explore", "explore an HTTP service described by a YAML model file",
     prowl::app::explore_command},
    {"init", "write a starter model file from an OpenAPI document (--openapi SPEC)",
     prowl::app::init_command},
    {"reach", "prove a system file's invariants symbolically (Z3), or find the shortest break",
     prowl::app::reach_command},
    {"replay", "replay a trace (explore, reach, worst-case): does its failure happen again?",
     prowl::app::replay_command},
    {"shrink", "shorten a failing trace while the same failure happens",
     prowl::app::shrink_command},
    {"report", "write a run's JSON report again as junit, sarif, html, markdown, ...",
     prowl::app::report_command},
    {"recover", "put back the databases a killed run of a model file left changed",
     prowl::app::recover_command},
    {"worst-case", "find the input of a program that takes its longest path (Z3)",
     prowl::app::worst_case_command},
    {"train", "train an exploration policy across graphs (maze6, er-app)",
     prowl::app::train_command},
    {"eval", "measure a trained policy beside the baselines on held-out graphs",
     prowl::app::eval_command},
    {"version", "print prowl's version", prowl::app::version_command},
};

void print_usage(std::ostream& out) {
  out << "prowl: finds the sequences of operations that break a stateful system.\n\n"
         "usage: prowl <command> [options]\n\n"
         "commands:\n";
  for (const Command& c : kCommands) {
    out << "  " << c.name << std::string(12 - c.name.size(), ' ') << c.summary << '\n';
  }
  out << "  help        show this help, or a command's: prowl help <command>\n\n"
         "Run 'prowl <command> --help' for a command's options.\n"
         "Exit codes: 0 no findings, 1 findings, 2 bad usage, options or model,\n"
         "3 environment failure, 4 inconclusive (prowl reach: depth cap, time limit or\n"
         "solver unknown), 70 internal error (a bug in prowl; please report it),\n"
         "130/143/129 stopped by SIGINT/SIGTERM/SIGHUP after restoring the systems and\n"
         "writing the reports.\n";
}

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return prowl::kExitUsage;
  }
  const std::string_view name = argv[1];
  if (name == "help" || name == "--help" || name == "-h") {
    if (argc >= 3 && name == "help") {
      // `prowl help explore` is `prowl explore --help`.
      const std::string_view topic = argv[2];
      for (const Command& c : kCommands) {
        if (c.name != topic) continue;
        char flag[] = "--help";
        char* args[] = {argv[2], flag, nullptr};
        return c.run(2, args);
      }
      std::cerr << "prowl help: unknown command '" << topic << "'\n\n";
      print_usage(std::cerr);
      return prowl::kExitUsage;
    }
    print_usage(std::cout);
    return prowl::kExitOk;
  }
  if (name == "--version") return prowl::app::version_command(1, argv + 1);
  for (const Command& c : kCommands) {
    if (c.name == name) return c.run(argc - 1, argv + 1);
  }
  std::cerr << "prowl: unknown command '" << name << "'\n\n";
  print_usage(std::cerr);
  return prowl::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "prowl: internal error: " << e.what() << '\n';
    return prowl::kExitInternal;
  }
}
