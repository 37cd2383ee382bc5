// run_main: turns any Model into a command-line program.
//
//   int main(int argc, char** argv) { return prowl::run_main(make_my_model(), argc, argv); }
//
// The program takes --strategy, --seed, --max-steps, --max-depth, --time-limit,
// --coverage-target, --stop-on-first, --shrink, --report FORMAT:FILE, --trace-dir DIR,
// --weight ACTION=W, --quiet, --list-actions, --version and --help (run it with --help for the
// details), explores the model, prints the console report on stdout (live progress on stderr when
// it is a terminal) and writes the requested reports, and with --trace-dir each finding as a trace
// file DIR/NNN-KIND-NAME.trace (prowl/explore/finding_trace.hpp). Two commands work on such a
// trace instead of exploring:
//
//   PROGRAM replay TRACE            runs its steps, prints their outcomes and whether the
//                                   recorded failure happened, and after which step
//   PROGRAM shrink TRACE [-o OUT]   shortens it while the same failure still happens and
//                                   writes the result to OUT (default: TRACE with ".shrunk"
//                                   before its extension)
//
// A third trains the learned strategy's policy on the model itself (docs/learned.md, "On your
// own model"):
//
//   PROGRAM train -o FILE [--episodes N] [--budget T] [--states N] [--keep-best-window B]
//                 [--from FILE]
//                                   explores the model's graph breadth first (up to --states
//                                   steps), trains a move policy on it by A2C (episodes of T
//                                   steps from the initial state), or fine-tunes --from's, and
//                                   writes it for PROGRAM --strategy learned --policy FILE
//                                   (the policy after its best B updates in a row with B)
//
// The program's own flags (add_int_flag) are written into each trace as NAME=VALUE and, unless
// given on the command line, taken from the trace by replay and shrink, so the model is built as
// it was; a shrunk trace records the values it was shrunk with. Exit codes are those of
// prowl/core/exit_code.hpp (included here for the programs that return them): replay returns
// kExitOk when the trace ran clean and kExitFindings when it failed; shrink kExitFindings always.
//
// Programs whose model depends on flags of their own (the counters example takes --k and --n)
// use CommandLine directly: add the flags, parse(), build the model, run(). Not thread-safe;
// meant to be called once, from main().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "prowl/core/exit_code.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl {

// What a program built on run_main does.
enum class MainCommand {
  kExplore,  // explore the model (the default)
  kReplay,   // replay a trace: PROGRAM replay TRACE
  kShrink,   // shrink a trace: PROGRAM shrink TRACE [-o OUT]
  kTrain,    // train a policy for --strategy learned on the model: PROGRAM train -o FILE
};

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
  // For a program that only replays or shrinks (`prowl replay TRACE`): its command, and its
  // first positional is the trace. Unset: explore, unless the first argument is "replay" or
  // "shrink" and the program has no positionals of its own.
  std::optional<MainCommand> command;
};

class CommandLine {
 public:
  explicit CommandLine(MainSettings settings = {});
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Adds an integer flag of the program's own, such as a model size. Its name may not be one of
  // run_main's own flags (--seed, --policy, --episodes, ...: REQUIRES, checked). `*value` holds the
  // default and receives the parsed value; parse() refuses values outside [min, max]. REQUIRES:
  // before parse(); `value` outlives parse().
  void add_int_flag(const std::string& name, const std::string& help, int* value, int min, int max);

  // Adds a string flag of the program's own (`prowl replay --model FILE`), for every command;
  // unlike an int flag it is not written into traces. `type_name` names the value in --help.
  // REQUIRES: before parse(); `value` outlives parse().
  void add_string_flag(const std::string& name, const std::string& type_name,
                       const std::string& help, std::string* value);

  // Adds a required positional argument (`prowl explore MODEL`): `name` is shown in the usage
  // line, `*value` receives the argument. A program with positionals takes no "replay" or
  // "shrink" command. REQUIRES: before parse(); `value` outlives parse().
  void add_positional(const std::string& name, const std::string& help, std::string* value);

  // Adds KEY=VALUE to the header of every trace the program writes, with --trace-dir or shrink
  // (`prowl explore` records model-file=PATH). REQUIRES: before run().
  void add_trace_option(std::string key, std::string value);

  // Parses the flags. Returns the exit code when the program should stop now: kExitOk after
  // --help or --version (printed on stdout), kExitUsage after bad usage (message on stderr).
  // Returns nullopt when run() should follow.
  std::optional<int> parse(int argc, char** argv);

  // The command parse() found. REQUIRES: parse() returned nullopt.
  MainCommand command() const;
  // Whether --list-actions was given: the program only lists the model's actions, so it may
  // build the model without what running it needs (a model file's ${env:...} values).
  // REQUIRES: parse() returned nullopt.
  bool list_actions() const;
  // The trace to replay or shrink, read by parse() (a malformed one stops parse() with exit code
  // 2), and its path as given; nullptr and "" when exploring. REQUIRES: parse() returned nullopt.
  const trace::Trace* trace() const;
  const std::string& trace_path() const;

  // Validates the model, then lists its actions (--list-actions) or explores it and reports, or
  // replays or shrinks the trace. Returns the exit code. REQUIRES: parse() returned nullopt.
  int run(const Model& model);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// CommandLine(settings).parse(argc, argv), then run(model). Never throws.
int run_main(const Model& model, int argc, char** argv, MainSettings settings = {});

}  // namespace prowl
