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
#include <map>
#include <random>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "action_list.hpp"
#include "prowl/cli/version.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/format.hpp"
#include "prowl/strategy/factory.hpp"
#include "trace_command.hpp"

namespace prowl {

namespace {

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

// CLI11 reads integers with strtoull/strtoll in base 0, so "-1" wraps around and "010" is octal.
// This accepts decimal digits only (and a leading '-' when negative values are allowed), and drops
// leading zeros before CLI11 converts the text.
CLI::Validator decimal_integer(bool allow_negative) {
  return CLI::Validator(
      [allow_negative](std::string& text) -> std::string {
        const std::size_t sign = allow_negative && !text.empty() && text[0] == '-' ? 1 : 0;
        const bool digits = text.size() > sign &&
                            std::all_of(text.begin() + static_cast<std::ptrdiff_t>(sign),
                                        text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits) {
          return fmt::format("'{}' is not a {}decimal integer", text,
                             allow_negative ? "" : "non-negative ");
        }
        const std::size_t first = std::min(text.find_first_not_of('0', sign), text.size() - 1);
        text.erase(sign, first - sign);
        std::int64_t as_signed = 0;
        std::uint64_t as_unsigned = 0;
        const char* end = text.data() + text.size();
        const bool fits = allow_negative
                              ? std::from_chars(text.data(), end, as_signed).ec == std::errc()
                              : std::from_chars(text.data(), end, as_unsigned).ec == std::errc();
        if (!fits) return fmt::format("'{}' is too large", text);
        return {};
      },
      "");
}

std::string program_name(const MainSettings& settings, int argc, char** argv) {
  if (!settings.program.empty()) return settings.program;
  if (argc > 0 && argv[0] != nullptr && argv[0][0] != '\0') {
    return std::filesystem::path(argv[0]).filename().string();
  }
  return "prowl";
}

constexpr std::string_view kFooter =
    "Exit codes: 0 no findings, 1 findings, 2 bad usage, options or model,\n"
    "3 environment failure, 70 internal error (a bug in prowl; please report it),\n"
    "130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (the systems are restored and the reports\n"
    "written first; a second signal skips confirming the findings, a third stops at once).\n";
constexpr std::string_view kReplayFooter =
    "Exit codes: 0 the trace ran clean, 1 it failed (a finding), 2 bad usage or a trace that\n"
    "is malformed or does not fit the model, 3 environment failure, 70 internal error,\n"
    "130/143/129 stopped by SIGINT/SIGTERM/SIGHUP after the step under way.\n";
constexpr std::string_view kShrinkFooter =
    "Exit codes: 1 the trace was shrunk and written (its failure still happens), 2 bad usage,\n"
    "a trace that is malformed or does not fit the model, or one that does not fail on replay\n"
    "(nothing to shrink), 3 environment failure (also: OUT cannot be written), 70 internal\n"
    "error, 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (the shortest trace found so far is\n"
    "written).\n";

std::string_view command_name(MainCommand command) {
  switch (command) {
    case MainCommand::kExplore:
      return "explore";
    case MainCommand::kReplay:
      return "replay";
    case MainCommand::kShrink:
      return "shrink";
  }
  return "explore";
}

// The trace option that records a program's own flag: its name without the leading dashes.
std::string trace_key(const std::string& flag) {
  return flag.substr(std::min(flag.find_first_not_of('-'), flag.size()));
}

}  // namespace

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
  double time_limit = 0;
  double coverage_target = 0;
  bool stop_on_first = false;
  bool shrink = false;
  bool quiet = false;
  bool list_actions = false;
  bool show_version = false;
  std::vector<std::string> report_texts;
  std::vector<std::string> weight_texts;
  std::string trace_dir;
  // replay and shrink.
  std::string trace_path;
  std::string output_path;

  // Derived in parse().
  std::vector<ReportSpec> reports;
  std::map<std::string, double> weights;
  std::optional<trace::Trace> loaded_trace;
  bool parsed = false;

  void build_app();
  void build_trace_app();
  void add_own_flags(bool from_trace);
  std::optional<int> parse(int argc, char** argv);
  std::optional<int> read_trace();
  std::optional<int> check_explore_flags();
  int run(const Model& model);
  int explore_model(const Model& model);
  int usage_error(const std::string& message) const;
  // What the traces this program writes record besides the finding: the trace options, then
  // each of the program's own int flags as NAME=VALUE.
  std::vector<std::pair<std::string, std::string>> own_options() const {
    std::vector<std::pair<std::string, std::string>> options = trace_options;
    for (const IntFlag& f : int_flags) {
      options.emplace_back(trace_key(f.name), std::to_string(*f.value));
    }
    return options;
  }
};

void CommandLine::Impl::build_app() {
  app = std::make_unique<CLI::App>(
      settings.description.empty() ? std::string() : settings.description + "\n", program);
  app->footer(std::string(kFooter));
  strategy = settings.default_strategy;
  app->add_option("--strategy", strategy,
                  fmt::format("search strategy: {} (default {})", fmt::join(strategy_names(), ", "),
                              settings.default_strategy))
      ->type_name("NAME");
  app->add_option("--seed", seed, "seed of the run (default: a random seed, printed in reports)")
      ->type_name("N")
      ->transform(decimal_integer(false));
  app->add_option("--max-steps", max_steps, "stop after N executed actions (default 0: no limit)")
      ->type_name("N")
      ->transform(decimal_integer(false));
  app->add_option("--max-depth", max_depth,
                  "do not expand states deeper than N actions (default 0: no limit)")
      ->type_name("N")
      ->transform(decimal_integer(false));
  app->add_option("--time-limit", time_limit, "stop after SECONDS (default 0: no limit)")
      ->type_name("SECONDS");
  app->add_option("--workers", workers,
                  "explore with N workers at once, each with its own copy of the services and "
                  "database files (live targets on SQLite; default 1)")
      ->type_name("N")
      ->transform(decimal_integer(false))
      ->check(CLI::Range(1, 256).description(""));
  app->add_option("--coverage-target", coverage_target,
                  "stop once this fraction (0..1) of the actions ran at least once (default 0: "
                  "never)")
      ->type_name("FRACTION");
  app->add_flag("--stop-on-first", stop_on_first, "stop at the first finding");
  app->add_flag("--shrink", shrink, "shorten each finding's steps by delta debugging");
  app->add_option(
         "--report", report_texts,
         fmt::format("also write a report, as FORMAT:FILE; formats: {}{} (repeatable)",
                     fmt::join(report_format_names(), ", "),
                     settings.default_reports.empty()
                         ? std::string()
                         : fmt::format("; default {}", fmt::join(settings.default_reports, " "))))
      ->type_name("FORMAT:FILE")
      ->allow_extra_args(false);
  app->add_option("--trace-dir", trace_dir,
                  "write each finding as a trace file DIR/NNN-KIND-NAME.trace, for replay and "
                  "shrink (DIR is created)")
      ->type_name("DIR");
  app->add_option("--weight", weight_texts,
                  "weight of an action for --strategy weighted, as ACTION=W with W > 0 "
                  "(repeatable)")
      ->type_name("ACTION=W")
      ->allow_extra_args(false);
  add_own_flags(/*from_trace=*/false);
  for (const Positional& p : positionals) {
    app->add_option(p.name, *p.value, p.help)->required()->type_name("");
  }
  app->add_flag("--quiet", quiet, "print only the findings and a one-line summary");
  app->add_flag("--list-actions", list_actions,
                "list the model's actions and invariants, and exit");
  app->add_flag("--version", show_version, "print prowl's version and exit");
  if (positionals.empty()) {
    app->footer(
        fmt::format("Commands on a trace file (written by --trace-dir), instead of exploring:\n"
                    "  {0} replay TRACE            replay it; say whether its failure happens\n"
                    "  {0} shrink TRACE [-o OUT]   shorten it while the same failure happens\n"
                    "Run '{0} replay --help' for the details.\n{1}",
                    program, kFooter));
  }
}

void CommandLine::Impl::add_own_flags(bool from_trace) {
  for (const IntFlag& f : int_flags) {
    app->add_option(f.name, *f.value,
                    from_trace
                        ? fmt::format("{} ({}..{}, default: the trace's {})", f.help, f.min, f.max,
                                      trace_key(f.name))
                        : fmt::format("{} ({}..{}, default {})", f.help, f.min, f.max, *f.value))
        ->type_name("N")
        ->transform(decimal_integer(true))
        ->check(CLI::Range(f.min, f.max).description(""));
  }
  for (const StringFlag& f : string_flags) {
    app->add_option(f.name, *f.value, f.help)->type_name(f.type_name);
  }
}

void CommandLine::Impl::build_trace_app() {
  const bool shrinking = command == MainCommand::kShrink;
  std::string description =
      shrinking
          ? "Shrinks a trace: replays it (it must fail), removes steps by delta debugging while "
            "the\nsame failure (kind and name) still happens, and writes the shorter trace."
          : "Replays a trace from the initial state: prints each step with its outcome and "
            "detail,\nthe failures, and whether the failure the trace records happened, after "
            "which step.";
  if (settings.command && !settings.description.empty()) description = settings.description;
  app = std::make_unique<CLI::App>(description + "\n", program);
  app->footer(std::string(shrinking ? kShrinkFooter : kReplayFooter));
  app->add_option("TRACE", trace_path, "the trace file")->required()->type_name("");
  if (shrinking) {
    app->add_option("-o,--output", output_path,
                    "where to write the shrunk trace (default: TRACE with .shrunk before its "
                    "extension: x.trace -> x.shrunk.trace)")
        ->type_name("OUT");
  }
  add_own_flags(/*from_trace=*/true);
}

int CommandLine::Impl::usage_error(const std::string& message) const {
  std::cerr << fmt::format("{}: {}\nRun '{} --help' for the options.\n", program, message, program);
  return kExitUsage;
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
    for (MainCommand c : {MainCommand::kReplay, MainCommand::kShrink}) {
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
  if (auto spec = parse_strategy_spec(strategy); !spec) return usage_error(spec.status().message());
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
  if (command != MainCommand::kExplore) {
    PROWL_CHECK(loaded_trace.has_value(), "CommandLine::run() after a parse() that failed");
    if (Status valid = model.validate(); !valid) {
      std::cerr << fmt::format("{}: {}\n", program, escape_lines(valid.message()));
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

int CommandLine::Impl::explore_model(const Model& model) {
  const Status valid = model.validate();
  if (list_actions) {
    detail::write_action_list(std::cout, model);
    if (valid) return kExitOk;
  }
  if (!valid) {
    std::cerr << fmt::format("{}: {}\n", program, escape_lines(valid.message()));
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
  auto made = make_strategy(strategy, model, seed, weights);
  if (!made) {
    std::cerr << fmt::format("{}: {}\n", program, escape_lines(made.status().message()));
    return made.status().exit_code();
  }

  // Checked before exploring: a directory that cannot be made should not cost a whole run.
  if (!trace_dir.empty()) {
    if (Status st = detail::create_trace_dir(trace_dir); !st) {
      std::cerr << fmt::format("{}: {}\n", program, escape_lines(st.message()));
      return st.exit_code();
    }
  }
  bool report_to_stdout = false;
  for (const ReportSpec& spec : reports) {
    if (Status st = check_report_destination(spec); !st)
      return usage_error(escape_lines(st.message()));
    report_to_stdout = report_to_stdout || spec.to_stdout();
  }
  // A report on standard output has it to itself: the console report goes to standard error.
  std::ostream& console = report_to_stdout ? std::cerr : std::cout;

  Options options;
  options.seed = seed;
  options.max_steps = max_steps;
  options.max_depth = max_depth;
  options.workers = workers;
  options.time_limit = time_limit;
  options.coverage_target = coverage_target;
  options.stop_on_first = stop_on_first;
  options.shrink = shrink;
  ProgressLine progress(std::cerr);
  ProgressLog progress_log(std::cerr);
  if (!quiet && ::isatty(STDERR_FILENO)) {
    options.on_progress = [&progress](const Progress& p) { progress.update(p); };
  } else if (!quiet) {
    options.on_progress = [&progress_log](const Progress& p) { progress_log.update(p); };
  }
  // Ctrl-C, SIGTERM and SIGHUP (handled since parse()) stop the run at the next step; it still
  // restores the systems and reports (prowl/core/interrupt.hpp).
  Explorer explorer(model, **made, std::move(options));
  Result<RunReport> result = explorer.run();
  progress.finish();
  int code = kExitOk;
  const RunReport* report = result ? &*result : explorer.partial_report();
  if (!result) {
    std::cerr << fmt::format("{}: {}\n", program, escape_lines(result.status().message()));
    code = result.status().exit_code();
  } else {
    code = result->findings.empty() ? kExitOk : kExitFindings;
  }
  if (report == nullptr) return code;
  // A run that failed half-way still shows what it found (unconfirmed).
  if (result || report->stats.states > 0) {
    write_console_report(console, *report, {.quiet = quiet});
    console.flush();
  }
  // Every requested report is written, also for a run that failed (with its error) or was
  // interrupted, and the traces of what was found.
  for (const ReportSpec& spec : reports) {
    if (Status st = write_report(spec, *report); !st) {
      std::cerr << fmt::format("{}: {}\n", program, escape_lines(st.message()));
      if (code < kExitUsage) code = st.exit_code();
      continue;
    }
    if (!quiet && !spec.to_stdout()) {
      console << fmt::format("{} report written to {}\n", spec.format, spec.path);
    }
  }
  if (!trace_dir.empty()) {
    auto paths = detail::write_finding_traces(*report, trace_dir, own_options());
    if (!paths) {
      std::cerr << fmt::format("{}: {}\n", program, escape_lines(paths.status().message()));
      if (code < kExitUsage) code = paths.status().exit_code();
    } else if (!quiet) {
      for (std::size_t i = 0; i < paths->size(); ++i) {
        console << fmt::format("[{}] trace written to {}\n", i + 1, (*paths)[i]);
      }
    }
  }
  if (interrupts() > 0) {
    std::cerr << fmt::format("{}: stopped by {}\n", program, signal_name(interrupt_signal()));
    return interrupt_exit_code();
  }
  return code;
}

CommandLine::CommandLine(MainSettings settings)
    : impl_(std::make_unique<Impl>(std::move(settings))) {}
CommandLine::~CommandLine() = default;

void CommandLine::add_int_flag(const std::string& name, const std::string& help, int* value,
                               int min, int max) {
  PROWL_CHECK(!impl_->parsed, "CommandLine::add_int_flag() after parse()");
  PROWL_CHECK(value != nullptr && min <= *value && *value <= max,
              fmt::format("flag {}: the default must lie in [{}, {}]", name, min, max));
  impl_->int_flags.push_back({name, help, value, min, max});
}

void CommandLine::add_string_flag(const std::string& name, const std::string& type_name,
                                  const std::string& help, std::string* value) {
  PROWL_CHECK(!impl_->parsed, "CommandLine::add_string_flag() after parse()");
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
