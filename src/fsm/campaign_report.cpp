#include "prowl/fsm/campaign_report.hpp"

#include <filesystem>
#include <map>
#include <utility>

#include <fmt/format.h>

namespace prowl::fsm {
namespace {

struct KindOf {
  FindingKind kind;
  Severity severity;
};

// How a bucket's kind reads as a finding (the table in campaign_report.hpp).
KindOf finding_kind(RunKind kind) {
  switch (kind) {
    case RunKind::kCrash:
      return {FindingKind::kServiceCrashed, Severity::kCritical};
    case RunKind::kStuck:
      return {FindingKind::kInvariant, Severity::kLow};
    case RunKind::kFinding:
    case RunKind::kTimeout:
    case RunKind::kOk:
    case RunKind::kBadTrace:
      break;
  }
  return {FindingKind::kActionError, Severity::kHigh};
}

// A trace step as a report step: its arguments as the trace writes them, then the handles it
// returned ("j1 0 1", "-> j1"). Only the failing step's outcome is known ("error"); a stuck run's
// steps all ran.
TraceStep report_step(const trace::Step& s, bool failing) {
  std::string detail;
  for (const std::string& arg : s.args) {
    if (!detail.empty()) detail += ' ';
    detail += trace::quote_token(arg);
  }
  if (!s.returns.empty()) {
    detail += fmt::format("{}-> {}", detail.empty() ? "" : " ", fmt::join(s.returns, " "));
  }
  return TraceStep{s.action, s.seed, failing ? "error" : "", std::move(detail)};
}

Finding bucket_finding(const Bucket& b, const trace::Trace& t) {
  const KindOf k = finding_kind(b.kind);
  Finding f;
  f.kind = k.kind;
  f.severity = k.severity;
  f.name = b.signature;
  f.action = b.action.empty() && !t.steps.empty() ? t.steps.back().action : b.action;
  f.message = b.message.empty() ? b.signature : b.message;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const bool last = i + 1 == t.steps.size();
    f.steps.push_back(report_step(t.steps[i], last && b.kind != RunKind::kStuck));
  }
  f.unconfirmed = "fuzz buckets are not replayed; replay the kept trace to confirm it";
  f.where = {.file = (std::filesystem::path(b.dir) / "trace").string(), .line = 1};
  f.state = fmt::format(
      "bucket {:03}: {} run{} this session, the first run {}\ntrace: {}\noutput: {}", b.id, b.count,
      b.count == 1 ? "" : "s", b.first_run, (std::filesystem::path(b.dir) / "trace").string(),
      (std::filesystem::path(b.dir) / "output").string());
  return f;
}

Termination termination_of(const Campaign& c) {
  if (!c.summary.error.empty()) return Termination::kError;
  if (c.summary.interrupted) return Termination::kInterrupted;
  if (c.options.runs != 0 && c.summary.runs >= c.options.runs) return Termination::kMaxSteps;
  if (c.options.time_limit > 0) return Termination::kTimeLimit;
  return Termination::kMaxSteps;
}

}  // namespace

RunReport campaign_report(const Campaign& c) {
  const FuzzSummary& s = c.summary;
  RunReport r;
  r.model = c.model;
  r.strategy = "fuzz";
  r.seed = c.options.seed;
  r.restore_mode = RestoreMode::kReset;
  r.termination = termination_of(c);
  r.error = c.summary.error;
  const std::uint64_t failed_calls = s.findings + s.crashes + s.timeouts;
  r.stats.states = c.states_entered;
  r.stats.steps = s.steps;
  r.stats.transitions = s.steps >= failed_calls ? s.steps - failed_calls : 0;
  r.stats.restores = s.runs;
  r.stats.seconds = s.seconds;
  r.settings.max_steps = c.options.runs;
  r.settings.time_limit = c.options.time_limit;
  r.settings.confirm = false;
  for (std::size_t i = 0; i < s.buckets.size(); ++i) {
    const trace::Trace empty;
    r.findings.push_back(bucket_finding(s.buckets[i], i < c.traces.size() ? c.traces[i] : empty));
  }
  r.coverage = c.coverage;
  r.warnings = c.warnings;
  return r;
}

std::vector<ActionCoverage> campaign_coverage(const MachineCore& machine, const Stats& stats,
                                              const FuzzSummary& summary) {
  std::map<std::string, std::uint64_t> failures;  // failing runs by the action they failed in
  for (const Bucket& b : summary.buckets) {
    if (b.kind != RunKind::kStuck) failures[b.action] += b.count;
  }
  std::vector<ActionCoverage> coverage;
  for (ActionIndex a = 0; a < machine.actions().size(); ++a) {
    ActionCoverage c;
    c.name = machine.actions()[a].name;
    c.executed = stats.attempted_count(a);
    c.enabled = c.executed + stats.declined_count(a);
    c.ok = stats.succeeded_count(a);
    const auto at = failures.find(c.name);
    c.errors = at == failures.end() ? 0 : at->second;
    // A run cut short by a signal may leave an attempt without an end: never below zero.
    c.rejected = c.executed >= c.ok + c.errors ? c.executed - c.ok - c.errors : 0;
    coverage.push_back(std::move(c));
  }
  return coverage;
}

std::uint64_t states_entered(const MachineCore& machine, const Stats& stats) {
  std::uint64_t n = 0;
  for (StateId s = 0; s < machine.states().size(); ++s) n += stats.entered_count(s) > 0 ? 1 : 0;
  return n;
}

void read_bucket_traces(Campaign& c) {
  c.traces.clear();
  for (const Bucket& b : c.summary.buckets) {
    auto t = trace::read_trace_file((std::filesystem::path(b.dir) / "trace").string());
    if (!t) {
      c.warnings.push_back(
          fmt::format("bucket {:03}: its trace cannot be read: {}", b.id, t.status().message()));
      c.traces.emplace_back();
      continue;
    }
    c.traces.push_back(std::move(*t));
  }
}

}  // namespace prowl::fsm
