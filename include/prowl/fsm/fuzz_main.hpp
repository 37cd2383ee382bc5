// fuzz_main: turns a Machine into a command-line fuzzer, as run_main does for explorer models.
//
//   int main(int argc, char** argv) { return prowl::fsm::fuzz_main(make_machine(), argc, argv); }
//
// Subcommands:
//   PROGRAM fuzz [--seed N] [--runs N] [--time-limit S] [--run-timeout S] [--max-steps N]
//                [--out DIR] [--stats] [--no-fork] [--print-fsm] [--quiet]
//                [--report FORMAT:FILE]...   (the campaign as a report: fsm/campaign_report.hpp)
//   PROGRAM replay TRACE [--run-timeout S] [--no-fork]
//   PROGRAM shrink TRACE [-o OUT] [--run-timeout S] [--max-candidates N] [--no-fork]
// Exit codes, those of prowl/core/exit_code.hpp: 0 no failure, 1 failures found (fuzz) or
// reproduced (replay, shrink), 2 bad usage, a bad configuration or a malformed trace, 3
// environment failure (fork, files). Ctrl-C ends `fuzz` with its summary and usual code, `shrink`
// with the best trace so far (written), and `replay` (or a shrink still replaying the original)
// with 130; the child is killed either way.
//
// Programs whose machine depends on options of their own (smt_fuzz --solver z3|cvc5|both) use
// FuzzCommandLine: add_option(), parse(), build the machine, run(). The options are written in
// every trace's header and, for replay and shrink, read back from it (a flag given on the command
// line wins). Meant to be called once, from main(); not thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "prowl/fsm/machine.hpp"

namespace prowl::fsm {

struct FuzzSettings {
  std::string program;      // empty: argv[0]'s file name
  std::string description;  // first paragraph of --help
};

class FuzzCommandLine {
 public:
  explicit FuzzCommandLine(FuzzSettings settings = {});
  ~FuzzCommandLine();
  FuzzCommandLine(const FuzzCommandLine&) = delete;
  FuzzCommandLine& operator=(const FuzzCommandLine&) = delete;

  // A model option (--NAME VALUE) with a default in *value and, when non-empty, the allowed
  // values. REQUIRES: before parse(); `value` outlives run().
  void add_option(const std::string& name, const std::string& help, std::string* value,
                  std::vector<std::string> choices = {});

  // Parses the command line (and, for replay and shrink, reads the trace and takes the model
  // options from its header). Returns the exit code when the program should stop now.
  std::optional<int> parse(int argc, char** argv);

  // Checks the machine and runs the subcommand. Returns the exit code.
  // REQUIRES: parse() returned nullopt.
  int run(MachineCore& machine);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// FuzzCommandLine(settings).parse(argc, argv), then run(machine). Never throws.
int fuzz_main(MachineCore& machine, int argc, char** argv, FuzzSettings settings = {});

template <class T>
int fuzz_main(Machine<T>& machine, int argc, char** argv, FuzzSettings settings = {}) {
  return fuzz_main(machine.core(), argc, argv, std::move(settings));
}

}  // namespace prowl::fsm
