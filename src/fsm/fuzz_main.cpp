#include "prowl/fsm/fuzz_main.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <iostream>
#include <random>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "prowl/core/exit_code.hpp"
#include "prowl/fsm/campaign_report.hpp"
#include "prowl/fsm/fuzzer.hpp"
#include "prowl/fsm/isolate.hpp"
#include "prowl/fsm/runner.hpp"
#include "prowl/report/format.hpp"
#include "prowl/trace/shrink.hpp"
#include "run_codec.hpp"

namespace prowl::fsm {
namespace {

enum class Command { kFuzz, kReplay, kShrink };

}  // namespace

struct FuzzCommandLine::Impl {
  explicit Impl(FuzzSettings s) : settings(std::move(s)) {}

  FuzzSettings settings;
  std::string program;
  struct ModelOption {
    std::string name, help;
    std::string* value;
    std::vector<std::string> choices;
    CLI::Option* fuzz_flag = nullptr;
    CLI::Option* replay_flag = nullptr;
    CLI::Option* shrink_flag = nullptr;
  };
  std::vector<ModelOption> model_options;
  Command command = Command::kFuzz;
  bool parsed = false;

  // fuzz
  std::optional<std::uint64_t> seed;
  std::uint64_t runs = 0;
  double time_limit = 0;
  double run_timeout = 10;
  std::size_t max_steps = 50;
  std::string out_dir = "prowl-fuzz";
  bool stats = false;
  bool no_fork = false;
  bool print_fsm = false;
  bool quiet = false;
  std::vector<std::string> report_texts;
  std::vector<ReportSpec> reports;
  // replay, shrink
  std::string trace_path;
  std::string output_path;
  std::size_t max_candidates = 0;
  trace::Trace trace;

  std::optional<int> parse(int argc, char** argv);
  void add_fuzz_flags(CLI::App* fuzz_cmd);
  void add_trace_flags(CLI::App* replay_cmd, CLI::App* shrink_cmd);
  void add_model_options(CLI::App* fuzz_cmd, CLI::App* replay_cmd, CLI::App* shrink_cmd);
  std::optional<int> parse_app(CLI::App& app, int argc, char** argv) const;
  std::optional<int> read_trace();
  int run(MachineCore& machine);
  int fuzz(const MachineCore& machine);
  std::optional<int> parse_reports();
  int write_reports(const MachineCore& machine, const FuzzOptions& options,
                    const FuzzSummary& summary, const Stats& counters, std::ostream& out,
                    int code) const;
  int replay(const MachineCore& machine);
  int shrink(const MachineCore& machine);
  trace::Header header(const MachineCore& machine) const;
  RunResult replay_once(const MachineCore& machine, const trace::Trace& t, Stats* stats,
                        bool quiet_output);
};

std::optional<int> FuzzCommandLine::Impl::parse(int argc, char** argv) {
  program = settings.program.empty()
                ? std::filesystem::path(argc > 0 ? argv[0] : "fuzz").filename().string()
                : settings.program;
  CLI::App app(settings.description.empty() ? std::string() : settings.description + "\n", program);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 no failure, 1 failures found or reproduced, 2 bad usage, configuration or "
      "trace, 3 environment failure.");
  CLI::App* fuzz_cmd = app.add_subcommand("fuzz",
                                          "run weighted random walks, each in a forked "
                                          "process, and keep one trace per failure bucket");
  CLI::App* replay_cmd = app.add_subcommand("replay", "run a trace and report how it ends");
  CLI::App* shrink_cmd = app.add_subcommand(
      "shrink", "reduce a failing trace to a minimal one that fails the same way");
  add_fuzz_flags(fuzz_cmd);
  for (CLI::App* sub : {fuzz_cmd, replay_cmd, shrink_cmd}) {
    sub->add_option("--run-timeout", run_timeout, "seconds a run may take (default 10)")
        ->type_name("SECONDS")
        ->check(CLI::PositiveNumber);
    sub->add_flag("--no-fork", no_fork, "run in this process (no crash isolation; for debuggers)");
  }
  add_trace_flags(replay_cmd, shrink_cmd);
  add_model_options(fuzz_cmd, replay_cmd, shrink_cmd);
  if (std::optional<int> code = parse_app(app, argc, argv)) return code;
  if (replay_cmd->parsed()) command = Command::kReplay;
  if (shrink_cmd->parsed()) command = Command::kShrink;
  if (command != Command::kFuzz) {
    if (std::optional<int> code = read_trace()) return code;
  } else if (std::optional<int> code = parse_reports()) {
    return code;
  }
  parsed = true;
  return std::nullopt;
}

void FuzzCommandLine::Impl::add_fuzz_flags(CLI::App* fuzz_cmd) {
  fuzz_cmd->add_option("--seed", seed, "seed of the session (default: random, printed)")
      ->type_name("N");
  fuzz_cmd->add_option("--runs", runs, "stop after N runs (default 0: no limit)")->type_name("N");
  fuzz_cmd->add_option("--time-limit", time_limit, "stop after SECONDS (default 0: no limit)")
      ->type_name("SECONDS");
  fuzz_cmd->add_option("--max-steps", max_steps, "actions per run at most (default 50)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  fuzz_cmd->add_option("--out", out_dir, "where buckets go (default prowl-fuzz)")->type_name("DIR");
  fuzz_cmd->add_flag("--stats", stats, "print per-state and per-action counts at the end");
  fuzz_cmd->add_flag("--print-fsm", print_fsm,
                     "print every state's transitions with their probabilities and exit");
  fuzz_cmd->add_flag("--quiet", quiet, "no line per new bucket while fuzzing");
  fuzz_cmd
      ->add_option("--report", report_texts,
                   fmt::format("also write the campaign as a report, a finding per bucket, when "
                               "it ends or is interrupted; repeatable; FORMAT is one of {}; "
                               "FILE '-' is standard output",
                               fmt::join(report_format_names(), ", ")))
      ->type_name("FORMAT:FILE");
}

// The --report specs, checked before anything runs. Returns the exit code of a bad one.
std::optional<int> FuzzCommandLine::Impl::parse_reports() {
  for (const std::string& text : report_texts) {
    auto spec = parse_report_spec(text);
    if (!spec) {
      std::cerr << program << ": " << spec.status().message() << '\n';
      return kExitUsage;
    }
    reports.push_back(std::move(*spec));
  }
  return std::nullopt;
}

void FuzzCommandLine::Impl::add_trace_flags(CLI::App* replay_cmd, CLI::App* shrink_cmd) {
  replay_cmd->add_option("TRACE", trace_path, "the trace file")->required();
  shrink_cmd->add_option("TRACE", trace_path, "the trace file")->required();
  shrink_cmd
      ->add_option("-o,--output", output_path,
                   "where the shrunk trace goes (default: x.trace -> x.shrunk.trace)")
      ->type_name("FILE");
  shrink_cmd
      ->add_option("--max-candidates", max_candidates,
                   "stop after trying N candidates (default 0: no limit)")
      ->type_name("N");
}

// Each of the program's own options is a flag of every subcommand; the replay and shrink flags
// are kept so that read_trace() can tell an option given from one to take from the trace.
void FuzzCommandLine::Impl::add_model_options(CLI::App* fuzz_cmd, CLI::App* replay_cmd,
                                              CLI::App* shrink_cmd) {
  for (ModelOption& o : model_options) {
    std::string help = o.help;
    if (!o.choices.empty()) help += fmt::format(" ({})", fmt::join(o.choices, ", "));
    help += fmt::format(" (default {})", *o.value);
    auto add = [&](CLI::App* sub, const std::string& extra) {
      CLI::Option* opt = sub->add_option("--" + o.name, *o.value, help + extra)->type_name("VALUE");
      if (!o.choices.empty()) opt->check(CLI::IsMember(o.choices));
      return opt;
    };
    o.fuzz_flag = add(fuzz_cmd, "");
    o.replay_flag = add(replay_cmd, "; default: the trace's");
    o.shrink_flag = add(shrink_cmd, "; default: the trace's");
  }
}

// Returns the exit code when the program stops here: after --help, or after bad usage.
std::optional<int> FuzzCommandLine::Impl::parse_app(CLI::App& app, int argc, char** argv) const {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help for a subcommand's --help through CallForHelp too.
    if (e.get_exit_code() == 0) {
      std::cout << app.help();
      return kExitOk;
    }
    std::cerr << program << ": " << e.what() << "\nRun '" << program << " --help' for usage.\n";
    return kExitUsage;
  }
  return std::nullopt;
}

// Reads the trace to replay or shrink, and takes from its header each option not given as a
// flag. Returns the exit code when the trace cannot be used.
std::optional<int> FuzzCommandLine::Impl::read_trace() {
  auto read = trace::read_trace_file(trace_path);
  if (!read) {
    std::cerr << read.status().message() << '\n';
    return kExitUsage;
  }
  trace = std::move(*read);
  for (ModelOption& o : model_options) {
    CLI::Option* flag = command == Command::kReplay ? o.replay_flag : o.shrink_flag;
    if (flag->count() != 0) continue;
    std::optional<std::string> value = trace.header.option(o.name);
    if (!value) continue;
    if (!o.choices.empty() &&
        std::find(o.choices.begin(), o.choices.end(), *value) == o.choices.end()) {
      std::cerr << fmt::format("{}:1: option {}={} is not one of {}\n", trace_path, o.name, *value,
                               fmt::join(o.choices, ", "));
      return kExitUsage;
    }
    *o.value = *value;
  }
  return std::nullopt;
}

trace::Header FuzzCommandLine::Impl::header(const MachineCore& machine) const {
  trace::Header h;
  h.model = machine.name();
  h.set_option("kind", "fuzz");
  for (const ModelOption& o : model_options) h.set_option(o.name, *o.value);
  return h;
}

int FuzzCommandLine::Impl::run(MachineCore& machine) {
  PROWL_CHECK(parsed, "FuzzCommandLine::run() needs a successful parse()");
  if (Status s = machine.finalize(); !s) {
    std::cerr << program << ": " << s.message() << '\n';
    return kExitUsage;
  }
  switch (command) {
    case Command::kFuzz:
      return fuzz(machine);
    case Command::kReplay:
      return replay(machine);
    case Command::kShrink:
      return shrink(machine);
  }
  return kExitInternal;
}

int FuzzCommandLine::Impl::fuzz(const MachineCore& machine) {
  if (print_fsm) {
    std::cout << machine.describe();
    return kExitOk;
  }
  // Checked before fuzzing, so that a bad path does not cost a campaign.
  for (const ReportSpec& spec : reports) {
    if (Status st = check_report_destination(spec); !st) {
      std::cerr << program << ": " << st.message() << '\n';
      return kExitUsage;
    }
  }
  // A report on standard output has it to itself: the campaign's lines go to standard error.
  const bool report_to_stdout = std::any_of(
      reports.begin(), reports.end(), [](const ReportSpec& spec) { return spec.to_stdout(); });
  std::ostream& out = report_to_stdout ? std::cerr : std::cout;
  FuzzOptions options;
  options.seed = seed ? *seed : std::random_device{}();
  options.runs = runs;
  options.time_limit = time_limit;
  options.run_timeout = run_timeout;
  options.walk.max_steps = max_steps;
  options.out_dir = out_dir;
  options.fork = !no_fork;
  options.quiet = quiet;
  options.status_line = !quiet && ::isatty(STDERR_FILENO) != 0;
  const trace::Header h = header(machine);
  std::string opts;
  for (const auto& [k, v] : h.options) opts += fmt::format(" {}={}", k, v);
  out << fmt::format("fuzzing {}{} with seed {}{}, output in {}/\n", machine.name(), opts,
                     options.seed, options.fork ? "" : " in this process (--no-fork)",
                     options.out_dir)
      << std::flush;
  Stats counters(machine.states().size(), machine.actions().size());
  auto summary = fsm::fuzz(machine, h, options, &counters, out);
  if (!summary) {
    std::cerr << program << ": " << summary.status().message() << '\n';
    return summary.status().exit_code();
  }
  out << format_summary(*summary);
  if (stats) out << '\n' << counters.table(machine);
  int code = summary->buckets.empty() ? kExitOk : kExitFindings;
  if (!summary->error.empty()) {
    // What was found until then is still reported.
    std::cerr << program << ": " << summary->error << '\n';
    code = kExitEnvironment;
  }
  // A signal while the reports are written is held until they are (a report half-written and
  // cut short would be lost).
  detail::StopSignals hold_signals;
  return write_reports(machine, options, *summary, counters, out, code);
}

// Writes every --report, also after an interrupted campaign. A report that cannot be written does
// not stop the others; its exit code replaces `code` unless that says worse already.
int FuzzCommandLine::Impl::write_reports(const MachineCore& machine, const FuzzOptions& options,
                                         const FuzzSummary& summary, const Stats& counters,
                                         std::ostream& out, int code) const {
  if (reports.empty()) return code;
  Campaign campaign;
  campaign.model = machine.name();
  campaign.options = options;
  campaign.summary = summary;
  campaign.coverage = campaign_coverage(machine, counters, summary);
  campaign.states_entered = states_entered(machine, counters);
  read_bucket_traces(campaign);
  const RunReport report = campaign_report(campaign);
  for (const ReportSpec& spec : reports) {
    if (Status st = write_report(spec, report); !st) {
      std::cerr << program << ": " << st.message() << '\n';
      if (code < kExitUsage) code = st.exit_code();
      continue;
    }
    if (!spec.to_stdout()) out << fmt::format("{} report written to {}\n", spec.format, spec.path);
  }
  return code;
}

RunResult FuzzCommandLine::Impl::replay_once(const MachineCore& machine, const trace::Trace& t,
                                             Stats* stats, bool quiet_output) {
  if (no_fork) return fsm::replay(machine, t, stats);
  // The child's output is captured, so a crash is described as the fuzzer describes it, and
  // shown afterwards unless quiet.
  detail::MemoryFile output;
  IsolateOptions iso;
  iso.timeout_seconds = run_timeout;
  iso.interrupted = [] { return detail::StopSignals::stopped(); };
  if (output.ok()) iso.output_fd = output.fd();
  auto isolated =
      run_isolated([&] { return detail::encode_run(fsm::replay(machine, t, stats)); }, iso);
  if (!isolated) {
    RunResult r;
    r.kind = RunKind::kCrash;
    r.message = isolated.status().message();
    return r;
  }
  const std::string text = output.ok() ? output.contents() : std::string();
  if (!quiet_output) std::cerr << text << std::flush;
  RunResult r = detail::classify_isolated(*isolated, run_timeout);
  if ((r.kind == RunKind::kCrash || r.kind == RunKind::kTimeout) && stats != nullptr) {
    r.steps = stats->progress();
    if (r.steps >= 1 && r.steps <= t.steps.size()) r.action = t.steps[r.steps - 1].action;
  }
  detail::add_output_to_crash(r, text);
  return r;
}

namespace {

bool check_model(const std::string& path, const trace::Trace& t, const MachineCore& machine,
                 const std::string& program) {
  if (t.header.model == machine.name()) return true;
  std::cerr << fmt::format("{}:1: a trace of model '{}'; {} runs '{}'\n", path, t.header.model,
                           program, machine.name());
  return false;
}

std::string describe_end(const RunResult& r, const trace::Trace& t) {
  const std::size_t line =
      r.steps >= 1 && r.steps <= t.steps.size() ? t.steps[r.steps - 1].line : 0;
  return fmt::format("{} at step {} ({}{})\n  {}\n", to_string(r.kind), r.steps, r.action,
                     line != 0 ? fmt::format(", line {}", line) : "", r.signature());
}

}  // namespace

int FuzzCommandLine::Impl::replay(const MachineCore& machine) {
  if (!check_model(trace_path, trace, machine, program)) return kExitUsage;
  std::cout << fmt::format("replaying {}: {} steps\n", trace_path, trace.steps.size())
            << std::flush;
  Stats stats(machine.states().size(), machine.actions().size());
  detail::StopSignals signals;
  const RunResult r = replay_once(machine, trace, &stats, false);
  if (detail::StopSignals::stopped()) {
    std::cout << "interrupted\n";
    return signal_exit_code(detail::StopSignals::signal());
  }
  if (r.kind == RunKind::kBadTrace) {
    std::cerr << fmt::format("{}:{}: {}\n", trace_path, r.line, r.message);
    return kExitUsage;
  }
  if (r.kind == RunKind::kOk) {
    std::cout << fmt::format("ran clean: {} steps\n", r.steps);
    return kExitOk;
  }
  std::cout << describe_end(r, trace);
  if (r.kind == RunKind::kFinding) std::cout << "  " << r.message << '\n';
  return kExitFindings;
}

int FuzzCommandLine::Impl::shrink(const MachineCore& machine) {
  if (!check_model(trace_path, trace, machine, program)) return kExitUsage;
  const auto start = std::chrono::steady_clock::now();
  Stats stats(machine.states().size(), machine.actions().size());
  detail::StopSignals signals;  // Ctrl-C: stop trying candidates, keep the best trace so far
  const RunResult original = replay_once(machine, trace, &stats, true);
  if (detail::StopSignals::stopped()) {
    std::cout << "interrupted\n";
    return signal_exit_code(detail::StopSignals::signal());
  }
  if (original.kind == RunKind::kBadTrace) {
    std::cerr << fmt::format("{}:{}: {}\n", trace_path, original.line, original.message);
    return kExitUsage;
  }
  if (!original.failed()) {
    std::cerr << fmt::format("{}: the trace runs clean ({} steps); there is nothing to shrink\n",
                             trace_path, original.steps);
    return kExitUsage;
  }
  const std::string signature = original.signature();
  std::cout << fmt::format("shrinking {}: {} steps, failing with\n  {}\n", trace_path,
                           trace.steps.size(), signature)
            << std::flush;
  trace::Trace start_trace = trace;
  if (original.steps >= 1 && original.steps < start_trace.steps.size()) {
    start_trace.steps.resize(original.steps);  // nothing after the failing step matters
  }
  trace::ShrinkStats shrink_stats;
  trace::Trace shrunk = trace::shrink_trace(
      start_trace,
      [&](const trace::Trace& candidate) {
        if (detail::StopSignals::stopped()) return false;
        Stats candidate_stats(machine.states().size(), machine.actions().size());
        return replay_once(machine, candidate, &candidate_stats, true).signature() == signature;
      },
      {max_candidates}, &shrink_stats);
  const std::string out_path =
      output_path.empty() ? trace::shrunk_trace_path(trace_path) : output_path;
  if (Status st = trace::write_trace_file(out_path, shrunk); !st) {
    std::cerr << program << ": " << st.message() << '\n';
    return st.exit_code();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (detail::StopSignals::stopped()) std::cout << "interrupted: the best trace so far\n";
  std::cout << fmt::format("steps: {} -> {} ({} candidates tried, {:.1f} s)\n", trace.steps.size(),
                           shrunk.steps.size(), shrink_stats.candidates, seconds)
            << trace::write_trace(shrunk) << fmt::format("shrunk trace written to {}\n", out_path);
  return kExitFindings;
}

FuzzCommandLine::FuzzCommandLine(FuzzSettings settings)
    : impl_(std::make_unique<Impl>(std::move(settings))) {}
FuzzCommandLine::~FuzzCommandLine() = default;

void FuzzCommandLine::add_option(const std::string& name, const std::string& help,
                                 std::string* value, std::vector<std::string> choices) {
  PROWL_CHECK(!impl_->parsed, "options are added before parse()");
  PROWL_CHECK(value != nullptr, "an option needs a value");
  impl_->model_options.push_back({name, help, value, std::move(choices)});
}

std::optional<int> FuzzCommandLine::parse(int argc, char** argv) {
  return impl_->parse(argc, argv);
}

int FuzzCommandLine::run(MachineCore& machine) { return impl_->run(machine); }

int fuzz_main(MachineCore& machine, int argc, char** argv, FuzzSettings settings) {
  try {
    FuzzCommandLine command_line(std::move(settings));
    if (std::optional<int> code = command_line.parse(argc, argv)) return *code;
    return command_line.run(machine);
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << '\n';
    return kExitInternal;
  }
}

}  // namespace prowl::fsm
