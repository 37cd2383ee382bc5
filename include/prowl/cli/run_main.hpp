// run_main: turns any Model into a command-line program.
//
//   int main(int argc, char** argv) { return prowl::run_main(make_my_model(), argc, argv); }
//
// The program takes --strategy, --seed, --max-steps, --max-depth, --time-limit,
// --coverage-target, --stop-on-first, --shrink, --report FORMAT:FILE, --weight ACTION=W, --quiet,
// --list-actions, --version and --help (run it with --help for the details), explores the model,
// prints the console report on stdout (live progress on stderr when it is a terminal) and writes
// the requested reports. Exit codes:
//
//   0   no findings                       kExitOk
//   1   findings                          kExitFindings
//   2   bad usage, options or model       kExitUsage
//   3   environment failure               kExitEnvironment
//   70  internal error: a broken          kExitInternal
//       precondition in prowl (LogicError) or an unexpected exception; a bug to report
//
// Programs whose model depends on flags of their own (the counters example takes --k and --n)
// use CommandLine directly: add the flags, parse(), build the model, run(). Not thread-safe;
// meant to be called once, from main().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "prowl/explore/model.hpp"

namespace prowl {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitEnvironment = 3;
inline constexpr int kExitInternal = 70;  // EX_SOFTWARE of sysexits.h

// How a program built on run_main presents itself.
struct MainSettings {
  // The name in usage lines and messages; empty: the file name of argv[0].
  std::string program;
  // The first paragraph of --help.
  std::string description;
  // The strategy used without --strategy.
  std::string default_strategy = "bfs";
  // Reports written when no --report is given, each as FORMAT:FILE.
  std::vector<std::string> default_reports;
};

class CommandLine {
 public:
  explicit CommandLine(MainSettings settings = {});
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Adds an integer flag of the program's own, such as a model size. `*value` holds the default
  // and receives the parsed value; parse() refuses values outside [min, max].
  // REQUIRES: before parse(); `value` outlives parse().
  void add_int_flag(const std::string& name, const std::string& help, int* value, int min, int max);

  // Adds a required positional argument (`prowl explore MODEL`): `name` is shown in the usage
  // line, `*value` receives the argument. REQUIRES: before parse(); `value` outlives parse().
  void add_positional(const std::string& name, const std::string& help, std::string* value);

  // Parses the flags. Returns the exit code when the program should stop now: kExitOk after
  // --help or --version (printed on stdout), kExitUsage after bad usage (message on stderr).
  // Returns nullopt when run() should follow.
  std::optional<int> parse(int argc, char** argv);

  // Validates the model, then lists its actions (--list-actions) or explores it and reports.
  // Returns the exit code. REQUIRES: parse() returned nullopt.
  int run(const Model& model);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// CommandLine(settings).parse(argc, argv), then run(model). Never throws.
int run_main(const Model& model, int argc, char** argv, MainSettings settings = {});

}  // namespace prowl
