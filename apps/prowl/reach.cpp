// `prowl reach FILE.yaml`: symbolic reachability of a system file (docs/symbolic.md), and
// `prowl replay TRACE --system FILE.yaml` for the traces it writes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/symbolic/cross_check.hpp"
#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/reach_report.hpp"
#include "prowl/symbolic/reach_trace.hpp"
#include "prowl/symbolic/region.hpp"
#include "prowl/symbolic/system_file.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl::app {

namespace {

constexpr std::uint64_t kCountLimit = 10'000'000;

struct ReachFlags {
  std::string file;
  std::string image = "qe2";
  std::uint32_t max_depth = 100;
  double time_limit = 0;
  bool count = false;
  bool cross_check = false;
  bool all = false;
  std::string trace_dir;
  std::string json;
  std::string dump_region;
};

// CLI11's exit: 0 for --help, 2 for a usage error.
int parse_failed(const CLI::App& app, const CLI::ParseError& e) {
  const int code = app.exit(e);
  return code == 0 ? kExitOk : kExitUsage;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  std::cerr << "prowl reach: " << path << ": cannot write the file\n";
  return false;
}

// The file name of a check's trace: 001-invariant-bounded.trace.
std::string trace_name(std::size_t n, const std::string& finding) {
  std::string safe;
  for (char c : finding) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '-';
  char number[8];
  std::snprintf(number, sizeof number, "%03zu", n);
  return std::string(number) + "-" + safe + ".trace";
}

using PlannedTraces = std::vector<std::pair<std::string, trace::Trace>>;

// Each counterexample's trace and its path under --trace-dir (run.traces gets the paths).
PlannedTraces plan_traces(const ReachFlags& flags, sym::ReachRun& run) {
  const sym::ReachResult& r = *run.result;
  run.traces.assign(r.checks.size(), "");
  PlannedTraces out;
  if (flags.trace_dir.empty()) return out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    if (!r.checks[i].counterexample) continue;
    run.traces[i] =
        (std::filesystem::path(flags.trace_dir) / trace_name(++n, r.checks[i].finding)).string();
    out.emplace_back(run.traces[i],
                     sym::counterexample_trace(*run.system, *r.checks[i].counterexample, flags.file,
                                               run.options.image));
  }
  return out;
}

// Writes the planned traces; false when one could not be written (its path is cleared).
bool write_traces(const ReachFlags& flags, const PlannedTraces& traces,
                  std::vector<std::string>* paths) {
  if (traces.empty()) return true;
  std::error_code ec;
  std::filesystem::create_directories(flags.trace_dir, ec);
  bool ok = true;
  for (const auto& [path, t] : traces) {
    if (Status st = trace::write_trace_file(path, t); !st) {
      std::cerr << "prowl reach: " << st.message() << '\n';
      if (paths != nullptr) std::replace(paths->begin(), paths->end(), path, std::string());
      ok = false;
    }
  }
  return ok;
}

int exit_code_of(const sym::ReachRun& run) {
  const sym::ReachResult& r = *run.result;
  if (r.signal != 0) return signal_exit_code(r.signal);
  if (r.status == sym::ReachStatus::kViolated) return kExitFindings;
  if (run.cross_check && !run.cross_check->ok()) return kExitFindings;
  if (r.status == sym::ReachStatus::kFixpoint) return kExitOk;
  return kExitInconclusive;
}

constexpr std::chrono::milliseconds kStopGrace{2000};
constexpr std::string_view kReasonMark = "@prowl-stop-reason@";

// The report as it would be written now: rendered on the search's thread after each depth, and
// written by the main thread when a Z3 call does not return from its interrupt within kStopGrace
// (prowl/core/interrupt.hpp, run_with_grace). Plain text only: nothing of Z3's.
struct Fallback {
  bool ready = false;
  bool violated = false;
  PlannedTraces traces;
  std::string console, json, region;
};

// The fallback for the result so far; its reason is kReasonMark, replaced when it is written.
Fallback render_fallback(const ReachFlags& flags, const sym::ReachRun& run,
                         const sym::ReachResult& partial) {
  sym::ReachResult r = partial;
  Fallback f;
  f.ready = true;
  f.violated = std::any_of(r.checks.begin(), r.checks.end(), [](const sym::Check& c) {
    return c.verdict == sym::Verdict::kViolated;
  });
  r.status = f.violated ? sym::ReachStatus::kViolated : sym::ReachStatus::kInterrupted;
  r.reason = std::string(kReasonMark);
  sym::ReachRun now = run;
  now.result = &r;
  f.traces = plan_traces(flags, now);
  std::ostringstream console;
  print_reach_report(console, now);
  f.console = console.str();
  if (!flags.json.empty()) f.json = sym::reach_json(now);
  if (!flags.dump_region.empty()) f.region = sym::to_smt2(*run.system, r.region());
  return f;
}

std::string with_reason(std::string text, const std::string& reason) {
  for (std::size_t at; (at = text.find(kReasonMark)) != std::string::npos;) {
    text.replace(at, kReasonMark.size(), reason);
  }
  return text;
}

// Writes the fallback and ends the process at once: the search's thread is still inside Z3, so
// nothing it uses may be touched (not even destroyed).
[[noreturn]] void hard_stop(const ReachFlags& flags, const Fallback& f,
                            std::chrono::steady_clock::time_point started) {
  const bool signalled = interrupts() > 0;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char after[48];
  std::snprintf(after, sizeof after, " after %.1f s", seconds);
  const std::string reason =
      (signalled ? "interrupted by " + std::string(signal_name(interrupt_signal()))
                 : std::string("time limit reached")) +
      after +
      "; Z3 did not return within 2 s of its interrupt: the report is as it stood at the last "
      "depth checked";
  const int code = signalled    ? interrupt_exit_code()
                   : f.violated ? kExitFindings
                                : kExitInconclusive;
  if (!f.ready) {
    std::cout << "prowl reach: " << flags.file << ": " << reason
              << " (none: the initial states were not checked yet)\n";
  } else {
    write_traces(flags, f.traces, nullptr);
    std::cout << with_reason(f.console, reason);
    if (!flags.json.empty()) write_file(flags.json, with_reason(f.json, reason));
    if (!flags.dump_region.empty()) write_file(flags.dump_region, f.region);
  }
  std::cout.flush();
  std::cerr.flush();
  std::_Exit(code);
}

// Runs the search. When a signal or the time limit asks it to stop and Z3 does not return within
// kStopGrace, writes the report of the last depth checked and ends the process.
sym::ReachResult search(const ReachFlags& flags, const sym::SystemFile& file, sym::ReachRun& run) {
  std::mutex mutex;
  Fallback fallback;
  run.options.on_depth = [&](const sym::ReachResult& partial) {
    Fallback f = render_fallback(flags, run, partial);
    std::lock_guard lock(mutex);
    fallback = std::move(f);
  };
  std::optional<sym::ReachResult> result;
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(flags.time_limit));
  const bool returned = run_with_grace(
      [&] { result = sym::reach(*file.system, run.options); },
      [&] {
        return interrupts() > 0 ||
               (flags.time_limit > 0 && std::chrono::steady_clock::now() >= deadline);
      },
      kStopGrace);
  if (!returned) {
    std::lock_guard lock(mutex);
    hard_stop(flags, fallback, started);
  }
  run.options.on_depth = nullptr;
  return std::move(*result);
}

// --count and --cross-check, after the search. False on bad input (exit 2).
bool measure(const ReachFlags& flags, const sym::SystemFile& file, sym::ReachRun& run) {
  const sym::ReachResult& r = *run.result;
  if (r.signal != 0) return true;
  if (flags.count) {
    run.states = sym::count_states(*file.system, r.region(), {}, kCountLimit);
    if (!run.states) {
      run.warnings.push_back("--count: more than " + std::to_string(kCountLimit) +
                             " states, or Z3 could not enumerate them");
    }
  }
  if (!flags.cross_check) return true;
  const bool complete = !r.stats.empty() && !r.stats.back().new_states;
  if (!complete) {
    run.warnings.push_back("--cross-check skipped: the search did not reach its fixpoint");
    return true;
  }
  Result<sym::CrossCheck> x = sym::cross_check(*file.system, r, file.domains);
  if (!x) {
    std::cerr << flags.file << ": --cross-check: " << x.status().message() << '\n';
    return false;
  }
  run.cross_check = std::move(*x);
  return true;
}

int run_reach(const ReachFlags& flags) {
  std::optional<sym::ImageMode> image = sym::parse_image_mode(flags.image);
  if (!image) {
    std::cerr << "prowl reach: --image " << flags.image << ": the image modes are "
              << sym::kImageModeNames << '\n';
    return kExitUsage;
  }
  z3::context context;
  Result<sym::SystemFile> file = sym::read_system_file(context, flags.file);
  if (!file) {
    std::cerr << file.status().message() << '\n';
    return kExitUsage;
  }
  sym::ReachRun run;
  run.system = file->system.get();
  run.file = flags.file;
  run.options.image = *image;
  run.options.max_depth = flags.max_depth;
  run.options.time_limit = flags.time_limit;
  run.options.explore_after_violations = flags.all || flags.cross_check;
  if (flags.max_depth == 0) {
    run.warnings.push_back(
        "--max-depth 0: no depth cap; termination is not guaranteed (stop it "
        "with Ctrl-C or --time-limit)");
    std::cerr << "warning: " << run.warnings.back() << '\n';
  }
  install_interrupt_handlers();
  const sym::ReachResult result = search(flags, *file, run);
  run.result = &result;
  if (!measure(flags, *file, run)) return kExitUsage;
  bool written = write_traces(flags, plan_traces(flags, run), &run.traces);
  print_reach_report(std::cout, run);
  if (!flags.json.empty()) written = write_file(flags.json, sym::reach_json(run)) && written;
  if (!flags.dump_region.empty()) {
    written =
        write_file(flags.dump_region, sym::to_smt2(*file->system, result.region())) && written;
  }
  const int code = exit_code_of(run);
  return written || code != kExitOk ? code : kExitEnvironment;
}

}  // namespace

int reach_command(int argc, char** argv) {
  ReachFlags flags;
  CLI::App app(
      "Symbolic reachability of a system file (YAML): computes the reachable region to a fixpoint\n"
      "with Z3, proves each invariant or writes its shortest counterexample as a trace, and\n"
      "optionally checks the result against prowl's explicit BFS. See docs/symbolic.md.\n",
      "prowl reach");
  app.add_option("FILE", flags.file, "the system file (YAML)")->required();
  app.add_option("--image", flags.image,
                 "how images are computed: qe2 (default), qe, qe_rec, qe-light, psyco");
  app.add_option("--max-depth", flags.max_depth,
                 "stop after this many images with new states (default 100; 0: no cap)");
  app.add_option("--time-limit", flags.time_limit, "stop after this many seconds (0: none)")
      ->type_name("S")
      ->check(
          [](const std::string& text) -> std::string {
            double seconds = 0;
            if (!CLI::detail::lexical_cast(text, seconds) || !(seconds >= 0)) {
              return text + " is not a number of seconds (0 or more; 0: no limit)";
            }
            return {};
          },
          "S >= 0");
  app.add_flag("--count", flags.count, "count the reachable states (enumeration with Z3)");
  app.add_flag("--cross-check", flags.cross_check,
               "run prowl's explicit BFS on the system (inputs need values: or range:) and "
               "compare states, depth, states per level and shortest findings");
  app.add_flag("--all", flags.all,
               "go on to the fixpoint after every invariant is broken (default: stop)");
  app.add_option("--trace-dir", flags.trace_dir, "write each counterexample's trace here")
      ->type_name("DIR");
  app.add_option("--json", flags.json, "write the report as JSON")->type_name("FILE");
  app.add_option("--dump-region", flags.dump_region,
                 "write the reachable region as an SMT-LIB script")
      ->type_name("OUT.smt2");
  app.footer(
      "Exit codes: 0 fixpoint with every invariant proved, 1 an invariant broken (traces written)\n"
      "or the cross-check failed, 2 bad usage or system file, 4 inconclusive (the depth cap or\n"
      "time limit came first, or Z3 answered unknown), 130/143/129 interrupted by a signal.\n"
      "A signal or the time limit stops the search within 2 s, even inside a Z3 call; the report\n"
      "is written either way.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failed(app, e);
  }
  return run_reach(flags);
}

bool is_reach_trace(const std::string& path) {
  Result<trace::Trace> t = trace::read_trace_file(path);
  return t && t->header.option("kind") == "reach";
}

int reach_replay_command(int argc, char** argv) {
  std::string trace_path, system_path;
  CLI::App app(
      "Replays a trace written by `prowl reach --trace-dir` on concrete values: each step's\n"
      "guard must hold, its updates are applied, and the final state must show the finding the\n"
      "trace records. The system file is --system, else the trace's system-file option.\n",
      "prowl replay");
  app.add_option("TRACE", trace_path, "the trace")->required();
  app.add_option("--system", system_path, "the system file (YAML)")->type_name("FILE");
  app.footer("Exit codes: 1 the recorded finding happens, 0 it does not, 2 bad trace or file.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failed(app, e);
  }
  Result<trace::Trace> t = trace::read_trace_file(trace_path);
  if (!t) {
    std::cerr << t.status().message() << '\n';
    return kExitUsage;
  }
  if (system_path.empty()) system_path = t->header.option("system-file").value_or("");
  if (system_path.empty()) {
    std::cerr << trace_path << ":1: the trace names no system file; give one with --system FILE\n";
    return kExitUsage;
  }
  z3::context context;
  Result<sym::SystemFile> file = sym::read_system_file(context, system_path);
  if (!file) {
    std::cerr << file.status().message() << '\n';
    return kExitUsage;
  }
  Result<sym::ReplayResult> r = sym::replay_reach_trace(*file->system, *t, trace_path, std::cout);
  if (!r) {
    std::cerr << r.status().message() << '\n';
    return kExitUsage;
  }
  if (r->reproduced) {
    std::cout << "the failure happens: " << r->happened << " after step " << r->steps << '\n';
    return kExitFindings;
  }
  std::cout << "ran clean: the recorded finding " << r->recorded << " did not happen"
            << (r->happened.empty() ? "" : " (" + r->happened + " did)") << '\n';
  return kExitOk;
}

}  // namespace prowl::app
