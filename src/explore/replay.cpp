#include "prowl/explore/replay.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "executor.hpp"
#include "finding_log.hpp"
#include "prowl/core/interrupt.hpp"

namespace prowl {

struct Replayer::Impl {
  Impl(const Model& m, World& w) : exec(m, w), model(m) {}

  // Every invariant, whatever its timing, is checked on every state the replay reaches: a
  // "before" invariant that fails on a state fails before the next step. A check whose request a
  // signal cut short says nothing about the system: its failures are dropped, and the replay
  // stops (ReplayResult::interrupted).
  void check_state(std::size_t after_steps);
  // A system that died during step i: the step's failure, and the end of the replay (the state is
  // not known any more).
  bool crashed(const std::string& action, std::size_t i);
  // After step i failed with an error: the after-invariants that fail on the state it left and
  // held on the one before it (checked when step i - 1 ended).
  std::vector<std::pair<std::size_t, std::string>> broken_by(std::size_t i) const;
  // Runs steps[i] from the state `facts` describes. False when the replay ends with it (an error,
  // a crash, an interrupt); `result.error` is set when the trace cannot go on (an unknown or
  // disabled action).
  bool replay_step(const TraceStep& step, std::size_t i);
  bool interrupted() const { return interrupts() != interrupted_before; }

  detail::Executor exec;
  const Model& model;
  ReplayResult result;
  std::vector<detail::Fact> facts;
  std::vector<detail::Fact> next;
  int interrupted_before = 0;
};

Replayer::Replayer(const Model& model, World& world)
    : impl_(std::make_unique<Impl>(model, world)) {}
Replayer::~Replayer() = default;

Result<ReplayResult> Replayer::run(std::span<const TraceStep> steps, bool keep_going) {
  Impl& r = *impl_;
  r.result = {};
  if (Status st = r.exec.world().reset(); !st) return st;
  r.facts.assign(r.exec.num_facts(), 0);
  r.next.assign(r.exec.num_facts(), 0);
  r.interrupted_before = interrupts();
  r.check_state(0);
  for (std::size_t i = 0; i < steps.size() && (keep_going || !r.result.failed()); ++i) {
    if (r.interrupted()) {
      r.result.interrupted = true;
      break;
    }
    if (!r.replay_step(steps[i], i)) break;
  }
  return std::move(r.result);
}

void Replayer::Impl::check_state(std::size_t after_steps) {
  const auto& invs = model.invariants();
  const std::size_t known = result.failures.size();
  for (bool before : {false, true}) {
    exec.check(before, [&](std::size_t i, const std::string& msg) {
      if (before && invs[i].after()) return;  // already checked with the "after" ones
      result.failures.push_back(
          {FindingKind::kInvariant, invs[i].name, invs[i].severity, msg, after_steps});
    });
  }
  if (interrupted()) {
    result.failures.resize(known);
    result.interrupted = true;
  }
}

std::vector<std::pair<std::size_t, std::string>> Replayer::Impl::broken_by(std::size_t i) const {
  std::vector<std::pair<std::size_t, std::string>> broken;
  const auto& invs = model.invariants();
  exec.check(false, [&](std::size_t k, const std::string& msg) {
    const bool failed_before =
        std::any_of(result.failures.begin(), result.failures.end(), [&](const ReplayFailure& f) {
          return f.kind == FindingKind::kInvariant && f.after_steps == i && f.name == invs[k].name;
        });
    if (!failed_before) broken.emplace_back(k, msg);
  });
  return broken;
}

bool Replayer::Impl::crashed(const std::string& action, std::size_t i) {
  const auto [system, why] = exec.world().dead_system();
  if (system == nullptr) return false;
  result.failures.push_back(
      {FindingKind::kServiceCrashed, system->name(), Severity::kCritical,
       fmt::format("service '{}' died during '{}': {}", system->name(), action, why), i + 1});
  return true;
}

bool Replayer::Impl::replay_step(const TraceStep& step, std::size_t i) {
  // A step of a state-given domain names its value; the state says at which place it is.
  const bool by_state = model.has_state_domains();
  const World& world = exec.world();
  const ActionId a = by_state ? model.resolve(step.action, world, world.context())
                              : model.find_action(step.action);
  if (a == kNoAction) {
    result.error = by_state && model.may_name(step.action)
                       ? fmt::format("action '{}' has no such value in this state", step.action)
                       : fmt::format("unknown action '{}'", step.action);
    result.error_step = i + 1;
    return false;
  }
  if (!exec.enabled(a, facts, nullptr)) {
    result.error =
        fmt::format("action '{}' is not enabled: {}", step.action, exec.why_disabled(a, facts));
    result.error_step = i + 1;
    return false;
  }
  // The step as it runs here: its action's name, with the values it runs with. Its failure keeps
  // the step's own name when that named a place ("remove(id=#1)"), so that a finding named so
  // is found again.
  const std::string name = by_state ? model.label(a, world, world.context()) : step.action;
  const std::string& failing =
      by_state && step.action == model.actions()[a].name ? step.action : name;
  Outcome out = exec.run(a, [&] { return Rng(step.seed); });
  if (out.kind == Outcome::Kind::kSkipped) {
    // Listed, so that executed[i] stays the outcome of steps[i].
    result.executed.push_back({name, step.seed, "skipped", out.message, {}});
    return true;
  }
  // A refusal or an error keeps its reason as the step's detail when it has no detail of its own.
  std::string detail = out.detail.empty() ? out.message : std::move(out.detail);
  result.executed.push_back({name, step.seed, std::string(to_string(out.kind)), std::move(detail),
                             out.http ? std::optional<HttpExchange>(*out.http) : std::nullopt});
  if (out.kind == Outcome::Kind::kError) {
    if (interrupted()) {
      result.interrupted = true;  // the interrupt cut the step short: not a failure
      return false;
    }
    if (!crashed(name, i)) {
      const auto broken = broken_by(i);
      // Checks that failed because a service was going down: the crash is the failure.
      if (!broken.empty() && crashed(name, i)) return false;
      auto [severity, message] = detail::error_with_invariants(model, out.message, broken);
      if (interrupted()) {
        result.interrupted = true;
        return false;
      }
      result.failures.push_back(
          {FindingKind::kActionError, failing, severity, std::move(message), i + 1});
    }
    return false;
  }
  if (crashed(name, i)) return false;
  exec.advance(facts, a, next);
  facts.swap(next);
  check_state(i + 1);
  return true;
}

const ReplayFailure* ReplayResult::find(FindingKind kind, std::string_view name,
                                        std::optional<std::size_t> after_steps) const {
  for (const auto& f : failures) {
    if (f.kind == kind && f.name == name && (!after_steps || f.after_steps == *after_steps)) {
      return &f;
    }
  }
  return nullptr;
}

namespace {
// The failure of r that matches the finding, if r failed that way.
const ReplayFailure* same_failure(const ReplayResult& r, const Finding& f) {
  if (!r.error.empty()) return nullptr;
  const ReplayFailure* failure = r.find(f.kind, f.name);
  // An action's error that broke invariants on its way (raised above high) is another failure
  // than a clean error of the same action: shrinking must not trade one for the other.
  if (failure != nullptr && f.kind == FindingKind::kActionError &&
      failure->severity != f.severity) {
    return nullptr;
  }
  return failure;
}
}  // namespace

Result<bool> confirm(const Model& model, World& world, const Finding& finding) {
  Replayer replayer(model, world);
  auto r = replayer.run(finding.steps, /*keep_going=*/true);
  if (!r) return r.status();
  if (!r->error.empty() || r->interrupted) return false;
  if (r->find(finding.kind, finding.name, finding.steps.size()) != nullptr) return true;
  if (finding.kind != FindingKind::kServiceCrashed || world.cheap()) return false;
  // A service that answers and then dies may still be going down when the last step returns
  // (the exploration saw it die while observing the state after it): give it a moment.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto [system, why] = world.dead_system();
    if (system != nullptr) return system->name() == finding.name;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

namespace {

// The values to try instead of domain value `now`, simplest first: the first eight, then halfway
// there and on, each closer to `now`.
std::vector<std::size_t> simpler_values(std::size_t now) {
  std::vector<std::size_t> out;
  for (std::size_t v = 0; v < std::min<std::size_t>(now, 8); ++v) out.push_back(v);
  for (std::size_t gap = now / 2; gap > 0; gap /= 2) {
    if (now - gap >= 8) out.push_back(now - gap);
  }
  return out;
}

}  // namespace

Result<std::vector<TraceStep>> shrink(const Model& model, World& world, const Finding& finding,
                                      const std::function<bool()>& go_on) {
  Replayer replayer(model, world);
  std::vector<TraceStep> best = finding.steps;
  // Returns whether the candidate fails the same way; if so, truncates it at the failure.
  auto test = [&](std::vector<TraceStep>& candidate) -> Result<bool> {
    auto r = replayer.run(candidate);
    if (!r) return r.status();
    const ReplayFailure* failure = same_failure(*r, finding);
    if (failure == nullptr) return false;
    candidate.resize(failure->after_steps);
    return true;
  };
  const int interrupted_before = interrupts();
  std::size_t n = 2;
  while (best.size() >= 2 && interrupts() == interrupted_before && (!go_on || go_on())) {
    const std::size_t chunk = (best.size() + n - 1) / n;
    bool reduced = false;
    for (std::size_t start = 0; start < best.size(); start += chunk) {
      std::vector<TraceStep> candidate;
      candidate.reserve(best.size());
      for (std::size_t i = 0; i < best.size(); ++i) {
        if (i < start || i >= start + chunk) candidate.push_back(best[i]);
      }
      // The best so far stands.
      if (interrupts() != interrupted_before || (go_on && !go_on())) break;
      auto ok = test(candidate);
      if (!ok) return ok.status();
      if (*ok) {
        best = std::move(candidate);
        n = std::max<std::size_t>(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= best.size()) break;
      n = std::min(n * 2, best.size());
    }
  }
  // Then each step's parameters, one at a time, toward their domains' first values.
  for (std::size_t i = 0; i < best.size(); ++i) {
    ActionId a = model.find_action(best[i].action);
    if (a == kNoAction || model.actions()[a].family < 0) continue;
    const ActionFamily& family =
        model.families()[static_cast<std::size_t>(model.actions()[a].family)];
    for (std::size_t p = 0; p < family.params.size() && i < best.size(); ++p) {
      // Until no simpler value fails the same way.
      for (bool moved = true; moved && i < best.size();) {
        moved = false;
        for (std::size_t value : simpler_values(family.choice(a - family.first)[p])) {
          if (interrupts() != interrupted_before || (go_on && !go_on())) return best;
          std::vector<TraceStep> candidate = best;
          const ActionId simpler = model.variant(a, p, value);
          candidate[i].action = model.actions()[simpler].name;
          auto ok = test(candidate);
          if (!ok) return ok.status();
          if (*ok) {
            best = std::move(candidate);
            a = simpler;
            moved = true;
            break;
          }
        }
      }
    }
  }
  return best;
}

}  // namespace prowl
