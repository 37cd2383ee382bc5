#include "trace_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <system_error>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/core/plural.hpp"
#include "prowl/explore/finding_trace.hpp"
#include "prowl/explore/replay.hpp"

namespace prowl::detail {

namespace {

namespace fs = std::filesystem;

// Writes each line of `text` with `indent` in front of it, escaped (escape_lines).
void write_indented(std::ostream& out, std::string_view raw, std::string_view indent) {
  const std::string escaped = escape_lines(raw);
  std::string_view text = escaped;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    out << indent << text.substr(0, nl) << '\n';
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

// The first failure of each kind and name, with the later steps after which it failed again:
// an invariant broken once usually stays broken, and a replay that goes on past failures would
// list it after every step.
struct FailureLine {
  const ReplayFailure* first;
  std::vector<std::size_t> again;  // after_steps of its repetitions
};

std::vector<FailureLine> distinct_failures(const ReplayResult& r) {
  std::vector<FailureLine> lines;
  for (const ReplayFailure& f : r.failures) {
    auto same = std::find_if(lines.begin(), lines.end(), [&](const FailureLine& l) {
      return l.first->kind == f.kind && l.first->name == f.name;
    });
    if (same == lines.end()) {
      lines.push_back({&f, {}});
    } else {
      same->again.push_back(f.after_steps);
    }
  }
  return lines;
}

// The steps as run, numbered, each with its outcome and detail; "<- fails" marks a step after
// which a failure first happened.
void write_steps(std::ostream& out, const ReplayResult& r) {
  const std::vector<FailureLine> failures = distinct_failures(r);
  for (std::size_t i = 0; i < r.executed.size(); ++i) {
    const TraceStep& s = r.executed[i];
    std::string line =
        fmt::format("  {}. {} [{}]", i + 1, escape_text(s.action), escape_text(s.outcome));
    if (!s.detail.empty()) line += ": " + escape_text(s.detail);
    if (std::any_of(failures.begin(), failures.end(),
                    [&](const FailureLine& l) { return l.first->after_steps == i + 1; })) {
      line += "  <- fails";
    }
    out << line << '\n';
  }
}

void write_failures(std::ostream& out, const ReplayResult& r) {
  if (r.failures.empty()) return;
  out << "\nfailures:\n";
  for (const FailureLine& l : distinct_failures(r)) {
    const ReplayFailure& f = *l.first;
    std::string where = f.after_steps == 0 ? std::string("in the initial state")
                                           : fmt::format("after step {}", f.after_steps);
    if (!l.again.empty()) where += fmt::format(" (again after {})", fmt::join(l.again, ", "));
    out << fmt::format("  {}: {} {} {}\n", where, to_string(f.severity), to_string(f.kind),
                       escape_text(f.name));
    write_indented(out, f.message, "    ");
  }
}

// A replay's setup: the trace's steps and recorded failure, and a begun world.
struct Prepared {
  std::vector<TraceStep> steps;
  std::optional<FailureId> recorded;
  std::unique_ptr<World> world;
};

// Fills `p`; returns the exit code when the command must stop. Messages about the trace are
// printed as they are ("PATH:LINE: ..."), those about the environment after the program's name.
std::optional<int> prepare(const Model& model, const TraceCommand& c, std::ostream& err,
                           Prepared& p) {
  auto steps = trace_to_steps(c.trace, model, c.path);
  if (!steps) {
    err << escape_lines(steps.status().message()) << '\n';
    return steps.status().exit_code();
  }
  auto recorded = recorded_failure(c.trace, c.path);
  if (!recorded) {
    err << escape_lines(recorded.status().message()) << '\n';
    return recorded.status().exit_code();
  }
  p.steps = std::move(*steps);
  p.recorded = std::move(*recorded);
  // Ctrl-C, SIGTERM and SIGHUP stop after the step in flight (prowl/core/interrupt.hpp).
  install_interrupt_handlers();
  auto world = model.make_world();
  Status st = world ? (*world)->begin() : world.status();
  if (!st) {
    err << fmt::format("{}: {}\n", c.program, escape_lines(st.message()));
    return st.exit_code();
  }
  p.world = std::move(*world);
  return std::nullopt;
}

// Runs the steps going on past failures. Returns the exit code when the command must stop: the
// environment failed, or a step could not run (the trace does not fit the model). `from_file`:
// the steps are the trace's own, so a step that cannot run is named by its line.
std::optional<int> replay(const Model& model, const TraceCommand& c, Prepared& p,
                          std::span<const TraceStep> steps, bool from_file, std::ostream& out,
                          std::ostream& err, ReplayResult& result) {
  Replayer replayer(model, *p.world);
  auto r = replayer.run(steps, /*keep_going=*/true);
  if (!r) {
    err << fmt::format("{}: {}\n", c.program, escape_lines(r.status().message()));
    return r.status().exit_code();
  }
  result = std::move(*r);
  if (result.error.empty()) return std::nullopt;
  write_steps(out, result);
  if (from_file) {
    err << fmt::format("{}:{}: step {}: {}; the trace does not fit the model\n", c.path,
                       c.trace.steps[result.error_step - 1].line, result.error_step, result.error);
  } else {
    err << fmt::format("{}: step {} of the shrunk trace: {}\n", c.path, result.error_step,
                       result.error);
  }
  return kExitUsage;
}

// Ends the world, returning it to its initial state; `code` unless that fails.
int finish(const TraceCommand& c, Prepared& p, std::ostream& err, int code) {
  if (Status st = p.world->end(); !st) {
    err << fmt::format("{}: {}\n", c.program, escape_lines(st.message()));
    return st.exit_code();
  }
  return code;
}

void write_intro(std::ostream& out, const TraceCommand& c, const Prepared& p) {
  out << fmt::format("trace     {}\n", escape_text(c.path));
  out << fmt::format("model     {}\n", escape_text(c.trace.header.model));
  out << fmt::format("recorded  {}\n",
                     p.recorded ? escape_text(p.recorded->to_string()) : std::string("no finding"));
  out << fmt::format("steps     {}\n\n", p.steps.size());
}

// What replay and shrink begin with: the world, the intro, and one replay of the trace's steps
// going on past failures. Returns the exit code when the command must stop.
std::optional<int> prepare_and_replay(const Model& model, const TraceCommand& c, std::ostream& out,
                                      std::ostream& err, Prepared& p, ReplayResult& r) {
  if (auto code = prepare(model, c, err, p)) return *code;
  write_intro(out, c, p);
  if (auto code = replay(model, c, p, p.steps, true, out, err, r)) return finish(c, p, err, *code);
  return std::nullopt;
}

}  // namespace

int replay_trace_command(const Model& model, const TraceCommand& c, std::ostream& out,
                         std::ostream& err) {
  Prepared p;
  ReplayResult r;
  if (auto code = prepare_and_replay(model, c, out, err, p, r)) return *code;
  write_steps(out, r);
  write_failures(out, r);
  if (r.interrupted) {
    out << fmt::format("\ninterrupted by {} after {} of {}\n", signal_name(interrupt_signal()),
                       plural(r.executed.size(), "step", "steps"), p.steps.size());
    return finish(c, p, err, interrupt_exit_code());
  }
  if (const std::string state = p.world->describe(); !state.empty()) {
    out << "\nstate:\n";
    write_indented(out, state, "  ");
  }
  out << '\n';
  const std::string n = plural(p.steps.size(), "step", "steps");
  const std::string others = r.failed() ? "it failed otherwise" : "the trace ran clean";
  if (!p.recorded) {
    out << (r.failed() ? fmt::format("failed: {} on replaying {}\n",
                                     plural(distinct_failures(r).size(), "failure", "failures"), n)
                       : fmt::format("the trace ran clean: {}, no failure\n", n));
  } else if (const ReplayFailure* f = r.find(p.recorded->kind, p.recorded->name)) {
    out << fmt::format("reproduced: {} after step {} of {}\n", p.recorded->to_string(),
                       f->after_steps, p.steps.size());
  } else if (p.recorded->kind == FindingKind::kNondeterminism) {
    out << fmt::format(
        "not reproduced: {} cannot show in one replay (explore again to check it); {}\n",
        p.recorded->to_string(), others);
  } else {
    out << fmt::format("not reproduced: {} did not happen; {}\n", p.recorded->to_string(), others);
  }
  return finish(c, p, err, r.failed() ? kExitFindings : kExitOk);
}

int shrink_trace_command(const Model& model, const TraceCommand& c, std::ostream& out,
                         std::ostream& err) {
  Prepared p;
  ReplayResult r;
  if (auto code = prepare_and_replay(model, c, out, err, p, r)) return *code;
  if (r.interrupted) {
    write_steps(out, r);
    out << fmt::format("\ninterrupted by {} before the trace was replayed: nothing was shrunk\n",
                       signal_name(interrupt_signal()));
    return finish(c, p, err, interrupt_exit_code());
  }
  const ReplayFailure* target = p.recorded   ? r.find(p.recorded->kind, p.recorded->name)
                                : r.failed() ? &r.failures.front()
                                             : nullptr;
  if (target == nullptr) {
    write_steps(out, r);
    err << (p.recorded ? fmt::format("{}: the recorded failure {} did not happen on replay; there "
                                     "is nothing to shrink\n",
                                     c.path, p.recorded->to_string())
                       : fmt::format("{}: the trace ran clean on replay; there is nothing to "
                                     "shrink\n",
                                     c.path));
    return finish(c, p, err, kExitUsage);
  }
  const FailureId id{target->kind, target->name};
  out << fmt::format("reproduced: {} after step {} of {}\n", id.to_string(), target->after_steps,
                     p.steps.size());

  Finding finding;
  finding.kind = id.kind;
  finding.name = id.name;
  finding.severity = target->severity;
  finding.steps.assign(p.steps.begin(),
                       p.steps.begin() + static_cast<std::ptrdiff_t>(target->after_steps));
  auto shrunk = shrink(model, *p.world, finding);
  if (!shrunk) {
    err << fmt::format("{}: {}\n", c.program, escape_lines(shrunk.status().message()));
    return finish(c, p, err, shrunk.status().exit_code());
  }
  // One last replay gives each remaining step its outcome and detail, and the failure's message.
  if (auto code = replay(model, c, p, *shrunk, false, out, err, r)) return finish(c, p, err, *code);
  finding.steps = std::move(*shrunk);
  for (std::size_t i = 0; i < r.executed.size() && i < finding.steps.size(); ++i) {
    finding.steps[i].outcome = r.executed[i].outcome;
    finding.steps[i].detail = r.executed[i].detail;
    finding.steps[i].http = r.executed[i].http;
  }
  if (const ReplayFailure* f = r.find(id.kind, id.name, finding.steps.size())) {
    finding.message = f->message;
    finding.severity = f->severity;
  }

  trace::Header header = c.trace.header;
  header.set_option("kind", std::string(kExploreTraceKind));
  header.set_option("finding", id.to_string());
  header.set_option("severity", std::string(to_string(finding.severity)));
  for (const auto& [key, value] : c.options) header.set_option(key, value);
  header.set_option("shrunk-from", std::to_string(p.steps.size()));
  const trace::Trace shrunk_trace = finding_to_trace(finding, std::move(header));

  out << fmt::format("\nsteps: {} -> {}\n", p.steps.size(), finding.steps.size());
  write_steps(out, r);
  const std::string path = c.output.empty() ? trace::shrunk_trace_path(c.path) : c.output;
  if (Status st = trace::write_trace_file(path, shrunk_trace); !st) {
    err << fmt::format("{}: {}\n", c.program, escape_lines(st.message()));
    return finish(c, p, err, st.exit_code());
  }
  out << fmt::format("\nshrunk trace written to {}\n", path);
  if (interrupts() > 0) {
    out << fmt::format("interrupted by {}: this is the shortest trace found until then\n",
                       signal_name(interrupt_signal()));
    return finish(c, p, err, interrupt_exit_code());
  }
  return finish(c, p, err, kExitFindings);
}

Status create_trace_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && !fs::is_directory(dir, ec) && !ec)
    ec = std::make_error_code(std::errc::not_a_directory);
  if (ec) {
    return Status::environment(
        fmt::format("cannot create the trace directory '{}': {}", dir, ec.message()));
  }
  return Status::ok();
}

Result<std::vector<std::string>> write_finding_traces(
    const RunReport& report, const std::string& dir,
    const std::vector<std::pair<std::string, std::string>>& extra_options) {
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const Finding& f = report.findings[i];
    trace::Trace t = finding_to_trace(report, f);
    for (const auto& [key, value] : extra_options) t.header.set_option(key, value);
    std::string path = (fs::path(dir) / finding_trace_file_name(i + 1, f)).string();
    if (Status st = trace::write_trace_file(path, t); !st) return st;
    paths.push_back(std::move(path));
  }
  return paths;
}

}  // namespace prowl::detail
