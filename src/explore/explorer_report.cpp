// The explorer's findings and report (Explorer::Impl, declared in explorer_impl.hpp): what a
// pending finding becomes (its path, its confirmation and shrinking within the grace period of an
// interrupt, its last replay), the report of a run, and the partial report of one that failed.
// The loop that finds them is in explorer.cpp.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "explorer_impl.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/explore/ranks.hpp"
#include "prowl/explore/replay.hpp"

namespace prowl {

using detail::Clock;
using detail::Pending;
using detail::seconds_since;

Finding Explorer::Impl::finding_of(const Pending& p) const {
  std::vector<Pair> path;
  if (p.source != kNoState) {
    path = graph->path_to(p.source);
    path.push_back({p.source, p.action});
  } else if (p.at != kNoState) {
    path = graph->path_to(p.at);
  }
  std::vector<TraceStep> steps;
  for (const Pair& e : path) {
    steps.push_back({model.actions()[e.action].name, step_seed(e.state, e.action), {}, {}, {}});
  }
  return finding_on(p, std::move(steps));
}

Finding Explorer::Impl::finding_on(const Pending& p, std::vector<TraceStep> steps) const {
  Finding f;
  f.kind = p.kind;
  f.message = p.message;
  f.steps = std::move(steps);
  // Outcomes are known once replayed; until then only the failing step's, as it was found.
  if (p.action != kNoAction && !f.steps.empty()) {
    f.steps.back().outcome = p.outcome;
    f.steps.back().detail = p.detail;
  }
  f.action = f.steps.empty() ? std::string() : f.steps.back().action;
  switch (p.kind) {
    case FindingKind::kInvariant:
      f.name = model.invariants()[p.index].name;
      f.severity = model.invariants()[p.index].severity;
      break;
    case FindingKind::kServiceCrashed:
      f.name = world->system(p.index).name();
      f.severity = Severity::kCritical;
      break;
    case FindingKind::kActionError:
    case FindingKind::kNondeterminism:
      f.name = model.actions()[p.index].name;
      f.severity = p.severity;
      break;
  }
  return f;
}

namespace {

// The steps of an action with a state-given domain, as the exploration found them, name its
// places ("remove(key=#1)"): one replay names them with the values they ran with, which is what
// a trace keeps and what replays in any state that has the value.
Result<bool> name_values(const Model& model, World& world, Finding& f) {
  if (!model.has_state_domains()) return true;
  Replayer replayer(model, world);
  auto r = replayer.run(f.steps, /*keep_going=*/true);
  if (!r) return r.status();
  // The steps before the last as they ran; the last, and an action error's name, only when the
  // replay failed there the same way (a finding that does not reproduce keeps its failing step
  // as the exploration saw it).
  const std::size_t n = f.steps.size();
  for (std::size_t i = 0; i < r->executed.size() && i + 1 < n; ++i) {
    f.steps[i].action = r->executed[i].action;
  }
  if (n > 0 && r->executed.size() == n && r->find(f.kind, f.name, n) != nullptr) {
    f.steps.back().action = r->executed.back().action;
    if (f.kind == FindingKind::kActionError) f.name = f.steps.back().action;
  }
  f.action = n == 0 ? std::string() : f.steps.back().action;
  return true;
}

// A value of a state-given domain is found at different places in different states: findings
// the same but for the place (same kind, name and last step, once named with the values) are
// one. The first, the shortest, stays.
void merge_places(std::vector<Finding>& findings) {
  std::vector<Finding> kept;
  for (Finding& f : findings) {
    const bool seen =
        f.confirmed && std::any_of(kept.begin(), kept.end(), [&](const Finding& k) {
          return k.confirmed && k.kind == f.kind && k.name == f.name && k.action == f.action;
        });
    if (!seen) kept.push_back(std::move(f));
  }
  findings = std::move(kept);
}

}  // namespace

bool Explorer::Impl::may_replay() {
  const int n = interrupts();
  if (n == 0) return true;
  if (interrupted_at == Clock::time_point{}) interrupted_at = Clock::now();
  return n == 1 && seconds_since(interrupted_at) < options.confirm_grace;
}

Result<Finding> Explorer::Impl::settle(Finding f, bool at_step) {
  if (!options.confirm && !options.shrink) {
    f.unconfirmed = "confirmation is off";
  } else if (!may_replay()) {
    f.unconfirmed = "interrupted before it could be replayed";
  } else {
    const int before = interrupts();
    Result<bool> ok = name_values(model, *world, f);
    if (ok) ok = confirm(model, *world, f);
    if (!ok && interrupts() != before) {
      // A signal cut the replay short (a reset request, a service restart).
      f.unconfirmed = "interrupted while it was replayed";
      return f;
    }
    if (!ok) return ok.status();
    f.confirmed = *ok;
    if (!f.confirmed) {
      // An interrupt during the replay aborts its requests: that says nothing about the finding.
      f.unconfirmed = interrupts() != before
                          ? "interrupted while it was replayed"
                          : "it did not happen when replayed from the initial state";
    }
  }
  if (options.shrink && f.confirmed && may_replay()) {
    // Shrinking stops with the grace period, keeping the shortest sequence found by then.
    auto shrunk = shrink(model, *world, f, [this] { return may_replay(); });
    if (!shrunk && interrupts() > 0) return f;
    if (!shrunk) return shrunk.status();
    // Fewer steps, or the same steps with simpler parameter values.
    const auto same_actions = [&] {
      return std::equal(
          shrunk->begin(), shrunk->end(), f.steps.begin(), f.steps.end(),
          [](const TraceStep& a, const TraceStep& b) { return a.action == b.action; });
    };
    if (shrunk->size() < f.steps.size() || !same_actions()) {
      // "shrunk from N steps" only when it got shorter; simpler values show in the steps.
      if (shrunk->size() < f.steps.size()) f.shrunk_from = f.steps.size();
      f.steps = std::move(*shrunk);
      f.action = f.steps.empty() ? std::string() : f.steps.back().action;
    }
  }
  if (!may_replay()) return f;
  // One last replay fills in each step's outcome and detail and the failing state. A finding that
  // did not reproduce keeps its failing step as the exploration saw it: the replay's answer to
  // that step is not the one that failed.
  Replayer replayer(model, *world);
  auto r = replayer.run(f.steps, /*keep_going=*/true);
  if (!r && interrupts() > 0) return f;
  if (!r) return r.status();
  if (r->interrupted) return f;  // a second signal: the steps keep what is known of them
  const std::size_t replayed = f.confirmed || !at_step ? f.steps.size() : f.steps.size() - 1;
  for (std::size_t i = 0; i < r->executed.size() && i < replayed; ++i) {
    f.steps[i].action = r->executed[i].action;
    f.steps[i].outcome = r->executed[i].outcome;
    f.steps[i].detail = r->executed[i].detail;
    f.steps[i].http = r->executed[i].http;
  }
  if (const ReplayFailure* failure = r->find(f.kind, f.name, f.steps.size());
      failure && f.confirmed) {
    f.message = failure->message;
    f.severity = failure->severity;
  }
  if (f.confirmed) f.state = world->describe();
  return f;
}

Result<RunReport> Explorer::Impl::run() {
  Result<RunReport> report = explore_and_report();
  if (!report) {
    // The data goes back before anything is reported (as for a run that did not fail).
    if (world) (void)world->end();
    // A signal that cut short what the run could not do without (a service that was starting,
    // the first observation): the run was stopped, it did not fail. What stopped says why.
    if (interrupts() > 0 && (options.ranks == nullptr || !options.ranks->broken())) {
      RunReport stopped = partial_report(report.status(), Termination::kInterrupted);
      stopped.warnings.push_back(report.status().message());
      return stopped;
    }
    partial = partial_report(report.status(), Termination::kError);
  }
  return report;
}

RunReport Explorer::Impl::report_header(Termination termination) {
  RunReport report;
  report.model = model.name();
  report.strategy = std::string(strategy.name());
  report.seed = options.seed;
  report.termination = termination;
  for (const Invariant& inv : model.invariants()) {
    report.invariants.push_back(inv.name);
    // A relative path is the working directory's: absolute, it means the same file to a report
    // converted elsewhere (prowl report).
    SourceLocation where = inv.where;
    if (where.known()) {
      std::error_code ec;
      const std::filesystem::path absolute = std::filesystem::absolute(where.file, ec);
      if (!ec) where.file = absolute.lexically_normal().string();
    }
    report.invariant_details.push_back({inv.severity, inv.description, std::move(where)});
  }
  if (world) report.restore_mode = world->mode();
  report.settings = {.max_steps = options.max_steps,
                     .max_depth = options.max_depth,
                     .time_limit = options.time_limit,
                     .coverage_target = options.coverage_target,
                     .stop_on_first = options.stop_on_first,
                     .confirm = options.confirm,
                     .shrink = options.shrink,
                     .workers = options.workers,
                     .threads = threads_used,
                     .memory_limit = options.memory_limit};
  if (rank_totals) {
    stats.states = rank_totals->states;
    stats.transitions = rank_totals->transitions;
    stats.graph_bytes = rank_totals->graph_bytes;
  } else if (graph) {
    stats.states = graph->num_states();
    stats.transitions = graph->num_transitions();
    stats.graph_bytes = graph->memory_bytes();
    if (options.record_edges) report.graph = ReportGraph{graph->num_states(), graph->edges()};
  }
  if (planner) {
    stats.replayed_actions = planner->replayed();
    stats.restores = planner->restores() + worker_loads;
  }
  if (exec) note_sampled(*exec);
  if (world) {
    for (const std::string& note : world->notes()) {
      if (std::find(warnings.begin(), warnings.end(), note) == warnings.end()) {
        warnings.push_back(note);
      }
    }
  }
  for (std::size_t a = 0; a < sampled.size(); ++a) {
    if (sampled[a]) report.sampled.push_back(model.actions()[a].name);
  }
  if (termination == Termination::kExhausted && !report.sampled.empty()) {
    report.termination = Termination::kSampled;
  }
  for (const auto& c : coverage) {
    if (c.executed == 0) {
      std::string w = fmt::format("action '{}' never ran{}", c.name,
                                  c.enabled == 0 ? " (it was never enabled)" : "");
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
        warnings.push_back(std::move(w));
      }
    }
  }
  return report;
}

RunReport Explorer::Impl::partial_report(const Status& failure, Termination termination) {
  const bool failed = termination == Termination::kError;
  RunReport report = report_header(termination);
  if (failed) report.error = failure.message();
  // The findings materialized before the failure keep what their replays showed; the rest are
  // reported as they were found.
  report.findings = std::move(materialized);
  if (graph) {
    std::size_t done = report.findings.size();
    for (const auto& [key, p] : findings.pending()) {
      if (done > 0) {
        --done;
        continue;
      }
      Finding f = finding_of(p);
      f.unconfirmed = failed ? "the run failed before it could be replayed"
                             : "interrupted before it could be replayed";
      report.findings.push_back(std::move(f));
    }
  }
  stats.seconds = seconds_since(started);
  report.stats = stats;
  report.coverage = coverage;
  report.warnings = warnings;
  return report;
}

// The search by the loop that applies: workers, processes, threads, or the one-thread loop.
Status Explorer::Impl::search(Clock::time_point start, Termination& termination) {
  // Over several processes, or not at all: refused before anything runs.
  if (options.ranks != nullptr) {
    if (std::string why = ranks_refused(); !why.empty()) {
      options.ranks->completed();  // every rank refuses it
      return Status::invalid(fmt::format(
          "a search over several processes (--mpi) needs breadth-first search of an in-memory "
          "model, and {}",
          why));
    }
    if (options.workers > 1) {
      warnings.push_back(fmt::format(
          "{} workers were asked for; running one per process: the world is in-process, and the "
          "search is spread over the processes (--mpi) instead",
          options.workers));
    }
    return run_ranks(start, termination);
  }
  if (options.workers > 1) {
    if (std::string why = workers_refused(); !why.empty()) {
      warnings.push_back(
          fmt::format("{} workers were asked for; running one: {}", options.workers, why));
    } else if (Status st = run_workers(start, termination); !st) {
      return st;
    }
  }
  if (workers) return Status::ok();
  const std::string why = levels_refused();
  if (!why.empty()) {
    if (options.threads > 1) {
      warnings.push_back(
          fmt::format("{} threads were asked for; running one: {}", options.threads, why));
    }
    return run_one(start, termination);
  }
  std::size_t threads = options.threads;
  if (threads == 0) threads = std::max<std::size_t>(1, detail::thread_cpus().size());
  threads_used = static_cast<std::uint32_t>(threads);
  return run_levels(start, static_cast<unsigned>(threads), termination);
}

Result<RunReport> Explorer::Impl::explore_and_report() {
  started = Clock::now();
  const auto start = started;
  if (options.workers > 1) start_cpus = detail::thread_cpus();
  if (Status st = init(); !st) return st;
  observing = strategy.traits().observes;
  sampled.assign(model.actions().size(), 0);
  Fingerprint root_fp;
  if (Status st = exec->fingerprint(std::vector<detail::Fact>(nf, 0), root_fp); !st) return st;
  graph->add(root_fp, kNoState, kNoAction);
  for (std::size_t i = 0; i < nf; ++i) facts.push_back(0);
  if (Status st = planner->begin(0); !st) return st;
  for (bool before : {false, true}) {
    exec->check(before,
                [&](std::size_t i, const std::string& msg) { findings.note_before(i, 0, msg); });
  }
  if (Status st = expand(0, *exec); !st) return st;

  Termination termination = Termination::kExhausted;
  if (Status st = search(start, termination); !st) return st;

  RunReport report = report_header(termination);
  for (const auto& [key, p] : findings.pending()) {
    auto f = materialize(p);
    if (!f) return f.status();
    if (!f->confirmed && f->unconfirmed.starts_with("it did not happen")) {
      warnings.push_back(
          fmt::format("finding '{}' did not reproduce when replayed from the "
                      "initial state; it is reported unconfirmed",
                      f->name));
    }
    materialized.push_back(std::move(*f));
  }
  for (Finding& found : rank_findings) {
    auto f = settle(std::move(found), /*at_step=*/true);
    if (!f) return f.status();
    materialized.push_back(std::move(*f));
  }
  report.findings = std::move(materialized);
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& x, const Finding& y) {
                     if (x.severity != y.severity) return x.severity < y.severity;
                     return x.steps.size() < y.steps.size();
                   });
  if (model.has_state_domains()) merge_places(report.findings);
  if (Status st = world->end(); !st) return st;
  stats.seconds = seconds_since(start);
  report.stats = stats;
  report.coverage = std::move(coverage);
  report.warnings = std::move(warnings);
  return report;
}

}  // namespace prowl
