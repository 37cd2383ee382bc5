// The step path: one step (step()) and its commit (commit(), commit_added()), which the one
// worker's loop, its batches and the several workers all use. Where they differ is in how a world
// gets to a step's source (the restore planner or a worker's image load) and what keeps a new
// state (a snapshot, the image store, a worker's image): reach() and run_pair() in explorer.cpp,
// Workers::step() in workers.cpp, and arrived() and left() here.
#include <algorithm>

#include <fmt/format.h>

#include "explorer_impl.hpp"
#include "prowl/core/interrupt.hpp"

namespace prowl {

using detail::Executed;

namespace detail {

bool detect_crash(const World& world, const Model& model, ActionId a, Executed& item) {
  const auto [system, why] = world.dead_system();
  if (system == nullptr) return false;
  std::size_t index = 0;
  while (&world.system(index) != system) ++index;
  item.crashed = index;
  item.crash = fmt::format("service '{}' died during '{}': {}", system->name(),
                           model.actions()[a].name, why);
  return true;
}

}  // namespace detail

Status Explorer::Impl::step(Lane& lane, const Fingerprint& source_fp,
                            std::span<const detail::Fact> source_facts, bool batch,
                            Executed& item) {
  const ActionId a = item.pair.action;
  detail::Executor& ex = *lane.exec;
  if (ex.has_before()) {
    ex.check(true,
             [&](std::size_t i, const std::string& msg) { item.before.emplace_back(i, msg); });
    if (interrupts() > 0) item.before.clear();  // checks a signal cut short say nothing
  }
  Outcome out = ex.run(a, [&] { return step_rng_at(source_fp, a); });
  if (out.kind == Outcome::Kind::kSkipped) return Status::ok();  // the world is still at s
  if (out.kind == Outcome::Kind::kError && interrupts() > 0) {
    // Abandoned: the interrupt cut the step short (an HTTP request is aborted), or it failed while
    // the run was stopping. Not counted, and not the system's fault.
    left(lane);
    return Status::ok();
  }
  item.ran = true;
  item.kind = out.kind;
  item.detail = std::move(out.detail);
  if (out.kind == Outcome::Kind::kError) {
    item.error = true;
    item.violation = true;
    if (!detail::detect_crash(*lane.world, model, a, item)) {
      item.message = std::move(out.message);
      // The step failed, but it may have changed the system on its way: the after-invariants
      // judge the state it left (note_action_error() words what they find into the error).
      if (ex.has_after()) {
        ex.check(false, [&](std::size_t i, const std::string& msg) {
          item.failures.emplace_back(i, msg);
        });
        if (interrupts() > 0) item.failures.clear();
        // Checks that failed because a service was going down say nothing: the crash is the
        // finding (detect_crash() sets it, and commit() reports it instead of the error).
        if (!item.failures.empty() && detail::detect_crash(*lane.world, model, a, item)) {
          item.failures.clear();
        }
      }
    }
    left(lane);
    return Status::ok();
  }
  std::span<const detail::Fact> target_facts;
  if (nf > 0) {
    item.facts.resize(nf);
    ex.advance(source_facts, a, item.facts);
    target_facts = item.facts;
  }
  if (lane.image != nullptr) {
    if (target_facts.empty()) {
      item.fp = lane.image_hash(lane.image->live, lane.image->size);
    } else {
      Hasher h;
      h.add_bytes(lane.image->live, lane.image->size);
      h.add_bytes(target_facts.data(), target_facts.size_bytes());
      item.fp = h.finish();
    }
  } else if (Status st = ex.fingerprint(target_facts, item.fp); !st) {
    left(lane);
    if (interrupts() > 0) {
      item.ran = false;  // the observation's request was cut short: abandoned
      return Status::ok();
    }
    // A service that died answering (or right after) cannot be observed: that is the finding.
    if (!detail::detect_crash(*lane.world, model, a, item)) return st;
    item.error = true;
    item.violation = true;
    return Status::ok();
  }
  // In batch mode "after" invariants are checked in commit_added(), once per new state.
  if (!batch && ex.has_after()) {
    ex.check(false,
             [&](std::size_t i, const std::string& msg) { item.failures.emplace_back(i, msg); });
    if (interrupts() > 0) item.failures.clear();  // checks a signal cut short say nothing
  }
  if (batch) left(lane);  // the world is at a state the graph does not know yet
  return Status::ok();
}

Status Explorer::Impl::commit(Lane& lane, Executed& item, bool batch) {
  const auto [s, a] = item.pair;
  // A service of the lane's world that died while idle, found by the restore before this step.
  findings.note_idle_death(*lane.world, lane.last);
  if (item.ran && !lane.world->cheap()) {
    lane.last = {item.pair, std::string(to_string(item.kind)), item.detail};
  }
  note_before(item);
  if (!item.ran) {
    if (!batch && !graph->has_unexplored(s)) drop_state(s);
    return Status::ok();
  }
  // Invariants that fail because the service died while they were checked are not findings of
  // their own. Asked only when one would be a new finding (it held before the step): a state
  // that already violates an invariant keeps failing it, and asking costs a look at /proc.
  if (!item.error && findings.breaks_invariant(item, s) &&
      detail::detect_crash(*lane.world, model, a, item)) {
    item.failures.clear();
    item.error = true;
    item.violation = true;
    left(lane);
  }
  if (item.error) {
    if (item.crashed != Executed::kNoSystem) {
      findings.note_crash(item);
    } else {
      findings.note_action_error(item, std::move(item.message));
    }
    if (observing) strategy.observe(*graph, {item.pair, kNoState, false, true});
    if (!batch && !graph->has_unexplored(s)) drop_state(s);
    return Status::ok();
  }
  const auto [t, is_new] = graph->add(item.fp, s, a);
  graph->add_transition(s, a, t);
  return commit_added(lane, item, t, is_new, batch);
}

void Explorer::Impl::note_before(Executed& item) {
  // Checked before the action ran: they count even when it was skipped.
  for (const auto& [i, msg] : item.before) {
    if (findings.note_before(i, item.pair.state, msg)) item.violation = true;
  }
}

Status Explorer::Impl::commit_added(Lane& lane, Executed& item, StateId t, bool is_new,
                                    bool batch) {
  const auto [s, a] = item.pair;
  bool reached = true;  // the world is at t
  if (is_new) {
    for (std::size_t i = 0; i < nf; ++i) facts.push_back(item.facts[i]);
    if (batch) {
      auto again = reach_again(item);
      if (!again) return again.status();
      reached = *again;
      item.violation = item.violation || !reached;
    }
    if (reached) {
      if (Status st = arrived(lane, t, true); !st) return st;
    }
  } else if (!batch) {
    if (Status st = arrived(lane, t, false); !st) return st;
  }
  bool violation = item.violation;
  if (!batch) {
    violation = findings.note_failures(item, t) || violation;
  } else if (!is_new) {
    violation = findings.note_known_failures(s, a, t) || violation;
  } else if (reached && lane.exec->has_after()) {
    lane.exec->check(false, [&](std::size_t i, const std::string& msg) {
      violation = findings.note_new_failure(s, a, t, i, msg) || violation;
    });
  }
  if (is_new) {
    stats.max_depth = std::max(stats.max_depth, graph->depth(t));
    if (reached) {
      if (Status st = expand(t, *lane.exec); !st) return st;
    } else {
      graph->set_enabled(t, {});
      strategy.notify(*graph, t, {});
    }
  }
  if (observing) strategy.observe(*graph, {item.pair, t, is_new, violation});
  if (!batch && !graph->has_unexplored(s)) drop_state(s);
  return Status::ok();
}

Result<bool> Explorer::Impl::reach_again(const Executed& item) {
  const auto [s, a] = item.pair;
  if (restore_image(s)) {
    planner->placed(s);
  } else if (Status st = planner->go_to(s); !st) {
    return st;
  }
  Outcome again = exec->run(a, [&] { return step_rng(s, a); });
  bool same = again.kind != Outcome::Kind::kError && again.kind != Outcome::Kind::kSkipped;
  if (same && image.size && nf == 0) {
    same = image_hash(image.live, image.size) == item.fp;
  } else if (same) {
    Fingerprint fp;
    if (Status st = exec->fingerprint(item.facts, fp); !st) return st;
    same = fp == item.fp;
  }
  if (!same) {
    // The step does not repeat: report it, and leave its target unexpanded (the world is
    // elsewhere).
    findings.note_nondeterminism(s, a);
    planner->invalidate();
  }
  return same;
}

Status Explorer::Impl::arrived(Lane& lane, StateId t, bool is_new) {
  if (workers) {
    lane.at = t;
    return is_new ? keep_worker_image(lane, t) : Status::ok();
  }
  planner->moved(t);
  return is_new ? keep_state(t) : Status::ok();
}

void Explorer::Impl::left(Lane& lane) {
  if (workers) {
    lane.at = kNoState;
  } else {
    planner->invalidate();
  }
}

}  // namespace prowl
