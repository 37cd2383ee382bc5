#include "prowl/explore/explorer.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "explorer_impl.hpp"
#include "prowl/core/interrupt.hpp"

namespace prowl {

using detail::Clock;
using detail::Executed;
using detail::Pending;
using detail::seconds_since;

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

Explorer::Explorer(const Model& model, Strategy& strategy, Options options)
    : impl_(std::make_unique<Impl>(model, strategy, std::move(options))) {}
Explorer::~Explorer() = default;

const Graph& Explorer::graph() const {
  PROWL_CHECK(impl_->graph != nullptr, "Explorer::graph() before run()");
  return *impl_->graph;
}

Result<RunReport> Explorer::run() { return impl_->run(); }

const RunReport* Explorer::partial_report() const {
  return impl_->partial ? &*impl_->partial : nullptr;
}

Result<RunReport> explore(const Model& model, Strategy& strategy, Options options) {
  return Explorer(model, strategy, std::move(options)).run();
}

Status Explorer::Impl::init() {
  if (Status st = model.validate(); !st) return st;
  if (Status st = options.validate(); !st) return st;
  auto w = model.make_world();
  if (!w) return w.status();
  world = std::move(*w);
  if (Status st = world->begin(); !st) return st;
  exec = std::make_unique<detail::Executor>(model, *world);
  nf = exec->num_facts();
  next_facts.assign(nf, 0);
  const auto& actions = model.actions();
  graph = std::make_unique<Graph>(actions.size());
  graph->record_edges(options.record_edges);
  run_counts.assign(actions.size(), 0);
  coverage.resize(actions.size());
  violating.resize(model.invariants().size());
  for (std::size_t a = 0; a < actions.size(); ++a) {
    coverage[a].name = actions[a].name;
    any_run_limit = any_run_limit || actions[a].max_per_run > 0;
  }
  planner = std::make_unique<RestorePlanner>(
      *world, *graph, [this](StateId f, ActionId a, StateId t) { return replay_edge(f, a, t); });
  return Status::ok();
}

Status Explorer::Impl::replay_edge(StateId from, ActionId a, StateId to) {
  Outcome out = exec->run(a, [&] { return step_rng(from, a); });
  // A service that died while the step was replayed: that step's crash (run_pair reports it).
  auto died = [&] {
    Executed crash;
    crash.pair = {from, a};
    crash.kind = out.kind;
    crash.detail = out.detail;
    if (!detail::detect_crash(*world, model, a, crash)) return false;
    replay_crash = std::move(crash);
    return true;
  };
  if (out.kind == Outcome::Kind::kError || out.kind == Outcome::Kind::kSkipped) {
    if (out.kind == Outcome::Kind::kError && died()) {
      return Status::internal(
          fmt::format("a service died while '{}' was replayed", model.actions()[a].name));
    }
    return Status::internal(fmt::format("replaying '{}' failed: {}", model.actions()[a].name,
                                        out.message.empty() ? "skipped" : out.message));
  }
  Fingerprint fp;
  if (Status st = exec->fingerprint(facts_of(to), fp); !st) {
    if (died()) {
      return Status::internal(
          fmt::format("a service died while '{}' was replayed", model.actions()[a].name));
    }
    return st;
  }
  if (!(fp == graph->fingerprint(to))) {
    return Status::internal(fmt::format(
        "replaying '{}' reached a different state than the first time: the system or the action "
        "is not deterministic",
        model.actions()[a].name));
  }
  return Status::ok();
}

Status Explorer::Impl::expand(StateId s, detail::Executor& ex) {
  enabled_scratch.clear();
  if (options.max_depth == 0 || graph->depth(s) < options.max_depth) {
    ex.enabled_actions(facts_of(s), any_run_limit ? &run_counts : nullptr, enabled_scratch);
  }
  graph->set_enabled(s, enabled_scratch);
  for (ActionId a : enabled_scratch) ++coverage[a].enabled;
  strategy.notify(*graph, s, enabled_scratch);
  if (enabled_scratch.empty()) drop_state(s);
  return Status::ok();
}

void Explorer::Impl::record(Pending p) {
  auto key = std::make_tuple(static_cast<int>(p.kind), p.index, p.action);
  auto it = pending.find(key);
  if (it == pending.end()) {
    pending.emplace(key, std::move(p));
  } else if (p.length < it->second.length) {
    it->second = std::move(p);
  }
}

void Explorer::Impl::count_step(ActionId a, Outcome::Kind kind) {
  ++stats.steps;
  ActionCoverage& cov = coverage[a];
  if (cov.executed++ == 0) ++actions_covered;
  ++run_counts[a];
  switch (kind) {
    case Outcome::Kind::kOk:
      ++cov.ok;
      break;
    case Outcome::Kind::kRejected:
      ++cov.rejected;
      break;
    case Outcome::Kind::kError:
      ++cov.errors;
      break;
    case Outcome::Kind::kSkipped:
      break;
  }
}

Status Explorer::Impl::run_image_state(StateId s, std::span<const ActionId> actions,
                                       std::vector<Executed>& items, std::size_t& n) {
  PROWL_CHECK(held.state == s && held.bytes != nullptr,
              "run_image_state() without the state's bytes held");
  const unsigned char* const source = held.bytes;
  unsigned char* const live = image.live;
  const std::size_t size = image.size;
  for (ActionId a : actions) {
    Executed& item = items[n];
    std::memcpy(live, source, size);  // typed actions leave the context as it is
    if (!exec->run_typed(a)) {
      // It threw: run it again the general way, which records the error.
      if (Status st = run_pair({s, a}, /*batch=*/true, item); !st) return st;
      if (item.ran) ++n;
      continue;
    }
    item.pair = {s, a};
    item.ran = true;
    item.error = false;
    item.violation = false;
    item.kind = Outcome::Kind::kOk;
    count_step(a, Outcome::Kind::kOk);
    item.fp = image_hash(live, size);
    graph->prefetch(item.fp);
    ++n;
  }
  planner->invalidate();  // the world is at a state the graph does not know yet
  return Status::ok();
}

Status Explorer::Impl::run_pair(Pair pick, bool batch, Executed& item) {
  const auto [s, a] = pick;
  item.pair = pick;
  item.ran = false;
  item.error = false;
  item.violation = false;
  item.failures.clear();
  item.detail.clear();
  item.crashed = Executed::kNoSystem;
  const Action& action = model.actions()[a];
  if (action.max_per_run > 0 && run_counts[a] >= action.max_per_run) {
    if (!batch && !graph->has_unexplored(s)) planner->release(s);
    return Status::ok();
  }
  if (Status st = restore_image(s) ? Status::ok() : planner->go_to(s); !st) {
    planner->invalidate();
    // A signal cut the restore short (a service restarted, a step replayed): the pick is
    // abandoned, and the run stops at the next limit check.
    if (interrupts() > 0) return Status::ok();
    // A service died while a step on the path to s was replayed: that step's crash.
    if (replay_crash) {
      note_crash(*replay_crash);
      replay_crash.reset();
      if (observing) strategy.observe(*graph, {pick, kNoState, false, true});
      return Status::ok();
    }
    if (st.code() != StatusCode::kInternal) return st;
    // The path to s did not replay the same way: report that path (its last action names the
    // finding; the message names the step that diverged) and leave s.
    const ActionId last = graph->parent_action(s);
    record({FindingKind::kNondeterminism, last == kNoAction ? a : last, kNoState, kNoAction, s,
            st.message(), graph->depth(s)});
    if (observing) strategy.observe(*graph, {pick, kNoState, false, true});
    return Status::ok();
  }
  note_idle_death(*world, last_step);
  if (exec->has_before()) {
    before_scratch.clear();
    exec->check(
        true, [&](std::size_t i, const std::string& msg) { before_scratch.emplace_back(i, msg); });
    // A check whose request a signal cut short says nothing about the system.
    if (interrupts() == 0) {
      for (const auto& [i, msg] : before_scratch) {
        if (note_before(i, s, msg)) item.violation = true;
      }
    }
  }
  Outcome out = exec->run(a, [&] { return step_rng(s, a); });
  if (out.kind == Outcome::Kind::kSkipped) {
    if (!batch && !graph->has_unexplored(s)) planner->release(s);
    return Status::ok();
  }
  if (out.kind == Outcome::Kind::kError && interrupts() > 0) {
    // Abandoned: the interrupt cut the step short (an HTTP request is aborted), or it failed while
    // the run was stopping. Not counted, and not the system's fault.
    planner->invalidate();
    return Status::ok();
  }
  item.ran = true;
  item.kind = out.kind;
  item.detail = std::move(out.detail);
  count_step(a, out.kind);
  if (!world->cheap()) last_step = {pick, std::string(to_string(out.kind)), item.detail};
  if (out.kind == Outcome::Kind::kError) {
    item.error = true;
    item.violation = true;
    if (detail::detect_crash(*world, model, a, item)) {
      note_crash(item);
    } else {
      note_action_error(s, a, std::move(out.message), item.detail);
    }
    planner->invalidate();
    return Status::ok();
  }
  std::span<const detail::Fact> target_facts;
  if (nf > 0) {
    item.facts.resize(nf);
    exec->advance(facts_of(s), a, item.facts);
    target_facts = item.facts;
  }
  if (image.size) {
    if (target_facts.empty()) {
      item.fp = image_hash(image.live, image.size);
    } else {
      Hasher h;
      h.add_bytes(image.live, image.size);
      h.add_bytes(target_facts.data(), target_facts.size_bytes());
      item.fp = h.finish();
    }
  } else if (Status st = exec->fingerprint(target_facts, item.fp); !st) {
    if (interrupts() > 0) {
      // The observation's request was cut short: nothing to add, the run is stopping.
      item.error = true;
      planner->invalidate();
      return Status::ok();
    }
    // A service that died answering (or right after) cannot be observed: that is the finding.
    if (!detail::detect_crash(*world, model, a, item)) return st;
    item.error = true;
    item.violation = true;
    note_crash(item);
    planner->invalidate();
    return Status::ok();
  }
  // In batch mode "after" invariants are checked in commit(), once per new state.
  if (!batch && exec->has_after()) {
    exec->check(false,
                [&](std::size_t i, const std::string& msg) { item.failures.emplace_back(i, msg); });
    // Checks whose requests a signal cut short say nothing about the system.
    if (interrupts() > 0) item.failures.clear();
    // Invariants that fail because the service died while they were checked are not findings of
    // their own. Asked only when one would be a new finding (it held before the step): a state
    // that already violates an invariant keeps failing it, and asking costs a look at /proc.
    if (breaks_invariant(item, s) && detail::detect_crash(*world, model, a, item)) {
      item.failures.clear();
      item.error = true;
      item.violation = true;
      note_crash(item);
      planner->invalidate();
      return Status::ok();
    }
  }
  if (batch) planner->invalidate();  // the world is at a state the graph does not know yet
  return Status::ok();
}

Status Explorer::Impl::commit(Executed& item, bool batch) {
  const auto [s, a] = item.pair;
  if (item.error) {
    if (observing) strategy.observe(*graph, {item.pair, kNoState, false, true});
    if (!batch && !graph->has_unexplored(s)) planner->release(s);
    return Status::ok();
  }
  const auto [t, is_new] = graph->add(item.fp, s, a);
  graph->add_transition(s, a, t);
  return commit_added(item, t, is_new, batch);
}

Status Explorer::Impl::commit_added(Executed& item, StateId t, bool is_new, bool batch) {
  const auto [s, a] = item.pair;
  bool reached = true;  // the world is at t
  if (is_new) {
    for (std::size_t i = 0; i < nf; ++i) facts.push_back(item.facts[i]);
    if (batch) {
      // Batches do not keep successors (most are known states): run the step again to reach t,
      // which also checks that the step repeats.
      if (restore_image(s)) {
        planner->placed(s);
      } else if (Status st = planner->go_to(s); !st) {
        return st;
      }
      Outcome again = exec->run(a, [&] { return step_rng(s, a); });
      Fingerprint fp;
      reached = again.kind != Outcome::Kind::kError && again.kind != Outcome::Kind::kSkipped;
      if (reached && image.size && nf == 0) {
        reached = image_hash(image.live, image.size) == item.fp;
      } else if (reached) {
        if (Status st = exec->fingerprint(item.facts, fp); !st) return st;
        reached = fp == item.fp;
      }
      if (!reached) {
        // The step does not repeat: report it, and leave t unexpanded (the world is elsewhere).
        record({FindingKind::kNondeterminism, a, s, a, kNoState,
                fmt::format("running '{}' twice from the same state gave different results: the "
                            "action is not deterministic",
                            model.actions()[a].name),
                graph->depth(s) + 1});
        item.violation = true;
        planner->invalidate();
      }
    }
    if (reached) {
      planner->moved(t);
      if (Status st = keep_state(t); !st) return st;
    }
  } else if (!batch) {
    planner->moved(t);
  }
  bool violation = item.violation;
  auto broke = [&](std::size_t i, const std::string& msg) {
    if (violating[i].count(s)) return;  // broken before this step
    record({FindingKind::kInvariant, i, s, a, kNoState, msg, graph->depth(s) + 1});
    violation = true;
  };
  if (!batch) {
    violation = note_failures(item, t) || violation;
  } else if (is_new) {
    if (reached && exec->has_after()) {
      exec->check(false, [&](std::size_t i, const std::string& msg) {
        mark_violating(i, t, msg);
        broke(i, msg);
      });
    }
  } else {
    for (std::size_t i : ever_violated) {
      if (!model.invariants()[i].after()) continue;  // "before" ones are not a step's doing
      auto it = violating[i].find(t);
      if (it != violating[i].end()) broke(i, it->second);
    }
  }
  if (is_new) {
    stats.max_depth = std::max(stats.max_depth, graph->depth(t));
    if (reached) {
      if (Status st = expand(t, *exec); !st) return st;
    } else {
      graph->set_enabled(t, {});
      strategy.notify(*graph, t, {});
    }
  }
  if (observing) strategy.observe(*graph, {item.pair, t, is_new, violation});
  if (!batch && !graph->has_unexplored(s)) planner->release(s);
  return Status::ok();
}

bool Explorer::Impl::note_failures(const Executed& item, StateId t) {
  const auto [s, a] = item.pair;
  bool any = false;
  for (const auto& [i, msg] : item.failures) {
    mark_violating(i, t, msg);
    if (violating[i].count(s)) continue;  // broken before this step
    record({FindingKind::kInvariant, i, s, a, kNoState, msg, graph->depth(s) + 1,
            std::string(to_string(item.kind)), item.detail});
    any = true;
  }
  return any;
}

std::optional<Termination> Explorer::Impl::limit_reached(Clock::time_point start,
                                                         std::uint64_t under_way, bool clock,
                                                         double& next_progress) {
  if (interrupts() > 0) {
    if (interrupted_at == Clock::time_point{}) interrupted_at = Clock::now();
    return Termination::kInterrupted;
  }
  if (options.stop_on_first && !pending.empty()) return Termination::kFirstFinding;
  if (options.max_steps > 0 && stats.steps + under_way >= options.max_steps) {
    return Termination::kMaxSteps;
  }
  if (options.coverage_target > 0 &&
      static_cast<double>(actions_covered) >= options.coverage_target * model.actions().size()) {
    return Termination::kCoverageTarget;
  }
  if (clock && (options.time_limit > 0 || options.on_progress)) {
    const double t = seconds_since(start);
    if (options.time_limit > 0 && t >= options.time_limit) return Termination::kTimeLimit;
    if (options.on_progress && t >= next_progress) {
      next_progress = t + options.progress_interval;
      options.on_progress(
          {graph->num_states(), graph->num_transitions(), stats.steps, pending.size(), t});
    }
  }
  return std::nullopt;
}

Status Explorer::Impl::run_one(Clock::time_point start, Termination& termination) {
  double next_progress = options.progress_interval;
  std::uint64_t next_clock_check = 0;
  const std::size_t num_actions = model.actions().size();
  // With cheap snapshots and a strategy that can pick ahead, pairs run in batches: each
  // successor is saved, its table slot prefetched, and all are added to the graph afterwards,
  // which hides most of the cache misses of the fingerprint table.
  const bool batch =
      world->cheap() && world->mode() == RestoreMode::kSnapshot && strategy.traits().lookahead > 1;
  if (batch && world->size() == 1 && model.state_keys().empty()) {
    image_system = &world->system(0);
    image = image_system->byte_image();
    image_hash = fingerprint_fn(image.size);
    image_typed = image.size != 0 && nf == 0 && !exec->has_before() && !any_run_limit &&
                  exec->all_typed_runs();
    // From here on the explorer keeps the snapshots; the world is still at the initial state.
    if (image_typed && graph->has_unexplored(0)) {
      if (Status st = keep_state(0); !st) return st;
    }
  }
  const std::size_t batch_size = batch ? std::min<std::size_t>(strategy.traits().lookahead, 64) : 1;
  // A strategy that expands whole states hands out states rather than pairs; a batch then ends
  // after the state that fills it, so it holds up to batch_size - 1 + num_actions pairs. Not with
  // a step limit, which must stop at an exact pair.
  const bool whole_states = batch && strategy.traits().whole_states && options.max_steps == 0;
  std::vector<Executed> items(whole_states ? batch_size - 1 + num_actions : batch_size);
  std::vector<StateId> unran;           // batch mode: sources to free once the batch is committed
  std::vector<ActionId> state_actions;  // whole-state mode: the picked state's actions

  for (;;) {
    const bool clock = stats.steps >= next_clock_check;  // the clock every 256 steps
    if (clock) next_clock_check = stats.steps + 256;
    if (std::optional<Termination> t = limit_reached(start, 0, clock, next_progress)) {
      termination = *t;
      break;
    }

    std::size_t want = batch_size;
    if (options.max_steps > 0)
      want = std::min<std::uint64_t>(want, options.max_steps - stats.steps);
    std::size_t n = 0;      // pairs waiting in items
    std::size_t taken = 0;  // picks this round
    while (whole_states && n < want) {
      std::optional<StateId> s = strategy.pick_state(*graph);
      if (!s) break;
      ++taken;
      PROWL_CHECK(*s < graph->num_states(),
                  fmt::format("strategy '{}' picked an unknown state", strategy.name()));
      state_actions.clear();
      graph->take_unexplored(*s, state_actions);
      hold_image(*s);
      if (image_typed && held.bytes != nullptr) {
        if (Status st = run_image_state(*s, state_actions, items, n); !st) return st;
      } else {
        for (ActionId a : state_actions) {
          Executed& item = items[n];
          if (Status st = run_pair({*s, a}, batch, item); !st) return st;
          if (!item.ran) continue;
          graph->prefetch(item.fp);
          ++n;
        }
      }
      held = {};
      unran.push_back(*s);
    }
    while (!whole_states && taken < want) {
      std::optional<Pair> pick = strategy.pick(*graph);
      if (!pick) break;
      ++taken;
      PROWL_CHECK(
          pick->state < graph->num_states() && graph->is_unexplored(pick->state, pick->action),
          fmt::format("strategy '{}' picked a pair that is not unexplored", strategy.name()));
      graph->mark_explored(pick->state, pick->action);
      Executed& item = items[n];
      if (Status st = run_pair(*pick, batch, item); !st) return st;
      if (!item.ran) {
        if (batch) unran.push_back(pick->state);
        continue;
      }
      if (!batch) {
        if (Status st = commit(item, false); !st) return st;
        continue;
      }
      graph->prefetch(item.fp);
      ++n;
    }
    if (batch) {
      for (std::size_t i = 0; i < n; ++i) {
        if (!items[i].error) graph->prefetch_state(items[i].fp);
      }
      for (std::size_t i = 0; i < n; ++i) {
        Executed& item = items[i];
        if (item.error) {
          if (Status st = commit(item, true); !st) return st;
          continue;
        }
        const auto [t, is_new] = graph->add(item.fp, item.pair.state, item.pair.action);
        graph->add_transition(item.pair.state, item.pair.action, t);
        // A known state needs nothing more unless a strategy or a known violation is watching.
        if (!is_new && !observing && ever_violated.empty()) continue;
        if (Status st = commit_added(item, t, is_new, true); !st) return st;
      }
      // Sources are freed only now: a later item of the batch may have needed one again.
      if (!whole_states) {
        for (std::size_t i = 0; i < n; ++i) unran.push_back(items[i].pair.state);
      }
      for (StateId src : unran) {
        if (!graph->has_unexplored(src)) drop_state(src);
      }
      unran.clear();
    }
    if (taken == 0) break;  // the strategy has nothing left
  }
  return Status::ok();
}

}  // namespace prowl
