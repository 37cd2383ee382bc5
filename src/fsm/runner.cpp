#include "prowl/fsm/runner.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <exception>
#include <new>

#include <fmt/format.h>

#include "prowl/trace/signature.hpp"

namespace prowl::fsm {
namespace {

// run() draws from its own generator, seeded from the step seed and independent of the one
// generate() used, so a replayed step (which skips generate) draws exactly the same numbers.
Rng run_rng(std::uint64_t step_seed) { return Rng(Rng::derive(step_seed, 0x72756e, 1)); }

// Calls an action's run step; an exception becomes a finding, except a TraceError, which is a
// model error while fuzzing and a bad trace while replaying.
struct CallEnd {
  Outcome outcome;
  bool trace_error = false;
};

CallEnd call_run(const MachineCore::ActionDef& def, CallContext& ctx, const Args& args) {
  try {
    return {def.run(ctx, args), false};
  } catch (const TraceError& e) {
    return {Outcome::error(e.what()), true};
  } catch (const std::exception& e) {
    return {Outcome::error(fmt::format("unexpected exception: {}", e.what())), false};
  } catch (...) {
    return {Outcome::error("unexpected exception of a type not derived from std::exception"),
            false};
  }
}

}  // namespace

std::string_view to_string(RunKind kind) {
  switch (kind) {
    case RunKind::kOk:
      return "ok";
    case RunKind::kFinding:
      return "finding";
    case RunKind::kCrash:
      return "crash";
    case RunKind::kTimeout:
      return "timeout";
    case RunKind::kStuck:
      return "stuck";
    case RunKind::kBadTrace:
      return "bad-trace";
  }
  return "?";
}

std::string RunResult::signature() const {
  switch (kind) {
    case RunKind::kOk:
    case RunKind::kBadTrace:
      return {};
    case RunKind::kTimeout:
      return fmt::format("timeout in {}", action);
    case RunKind::kStuck:
      return fmt::format("stuck: {}", trace::normalize_signature(message));
    case RunKind::kFinding:
    case RunKind::kCrash:
      break;
  }
  return fmt::format("{} in {}: {}", to_string(kind), action.empty() ? "(no step)" : action,
                     trace::normalize_signature(message));
}

Stats::Stats(std::size_t states, std::size_t actions)
    : states_(states), size_(states + 3 * actions + 1) {
  void* memory = ::mmap(nullptr, size_ * sizeof(std::atomic<std::uint64_t>), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  cells_ = static_cast<std::atomic<std::uint64_t>*>(memory);
  for (std::size_t i = 0; i < size_; ++i) new (&cells_[i]) std::atomic<std::uint64_t>(0);
}

Stats::~Stats() { ::munmap(cells_, size_ * sizeof(std::atomic<std::uint64_t>)); }

std::string Stats::table(const MachineCore& machine) const {
  std::size_t width = 6;
  for (const auto& s : machine.states()) width = std::max(width, s.name.size());
  for (const auto& a : machine.actions()) width = std::max(width, a.name.size());
  std::string out = fmt::format("{:<{}}  {:>10}\n", "state", width, "entered");
  for (StateId s = 0; s < machine.states().size(); ++s) {
    out += fmt::format("{:<{}}  {:>10}\n", machine.states()[s].name, width, entered_count(s));
  }
  out += fmt::format("\n{:<{}}  {:>10}  {:>10}  {:>10}\n", "action", width, "attempted",
                     "succeeded", "declined");
  for (ActionIndex a = 0; a < machine.actions().size(); ++a) {
    out += fmt::format("{:<{}}  {:>10}  {:>10}  {:>10}{}\n", machine.actions()[a].name, width,
                       attempted_count(a), succeeded_count(a), declined_count(a),
                       attempted_count(a) == 0 ? "  (never ran)" : "");
  }
  return out;
}

namespace {

// One weighted random walk: its target, handles and random numbers, and the transitions enabled
// in the state it is in.
class Walker {
 public:
  Walker(const MachineCore& machine, std::uint64_t seed, trace::TraceWriter* writer, Stats* stats)
      : machine_(machine),
        states_(machine.states()),
        writer_(writer),
        stats_(stats),
        walk_rng_(seed),
        target_(machine.make_target()) {}

  RunResult run(std::size_t max_steps) {
    StateId state = machine_.initial();
    if (stats_ != nullptr) stats_->entered(state);
    // Empty transitions do not count as steps; this bounds a walk that keeps taking them.
    const std::size_t max_moves = std::max<std::size_t>(1000, 100 * max_steps);
    try {
      for (std::size_t moves = 0;
           !states_[state].ends_run() && result_.steps < max_steps && moves < max_moves; ++moves) {
        collect_enabled(state);
        const Move move = take_a_transition(state);
        if (move == Move::kFailed) return std::move(result_);
        if (move == Move::kStuck) {
          result_.kind = RunKind::kStuck;
          result_.message =
              fmt::format("no transition out of state '{}' is enabled", states_[state].name);
          return std::move(result_);
        }
      }
    } catch (const std::exception& e) {
      // A guard, a precondition or a generate step threw.
      result_.kind = RunKind::kFinding;
      result_.message = fmt::format("unexpected exception outside an action's run: {}", e.what());
    }
    return std::move(result_);
  }

 private:
  enum class Move { kTaken, kFailed, kStuck };
  enum class ActionEnd { kDeclined, kMoved, kStayed, kFailed };

  void collect_enabled(StateId state) {
    enabled_.clear();
    total_ = 0;
    for (auto [t, end] = machine_.out_of(state); t != end; ++t) {
      if (t->weight <= 0) continue;
      if (t->guard && !t->guard(target_.get())) continue;
      const auto& pre = states_[t->next].precondition;
      if (pre && !pre(target_.get())) continue;
      enabled_.push_back(t);
      total_ += t->weight;
    }
  }

  // Picks enabled transitions by weight until one is taken, dropping those whose action declines
  // to generate arguments; kStuck when none is left.
  Move take_a_transition(StateId& state) {
    while (!enabled_.empty()) {
      const std::size_t pick = pick_enabled();
      const MachineCore::Transition* t = enabled_[pick];
      const ActionEnd end = t->action == kNoAction ? ActionEnd::kMoved : run_action(*t);
      if (end == ActionEnd::kDeclined) {
        total_ -= t->weight;
        enabled_.erase(enabled_.begin() + static_cast<std::ptrdiff_t>(pick));
        continue;
      }
      if (end == ActionEnd::kFailed) return Move::kFailed;
      if (end == ActionEnd::kMoved) {
        state = t->next;
        if (stats_ != nullptr) stats_->entered(state);
      }
      return Move::kTaken;
    }
    return Move::kStuck;
  }

  std::size_t pick_enabled() {
    double r = walk_rng_.unit() * total_;
    std::size_t pick = 0;
    while (pick + 1 < enabled_.size() && r >= enabled_[pick]->weight) {
      r -= enabled_[pick]->weight;
      ++pick;
    }
    return pick;
  }

  // Generates the step's arguments, writes the step, runs it and records how it ended.
  ActionEnd run_action(const MachineCore::Transition& t) {
    const MachineCore::ActionDef& def = machine_.actions()[t.action];
    trace::Step step;
    step.seed = walk_rng_.next();
    step.action = def.name;
    if (def.generate && !generate_args(def, step)) {
      if (stats_ != nullptr) stats_->declined(t.action);
      return ActionEnd::kDeclined;
    }
    if (writer_ != nullptr) writer_->step(step);
    ++result_.steps;
    result_.action = def.name;
    if (stats_ != nullptr) {
      stats_->attempted(t.action);
      stats_->set_progress(result_.steps);
    }
    Rng rng = run_rng(step.seed);
    CallContext ctx{target_.get(), handles_, rng};
    handles_.begin_step(nullptr);
    CallEnd end = call_run(def, ctx, Args(step.args));
    if (writer_ != nullptr) writer_->returns(handles_.produced());
    switch (end.outcome.kind) {
      case Outcome::Kind::kError:
        result_.kind = RunKind::kFinding;
        result_.message =
            end.trace_error ? "model error: " + end.outcome.message : end.outcome.message;
        return ActionEnd::kFailed;
      case Outcome::Kind::kOk:
        if (stats_ != nullptr) stats_->succeeded(t.action);
        break;
      case Outcome::Kind::kRejected:
      case Outcome::Kind::kSkipped:
        return ActionEnd::kStayed;  // the library refused the call: its state did not change
    }
    return ActionEnd::kMoved;
  }

  bool generate_args(const MachineCore::ActionDef& def, trace::Step& step) {
    Rng gen_rng(step.seed);
    CallContext ctx{target_.get(), handles_, gen_rng};
    std::optional<std::vector<std::string>> args = def.generate(ctx);
    if (!args) return false;
    step.args = std::move(*args);
    return true;
  }

  const MachineCore& machine_;
  const std::vector<MachineCore::State>& states_;
  trace::TraceWriter* const writer_;
  Stats* const stats_;
  RunResult result_;
  Rng walk_rng_;
  std::shared_ptr<void> target_;
  Handles handles_;
  std::vector<const MachineCore::Transition*> enabled_;
  double total_ = 0;
};

}  // namespace

RunResult walk(const MachineCore& machine, const trace::Header& header, std::uint64_t seed,
               const WalkOptions& options, trace::TraceWriter* writer, Stats* stats) {
  Walker walker(machine, seed, writer, stats);
  if (writer != nullptr) {
    trace::Header h = header;
    h.model = machine.name();
    h.set_option("seed", std::to_string(seed));
    writer->header(h);
  }
  return walker.run(options.max_steps);
}

RunResult replay(const MachineCore& machine, const trace::Trace& trace, Stats* stats) {
  RunResult result;
  std::shared_ptr<void> target = machine.make_target();
  Handles handles;
  for (const trace::Step& step : trace.steps) {
    std::optional<ActionIndex> action = machine.find_action(step.action);
    if (!action) {
      result.kind = RunKind::kBadTrace;
      result.line = step.line;
      std::vector<std::string_view> names;
      for (const auto& a : machine.actions()) names.push_back(a.name);
      result.message = fmt::format("unknown action '{}' (machine {} has: {})", step.action,
                                   machine.name(), fmt::join(names, ", "));
      return result;
    }
    const MachineCore::ActionDef& def = machine.actions()[*action];
    ++result.steps;
    result.action = def.name;
    if (stats != nullptr) {
      stats->attempted(*action);
      stats->set_progress(result.steps);
    }
    Rng rng = run_rng(step.seed);
    CallContext ctx{target.get(), handles, rng};
    handles.begin_step(&step.returns);
    CallEnd end = call_run(def, ctx, Args(step.args));
    if (!end.trace_error && end.outcome.kind != Outcome::Kind::kError) {
      try {
        handles.end_step();
      } catch (const TraceError& e) {
        end = {Outcome::error(e.what()), true};
      }
    }
    if (end.trace_error) {
      result.kind = RunKind::kBadTrace;
      result.line = step.line;
      result.message = fmt::format("{}: {}", step.action, end.outcome.message);
      return result;
    }
    if (end.outcome.kind == Outcome::Kind::kError) {
      result.kind = RunKind::kFinding;
      result.message = end.outcome.message;
      return result;
    }
    if (end.outcome.kind == Outcome::Kind::kOk && stats != nullptr) stats->succeeded(*action);
  }
  return result;
}

}  // namespace prowl::fsm
