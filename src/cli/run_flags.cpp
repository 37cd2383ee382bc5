// The flags of a run_main program and their help: exploring's (build_app) and replay's and
// shrink's (build_trace_app), with the program's own flags (add_own_flags) in both.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "command_line_impl.hpp"
#include "prowl/report/format.hpp"
#include "prowl/strategy/factory.hpp"

namespace prowl {

namespace detail {

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

CLI::Validator size_in_bytes() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        // Digits, then an optional K, M, G or T (powers of 1024), with an optional "iB" or "B".
        std::size_t digits = 0;
        while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
        std::string unit = text.substr(digits);
        for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        static constexpr std::string_view kUnits = "KMGT";
        std::uint64_t scale = 1;
        if (!unit.empty() && unit != "B") {
          const std::size_t power = kUnits.find(unit[0]);
          const std::string_view rest = std::string_view(unit).substr(1);
          if (power == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
            digits = 0;  // not a size
          }
          scale = std::uint64_t{1} << (10 * (power + 1));
        }
        std::uint64_t value = 0;
        if (digits == 0 ||
            std::from_chars(text.data(), text.data() + digits, value).ec != std::errc()) {
          return fmt::format("'{}' is not a size: write bytes, or a number with K, M, G or T (4G)",
                             text);
        }
        if (value == 0) return fmt::format("'{}': a memory limit must be above 0", text);
        if (value > UINT64_MAX / scale) return fmt::format("'{}' is too large", text);
        text = std::to_string(value * scale);
        return {};
      },
      "");
}

std::string trace_key(const std::string& flag) {
  return flag.substr(std::min(flag.find_first_not_of('-'), flag.size()));
}

}  // namespace detail

namespace {

using detail::decimal_integer;
using detail::size_in_bytes;
using detail::trace_key;

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

}  // namespace

void CommandLine::Impl::build_app() {
  app = std::make_unique<CLI::App>(
      settings.description.empty() ? std::string() : settings.description + "\n", program);
  app->footer(std::string(kFooter));
  strategy = settings.default_strategy;
  app->add_option("--strategy", strategy,
                  fmt::format("search strategy: {} (default {}), with its options after a colon "
                              "(mcts:c=1.4, weighted:ACTION=W; docs/strategies.md)",
                              fmt::join(strategy_names(), ", "), settings.default_strategy))
      ->type_name("NAME[:KEY=VALUE,...]");
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
  app->add_option("--progress-every", progress_every,
                  "when standard error is not a terminal (a CI log), write a progress line there "
                  "every SECONDS (default 10)")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber);
  add_scale_flags();
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
  add_learned_flags();
  add_own_flags(/*from_trace=*/false);
  for (const Positional& p : positionals) {
    app->add_option(p.name, *p.value, p.help)->required()->type_name("");
  }
  add_console_flags();
  if (positionals.empty()) {
    app->footer(
        fmt::format("Commands on a trace file (written by --trace-dir), instead of exploring:\n"
                    "  {0} replay TRACE            replay it; say whether its failure happens\n"
                    "  {0} shrink TRACE [-o OUT]   shorten it while the same failure happens\n"
                    "And one that trains --strategy learned's policy on the model:\n"
                    "  {0} train -o FILE           (run '{0} train --help')\n"
                    "Run '{0} replay --help' for the details.\n{1}",
                    program, kFooter));
  }
}

void CommandLine::Impl::add_console_flags() {
  app->add_flag("--quiet", quiet, "print only the findings and a one-line summary");
  app->add_option("--color", color,
                  "colour the console report: auto (default: on a terminal, unless NO_COLOR is "
                  "set), never or always")
      ->check(CLI::IsMember({"auto", "never", "always"}))
      ->type_name("WHEN");
  app->add_flag("--list-actions", list_actions,
                "list the model's actions and invariants, and exit");
  app->add_flag("--version", show_version, "print prowl's version and exit");
}

// How much of the machine a run uses: workers, threads, memory.
void CommandLine::Impl::add_scale_flags() {
  app->add_option("--workers", workers,
                  "explore with N workers at once, each with its own copy of the services and "
                  "database files (live targets on SQLite; default 1)")
      ->type_name("N")
      ->transform(decimal_integer(false))
      ->check(CLI::Range(1, 256).description(""));
  app->add_option("--threads", explore_threads,
                  "explore an in-memory model breadth-first on N threads (default: every CPU; "
                  "other strategies and live targets run one)")
      ->type_name("N")
      ->transform(decimal_integer(false))
      ->check(CLI::Range(1, 1024).description(""));
  app->add_option("--memory-limit", memory_limit,
                  "stop with a report (termination memory) once prowl's resident memory reaches "
                  "SIZE: bytes, or a number with K, M, G or T (4G) (default: no limit)")
      ->type_name("SIZE")
      ->transform(size_in_bytes());
  app->add_flag("--mpi", mpi,
                "be one of the processes an MPI launcher started (mpirun -np K PROGRAM --mpi): "
                "they explore breadth-first together, each the states it owns, and rank 0 "
                "writes the reports");
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

void CommandLine::Impl::add_learned_flags() {
  app->add_option("--policy", policy_path,
                  "the policy file for --strategy learned (PROGRAM train or prowl train writes "
                  "one)")
      ->type_name("FILE");
  app->add_flag("--walk", walk,
                "--strategy learned walks along known transitions and back, as in training, "
                "instead of drawing among the pairs of sampled open states");
}

void CommandLine::Impl::build_train_app() {
  app = std::make_unique<CLI::App>(
      "Trains a policy for --strategy learned on this program's model: explores its state graph\n"
      "breadth first, then trains a move policy by A2C on episodes of --budget steps from the\n"
      "initial state (each pair or back a step; the reward, the share of new states), and writes\n"
      "it as a policy file. See docs/learned.md.\n",
      program);
  app->footer(
      "Exit codes: 0 written, 2 bad usage or a bad --from policy, 3 the file cannot be written,\n"
      "70 internal error, 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (FILE left as it was).\n");
  app->add_option("-o,--output", output_path, "the policy file to write")->required();
  app->add_option("--episodes", episodes, "training episodes, 16 an update (default 1600)")
      ->type_name("N")
      ->check(CLI::Range(1L, 1'000'000'000L));
  app->add_option("--budget", budget, "steps of an episode (default 200)")
      ->type_name("T")
      ->check(CLI::Range(1, 1'000'000));
  app->add_option("--states", graph_steps,
                  "explore the model's graph for at most N steps first (default 20000)")
      ->type_name("N")
      ->transform(decimal_integer(false));
  app->add_option("--seed", seed, "seed of the training's choices and weights (default 1)")
      ->type_name("S")
      ->transform(decimal_integer(false));
  seed = 1;
  app->add_option("--hidden", hidden, "hidden layer widths of the move scorer (none: linear)")
      ->type_name("W ...")
      ->check(CLI::Range(1, 4096));
  app->add_option("--network", network,
                  "move (default): a scorer over each move's features; graph: the GGNN graph "
                  "policy over the memory")
      ->check(CLI::IsMember({"move", "graph"}));
  app->add_option("--linear-episodes", linear_episodes, std::string(learn::kLinearEpisodesHelp))
      ->type_name("N")
      ->check(CLI::Range(0L, 1'000'000'000L));
  app->add_option("--keep-best-window", keep_best_window, std::string(learn::kKeepBestWindowHelp))
      ->type_name("B")
      ->check(CLI::Range(0, learn::kMaxKeepBestWindow));
  app->add_option("--threads", threads, "play each update's episodes over N threads (default 2)")
      ->type_name("N")
      ->check(CLI::Range(1, 64));
  app->add_option("--from", from_path,
                  "fine-tune this policy file (er-app's, or one trained on a model) instead of "
                  "training a new one")
      ->type_name("FILE");
  add_own_flags(/*from_trace=*/false);
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

}  // namespace prowl
