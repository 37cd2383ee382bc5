#include "prowl/cli/run_main.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <random>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "action_list.hpp"
#include "command_line_impl.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/core/version.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/learn/learned_strategy.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/format.hpp"
#include "prowl/report_html/html.hpp"
#include "prowl/strategy/factory.hpp"
#include "trace_command.hpp"

namespace prowl {

namespace {

using detail::decimal_integer;
using detail::trace_key;

// Parses "ACTION=W" at the last '=': W must be a finite number > 0.
Result<std::pair<std::string, double>> parse_weight(std::string_view text) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::invalid(fmt::format("weight '{}' is not ACTION=W (for example refund=3)", text));
  }
  const std::string number(text.substr(eq + 1));
  char* end = nullptr;
  const double w = number.empty() ? 0 : std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(w) || !(w > 0)) {
    return Status::invalid(fmt::format("weight '{}' needs a positive number after the '='", text));
  }
  return std::make_pair(std::string(text.substr(0, eq)), w);
}

std::string program_name(const MainSettings& settings, int argc, char** argv) {
  if (!settings.program.empty()) return settings.program;
  if (argc > 0 && argv[0] != nullptr && argv[0][0] != '\0') {
    return std::filesystem::path(argv[0]).filename().string();
  }
  return "prowl";
}

std::string_view command_name(MainCommand command) {
  switch (command) {
    case MainCommand::kExplore:
      return "explore";
    case MainCommand::kReplay:
      return "replay";
    case MainCommand::kShrink:
      return "shrink";
    case MainCommand::kTrain:
      return "train";
  }
  return "explore";
}

}  // namespace

int CommandLine::Impl::usage_error(const std::string& message) const {
  std::cerr << fmt::format("{}: {}\nRun '{} --help' for the options.\n", program, message, program);
  return kExitUsage;
}

void CommandLine::Impl::print_error(const Status& status) const {
  std::cerr << fmt::format("{}: {}\n", program, escape_lines(status.message()));
}

std::optional<int> CommandLine::Impl::parse(int argc, char** argv) {
  PROWL_CHECK(!parsed, "CommandLine::parse() called twice");
  parsed = true;
  // From the start: a signal that arrives while the model is built or a service starts is seen by
  // the run as soon as it begins, which then stops at once and still reports.
  install_interrupt_handlers();
  program = program_name(settings, argc, argv);
  if (settings.command) {
    command = *settings.command;
  } else if (positionals.empty() && argc >= 2) {
    for (MainCommand c : {MainCommand::kReplay, MainCommand::kShrink, MainCommand::kTrain}) {
      if (command_name(c) == argv[1]) command = c;
    }
    if (command != MainCommand::kExplore) {
      // CLI11 skips argv[0]: the command's name takes its place.
      program += fmt::format(" {}", command_name(command));
      --argc;
      ++argv;
    }
  }
  if (command == MainCommand::kExplore) {
    build_app();
  } else if (command == MainCommand::kTrain) {
    build_train_app();
  } else {
    build_trace_app();
  }
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app->help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app->help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // The usage without the description: the message should stay in view.
    app->description("");
    std::cerr << fmt::format("{}: {}\n\n", program, e.what()) << app->help();
    return kExitUsage;
  }
  if (command == MainCommand::kTrain) return std::nullopt;
  if (command != MainCommand::kExplore) return read_trace();
  return check_explore_flags();
}

std::optional<int> CommandLine::Impl::read_trace() {
  auto read = trace::read_trace_file(trace_path);
  if (!read) {
    std::cerr << escape_lines(read.status().message()) << '\n';
    return read.status().exit_code();
  }
  loaded_trace = std::move(*read);
  for (const IntFlag& f : int_flags) {
    const std::optional<std::string> text = loaded_trace->header.option(trace_key(f.name));
    if (app->count(f.name) > 0 || !text) continue;
    std::string digits = *text;
    std::int64_t v = 0;
    const bool ok =
        decimal_integer(true)(digits).empty() &&
        std::from_chars(digits.data(), digits.data() + digits.size(), v).ec == std::errc() &&
        v >= f.min && v <= f.max;
    if (!ok) {
      std::cerr << fmt::format("{}:1: option {}={} is not an integer in {}..{} (the {} flag)\n",
                               trace_path, trace_key(f.name), trace::quote_token(*text), f.min,
                               f.max, f.name);
      return kExitUsage;
    }
    *f.value = static_cast<int>(v);
  }
  return std::nullopt;
}

std::optional<int> CommandLine::Impl::check_explore_flags() {
  if (show_version) {
    std::cout << "prowl " << version() << '\n';
    return kExitOk;
  }
  // The options are checked with the model, which names weighted's keys.
  auto spec = parse_strategy_spec(strategy);
  if (!spec) return usage_error(spec.status().message());
  if (!policy_path.empty() || walk) {
    if (spec->name != "learned") {
      return usage_error(fmt::format(
          "--policy and --walk are for --strategy learned; the strategy is '{}'", spec->name));
    }
    if (!policy_path.empty()) flag_options.push_back({"policy", policy_path});
    if (walk) flag_options.push_back({"walk", "true"});
  }
  for (const std::string& text : report_texts) {
    auto spec = parse_report_spec(text);
    if (!spec) return usage_error(spec.status().message());
    reports.push_back(std::move(*spec));
  }
  if (report_texts.empty()) {
    for (const std::string& text : settings.default_reports) {
      auto spec = parse_report_spec(text);
      PROWL_CHECK(spec.is_ok(), "MainSettings::default_reports: " + spec.status().message());
      reports.push_back(std::move(*spec));
    }
  }
  for (const std::string& text : weight_texts) {
    auto w = parse_weight(text);
    if (!w) return usage_error(w.status().message());
    weights[w->first] = w->second;
  }
  if (app->count("--seed") == 0) seed = std::random_device{}();
  Options probe;
  probe.time_limit = time_limit;
  probe.coverage_target = coverage_target;
  if (Status st = probe.validate(); !st) return usage_error(escape_lines(st.message()));
  return std::nullopt;
}

int CommandLine::Impl::run(const Model& model) {
  PROWL_CHECK(parsed, "CommandLine::run() before parse()");
  if (command == MainCommand::kTrain) return train(model);
  if (command != MainCommand::kExplore) {
    PROWL_CHECK(loaded_trace.has_value(), "CommandLine::run() after a parse() that failed");
    if (Status valid = model.validate(); !valid) {
      print_error(valid);
      return kExitUsage;
    }
    detail::TraceCommand c{program, trace_path, *loaded_trace, output_path, own_options()};
    const int code = command == MainCommand::kReplay
                         ? detail::replay_trace_command(model, c, std::cout, std::cerr)
                         : detail::shrink_trace_command(model, c, std::cout, std::cerr);
    // Whatever a signal cut short (a service's start, a replay), the exit code says it was one.
    return interrupts() > 0 ? interrupt_exit_code() : code;
  }
  return explore_model(model);
}

namespace {
// Runs fn, turning programming errors and unexpected exceptions into kExitInternal.
template <class F>
auto guarded(const std::string& program, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const LogicError& e) {
    std::cerr << fmt::format("{}: internal error: {}\n", program, e.what());
  } catch (const std::exception& e) {
    std::cerr << fmt::format("{}: internal error: unexpected exception: {}\n", program, e.what());
  }
  return kExitInternal;
}
}  // namespace

int CommandLine::Impl::explore_model(const Model& model) {
  if (std::optional<int> code = check_model(model)) return *code;
  StrategySpec spec = *parse_strategy_spec(strategy);  // checked by parse()
  spec.options.insert(spec.options.end(), flag_options.begin(), flag_options.end());
  auto made = flag_options.empty() ? make_strategy(strategy, model, seed, weights)
                                   : make_strategy(spec, model, seed);
  if (!made) {
    print_error(made.status());
    return made.status().exit_code();
  }
  if (std::optional<int> code = check_outputs()) return *code;
  std::unique_ptr<Ranks> ranks;
  if (mpi) {
    auto started = detail::start_ranks(program);
    if (!started) {
      print_error(started.status());
      return started.status().exit_code();
    }
    ranks = std::move(*started);
  }
  // An exception is turned into its exit code here, as parse() and run() would, so that a rank
  // says what went wrong before it ends the job (Ranks::end(): an error of its own).
  const int code = guarded(program, [&] { return explore_and_show(model, **made, ranks.get()); });
  if (ranks) ranks->end(code);
  return code;
}

int CommandLine::Impl::explore_and_show(const Model& model, Strategy& strategy, Ranks* ranks) {
  // A report on standard output has it to itself: the console report goes to standard error.
  const bool report_to_stdout = std::any_of(
      reports.begin(), reports.end(), [](const ReportSpec& spec) { return spec.to_stdout(); });
  std::ostream& console = report_to_stdout ? std::cerr : std::cout;

  ProgressLine progress(std::cerr);
  ProgressLog progress_log(std::cerr, progress_every);
  // Of the processes of an MPI job, rank 0 shows the run and writes the reports.
  const bool shown = ranks == nullptr || ranks->rank() == 0;
  Options options = explore_options(progress, progress_log);
  options.ranks = ranks;
  if (!shown) options.on_progress = nullptr;
  // Ctrl-C, SIGTERM and SIGHUP (handled since parse()) stop the run at the next step; it still
  // restores the systems and reports (prowl/core/interrupt.hpp). A launcher's signal after a rank
  // died does not: the run ended for the rank (Ranks::broken()).
  Explorer explorer(model, strategy, std::move(options));
  Result<RunReport> result = explorer.run();
  progress.finish();
  const bool stopped = interrupts() > 0 && (ranks == nullptr || !ranks->broken());
  int code = kExitOk;
  const RunReport* report = result ? &*result : explorer.partial_report();
  if (!result) {
    // Of several processes, each says what went wrong on it, but a run refused as bad usage is
    // refused by every one alike: rank 0 says it.
    if (shown || result.status().code() != StatusCode::kInvalid) print_error(result.status());
    code = result.status().exit_code();
  } else {
    code = result->findings.empty() ? kExitOk : kExitFindings;
  }
  if (report == nullptr || !shown) return stopped ? interrupt_exit_code() : code;
  // A run that failed half-way still shows what it found (unconfirmed).
  if (result || report->stats.states > 0) {
    const ColorChoice choice = color == "always"  ? ColorChoice::kAlways
                               : color == "never" ? ColorChoice::kNever
                                                  : ColorChoice::kAuto;
    const int fd = report_to_stdout ? STDERR_FILENO : STDOUT_FILENO;
    write_console_report(console, *report,
                         {.quiet = quiet, .color = console_color(choice, ::isatty(fd) != 0)});
    console.flush();
  }
  // Every requested report is written, also for a run that failed (with its error) or was
  // interrupted, and the traces of what was found.
  code = write_reports(*report, console, code);
  if (!trace_dir.empty()) code = write_traces(*report, console, code);
  if (stopped) {
    std::cerr << fmt::format("{}: stopped by {}\n", program, signal_name(interrupt_signal()));
    return interrupt_exit_code();
  }
  return code;
}

// The model is valid (--list-actions lists it first, valid or not) and --weight names its actions.
std::optional<int> CommandLine::Impl::check_model(const Model& model) const {
  const Status valid = model.validate();
  if (list_actions) {
    detail::write_action_list(std::cout, model);
    if (valid) return kExitOk;
  }
  if (!valid) {
    print_error(valid);
    return kExitUsage;
  }
  for (const auto& [name, w] : weights) {
    if (model.find_action(name) == kNoAction) {
      std::vector<std::string> known;
      for (const Action& a : model.actions()) known.push_back(a.name);
      return usage_error(fmt::format("--weight names unknown action '{}'; the actions are: {}",
                                     name, fmt::join(known, ", ")));
    }
  }
  return std::nullopt;
}

// Checked before exploring: a directory that cannot be made should not cost a whole run.
std::optional<int> CommandLine::Impl::check_outputs() const {
  if (!trace_dir.empty()) {
    if (Status st = detail::create_trace_dir(trace_dir); !st) {
      print_error(st);
      return st.exit_code();
    }
  }
  for (const ReportSpec& spec : reports) {
    if (Status st = check_report_destination(spec); !st) {
      return usage_error(escape_lines(st.message()));
    }
  }
  return std::nullopt;
}

// The run's limits from the flags; live progress on standard error unless --quiet, redrawn on a
// terminal, one line at a time otherwise.
Options CommandLine::Impl::explore_options(ProgressLine& progress,
                                           ProgressLog& progress_log) const {
  Options options;
  options.seed = seed;
  options.max_steps = max_steps;
  options.max_depth = max_depth;
  options.workers = workers;
  options.threads = explore_threads;
  options.memory_limit = memory_limit;
  options.time_limit = time_limit;
  options.coverage_target = coverage_target;
  options.stop_on_first = stop_on_first;
  options.shrink = shrink;
  // The graph reports (dot, html) draw the explored graph: the run keeps every transition.
  options.record_edges = reports_need_graph(reports);
  if (!quiet && ::isatty(STDERR_FILENO)) {
    options.on_progress = [&progress](const Progress& p) { progress.update(p); };
  } else if (!quiet) {
    options.on_progress = [&progress_log](const Progress& p) { progress_log.update(p); };
    options.progress_interval = std::min(options.progress_interval, progress_every);
  }
  return options;
}

// A report that cannot be written does not stop the others; its exit code replaces `code` unless
// that says worse already.
int CommandLine::Impl::write_reports(const RunReport& report, std::ostream& console,
                                     int code) const {
  for (const ReportSpec& spec : reports) {
    if (Status st = write_report(spec, report); !st) {
      print_error(st);
      if (code < kExitUsage) code = st.exit_code();
      continue;
    }
    if (!quiet && !spec.to_stdout()) {
      console << fmt::format("{} report written to {}\n", spec.format, spec.path);
    }
  }
  return code;
}

// As write_reports(), for the --trace-dir traces of the findings.
int CommandLine::Impl::write_traces(const RunReport& report, std::ostream& console,
                                    int code) const {
  auto paths = detail::write_finding_traces(report, trace_dir, own_options());
  if (!paths) {
    print_error(paths.status());
    if (code < kExitUsage) code = paths.status().exit_code();
  } else if (!quiet) {
    for (std::size_t i = 0; i < paths->size(); ++i) {
      console << fmt::format("[{}] trace written to {}\n", i + 1, (*paths)[i]);
    }
  }
  return code;
}

CommandLine::CommandLine(MainSettings settings)
    : impl_(std::make_unique<Impl>(std::move(settings))) {
  // The strategies of the parts above prowl::explore that this one links.
  learn::register_learned_strategy();
  // The report formats of the parts above prowl::explore that this one links.
  register_html_report();
}
CommandLine::~CommandLine() = default;

namespace {

// The flags run_main defines itself, for any command: a program's own flag may not take one.
void check_own_flag_name(const std::string& name) {
  // clang-format off
  static constexpr std::string_view kReserved[] = {
      "--help",           "--strategy",  "--keep-best-window",
      "--max-steps",      "--max-depth", "--time-limit",
      "--progress-every", "--workers",   "--coverage-target",
      "--stop-on-first",  "--shrink",    "--report",
      "--trace-dir",      "--weight",    "--policy",
      "--walk",           "--quiet",     "--list-actions",
      "--version",        "--output",    "--episodes",
      "--budget",         "--states",    "--hidden",
      "--network",        "--threads",   "--from",
      "--memory-limit",   "--mpi",       "--linear-episodes",
      "--seed",           "--color"};
  // clang-format on
  PROWL_CHECK(std::find(std::begin(kReserved), std::end(kReserved), name) == std::end(kReserved),
              "flag " + name +
                  " is one of run_main's own (prowl/cli/run_main.hpp); give the "
                  "program's flag another name");
}

}  // namespace

void CommandLine::add_int_flag(const std::string& name, const std::string& help, int* value,
                               int min, int max) {
  PROWL_CHECK(!impl_->parsed, "CommandLine::add_int_flag() after parse()");
  check_own_flag_name(name);
  PROWL_CHECK(value != nullptr && min <= *value && *value <= max,
              fmt::format("flag {}: the default must lie in [{}, {}]", name, min, max));
  impl_->int_flags.push_back({name, help, value, min, max});
}

void CommandLine::add_string_flag(const std::string& name, const std::string& type_name,
                                  const std::string& help, std::string* value) {
  PROWL_CHECK(!impl_->parsed, "CommandLine::add_string_flag() after parse()");
  check_own_flag_name(name);
  PROWL_CHECK(value != nullptr && name.starts_with("--"),
              "add_string_flag: a flag needs a name starting with -- and a value");
  impl_->string_flags.push_back({name, type_name, help, value});
}

void CommandLine::add_trace_option(std::string key, std::string value) {
  const bool valid_key =
      !key.empty() && std::isalpha(static_cast<unsigned char>(key[0])) &&
      std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
      });
  PROWL_CHECK(valid_key, fmt::format("add_trace_option: '{}' is not a trace option key", key));
  impl_->trace_options.emplace_back(std::move(key), std::move(value));
}

MainCommand CommandLine::command() const {
  PROWL_CHECK(impl_->parsed, "CommandLine::command() before parse()");
  return impl_->command;
}

bool CommandLine::list_actions() const {
  PROWL_CHECK(impl_->parsed, "CommandLine::list_actions() before parse()");
  return impl_->list_actions;
}

const trace::Trace* CommandLine::trace() const {
  PROWL_CHECK(impl_->parsed, "CommandLine::trace() before parse()");
  return impl_->loaded_trace ? &*impl_->loaded_trace : nullptr;
}

const std::string& CommandLine::trace_path() const {
  PROWL_CHECK(impl_->parsed, "CommandLine::trace_path() before parse()");
  return impl_->trace_path;
}

void CommandLine::add_positional(const std::string& name, const std::string& help,
                                 std::string* value) {
  PROWL_CHECK(!impl_->parsed, "CommandLine::add_positional() after parse()");
  PROWL_CHECK(value != nullptr && !name.empty() && name[0] != '-',
              "add_positional: a positional needs a name without dashes and a value");
  impl_->positionals.push_back({name, help, value});
}

std::optional<int> CommandLine::parse(int argc, char** argv) {
  return guarded(program_name(impl_->settings, argc, argv),
                 [&]() -> std::optional<int> { return impl_->parse(argc, argv); });
}

int CommandLine::run(const Model& model) {
  return guarded(impl_->program, [&] { return impl_->run(model); });
}

int run_main(const Model& model, int argc, char** argv, MainSettings settings) {
  CommandLine command_line(std::move(settings));
  if (std::optional<int> code = command_line.parse(argc, argv)) return *code;
  return command_line.run(model);
}

}  // namespace prowl
