// CommandLine::Impl: the state of one command line (its flags, their values, what parse() derived
// from them), shared by run_main.cpp (parsing, running, reporting) and run_flags.cpp (the flags
// and help texts of exploring and of replay/shrink). Used from main()'s thread only. Internal to
// src/cli.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "prowl/cli/run_main.hpp"
#include "prowl/explore/options.hpp"
#include "prowl/explore/ranks.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/learn/train_run.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/format.hpp"
#include "prowl/strategy/factory.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl {

namespace detail {

// CLI11 reads integers with strtoull/strtoll in base 0, so "-1" wraps around and "010" is octal.
// This accepts decimal digits only (and a leading '-' when negative values are allowed), and drops
// leading zeros before CLI11 converts the text.
CLI::Validator decimal_integer(bool allow_negative);
// A byte count: digits with an optional K, M, G or T (binary), written back as bytes.
CLI::Validator size_in_bytes();

// The trace option that records a program's own flag: its name without the leading dashes.
std::string trace_key(const std::string& flag);

// --mpi: the ranks of the MPI job this process belongs to (ranks_flag.cpp). A usage error when
// the program was built without MPI or was not started by an MPI launcher.
Result<std::unique_ptr<Ranks>> start_ranks(const std::string& program);

}  // namespace detail

struct CommandLine::Impl {
  explicit Impl(MainSettings s) : settings(std::move(s)) {}

  MainSettings settings;
  std::string program;
  std::unique_ptr<CLI::App> app;
  struct IntFlag {
    std::string name, help;
    int* value;
    int min, max;
  };
  std::vector<IntFlag> int_flags;
  struct Positional {
    std::string name, help;
    std::string* value;
  };
  std::vector<Positional> positionals;
  struct StringFlag {
    std::string name, type_name, help;
    std::string* value;
  };
  std::vector<StringFlag> string_flags;
  std::vector<std::pair<std::string, std::string>> trace_options;
  MainCommand command = MainCommand::kExplore;

  // Flag values.
  std::string strategy;
  std::uint64_t seed = 0;
  std::uint64_t max_steps = 0;
  std::uint32_t max_depth = 0;
  std::uint32_t workers = 1;
  std::uint32_t explore_threads = 0;  // --threads of an exploration (0: every CPU)
  std::uint64_t memory_limit = 0;     // bytes (0: no limit)
  bool mpi = false;                   // --mpi: one of the ranks of an MPI job
  double time_limit = 0;
  double progress_every = 10;  // seconds between progress lines without a terminal
  double coverage_target = 0;
  bool stop_on_first = false;
  bool shrink = false;
  bool quiet = false;
  std::string color = "auto";  // --color: never, auto or always
  bool list_actions = false;
  bool show_version = false;
  std::vector<std::string> report_texts;
  std::vector<std::string> weight_texts;
  std::string policy_path;  // --policy, for --strategy learned
  bool walk = false;        // --walk, for --strategy learned
  std::string trace_dir;
  // replay and shrink.
  std::string trace_path;
  std::string output_path;
  // train.
  long episodes = 1600;
  int budget = 200;
  std::uint64_t graph_steps = 20000;
  std::vector<int> hidden;
  std::string network = "move";
  long linear_episodes = learn::TrainRun{}.linear_episodes;
  int threads = 2;
  int keep_best_window = 0;
  std::string from_path;

  // Derived in parse().
  std::vector<ReportSpec> reports;
  std::map<std::string, double> weights;
  std::vector<StrategyOption> flag_options;  // --policy and --walk, as the strategy's options
  std::optional<trace::Trace> loaded_trace;
  bool parsed = false;

  // run_flags.cpp
  void build_app();
  void build_trace_app();
  void build_train_app();
  void add_learned_flags();
  // --quiet, --color, --list-actions and --version.
  void add_console_flags();
  // train_command.cpp
  int train(const Model& model);
  void add_own_flags(bool from_trace);
  void add_scale_flags();

  // run_main.cpp
  std::optional<int> parse(int argc, char** argv);
  std::optional<int> read_trace();
  std::optional<int> check_explore_flags();
  int run(const Model& model);
  int explore_model(const Model& model);
  // Explores, shows the run and writes its reports (rank 0's, of several processes).
  int explore_and_show(const Model& model, Strategy& strategy, Ranks* ranks);
  std::optional<int> check_model(const Model& model) const;
  std::optional<int> check_outputs() const;
  Options explore_options(ProgressLine& progress, ProgressLog& progress_log) const;
  int write_reports(const RunReport& report, std::ostream& console, int code) const;
  int write_traces(const RunReport& report, std::ostream& console, int code) const;
  int usage_error(const std::string& message) const;
  // "PROGRAM: MESSAGE" on standard error, the message made safe to show.
  void print_error(const Status& status) const;
  // What the traces this program writes record besides the finding: the trace options, then
  // each of the program's own int flags as NAME=VALUE.
  std::vector<std::pair<std::string, std::string>> own_options() const {
    std::vector<std::pair<std::string, std::string>> options = trace_options;
    for (const IntFlag& f : int_flags) {
      options.emplace_back(detail::trace_key(f.name), std::to_string(*f.value));
    }
    return options;
  }
};

}  // namespace prowl
