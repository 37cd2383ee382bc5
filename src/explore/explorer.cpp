#include "prowl/explore/explorer.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "explorer_impl.hpp"
#include "prowl/core/interrupt.hpp"

namespace prowl {

using detail::Clock;
using detail::Executed;
using detail::seconds_since;

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
  own.world = world.get();
  own.exec = exec.get();
  const auto& actions = model.actions();
  graph = std::make_unique<Graph>(actions.size());
  graph->record_edges(options.record_edges);
  run_counts.assign(actions.size(), 0);
  coverage.resize(actions.size());
  for (std::size_t a = 0; a < actions.size(); ++a) {
    coverage[a].name = actions[a].name;
    any_run_limit = any_run_limit || actions[a].max_per_run > 0;
  }
  findings.begin(*graph);
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
  const std::size_t size = image.size;
  // Each step runs on a scratch copy and is hashed once the next has run (detail::StepScratch).
  const auto ran = [&](const unsigned char* bytes, std::size_t i) {
    Executed& item = items[i];
    item.fp = image_hash(bytes, size);
    graph->prefetch(item.fp);
  };
  for (ActionId a : actions) {
    Executed& item = items[n];
    unsigned char* at = image_scratch->fresh(source);  // typed actions leave the context as it is
    if (!exec->run_typed_on(a, at)) {
      image_scratch->release(ran);
      // It threw: run it again the general way, which records the error.
      if (Status st = run_pair({s, a}, /*batch=*/true, item); !st) return st;
      if (item.ran) ++n;
      continue;
    }
    item.pair = {s, a};
    item.ran = true;
    item.error = false;
    item.violation = false;
    item.failures.clear();  // a slot an error filled before
    item.kind = Outcome::Kind::kOk;
    count_step(a, Outcome::Kind::kOk);
    image_scratch->hold(at, n++, ran);
  }
  image_scratch->release(ran);
  planner->invalidate();  // an action that threw ran again on the world (run_pair)
  return Status::ok();
}

Status Explorer::Impl::run_pair(Pair pick, bool batch, Executed& item) {
  const auto [s, a] = pick;
  item.reset(pick);
  const Action& action = model.actions()[a];
  if (action.max_per_run > 0 && run_counts[a] >= action.max_per_run) return Status::ok();
  auto at_source = reach(s, pick);
  if (!at_source) return at_source.status();
  if (!*at_source) return Status::ok();
  if (Status st = step(own, graph->fingerprint(s), facts_of(s), batch, item); !st) return st;
  if (item.ran) count_step(a, item.kind);
  return Status::ok();
}

Result<bool> Explorer::Impl::reach(StateId s, Pair pick) {
  if (restore_image(s)) return true;
  Status st = planner->go_to(s);
  if (st) return true;
  planner->invalidate();
  // A signal cut the restore short (a service restarted, a step replayed): the pick is
  // abandoned, and the run stops at the next limit check.
  if (interrupts() > 0) return false;
  // A service died while a step on the path to s was replayed: that step's crash.
  if (replay_crash) {
    findings.note_crash(*replay_crash);
    replay_crash.reset();
    if (observing) strategy.observe(*graph, {pick, kNoState, false, true});
    return false;
  }
  if (st.code() != StatusCode::kInternal) return st;
  // The path to s did not replay the same way: report that path (its last action names the
  // finding; the message names the step that diverged) and leave s.
  const ActionId last = graph->parent_action(s);
  findings.record({FindingKind::kNondeterminism, last == kNoAction ? pick.action : last, kNoState,
                   kNoAction, s, st.message(), graph->depth(s)});
  if (observing) strategy.observe(*graph, {pick, kNoState, false, true});
  return false;
}

std::optional<Termination> Explorer::Impl::limit_reached(Clock::time_point start,
                                                         std::uint64_t under_way, bool clock,
                                                         double& next_progress) {
  if (interrupts() > 0) {
    if (interrupted_at == Clock::time_point{}) interrupted_at = Clock::now();
    return Termination::kInterrupted;
  }
  if (options.stop_on_first && !findings.pending().empty()) return Termination::kFirstFinding;
  if (options.max_steps > 0 && stats.steps + under_way >= options.max_steps) {
    return Termination::kMaxSteps;
  }
  if (options.coverage_target > 0 &&
      static_cast<double>(actions_covered) >= options.coverage_target * model.actions().size()) {
    return Termination::kCoverageTarget;
  }
  if (clock && (options.time_limit > 0 || options.on_progress || options.memory_limit > 0)) {
    const double t = seconds_since(start);
    if (options.time_limit > 0 && t >= options.time_limit) return Termination::kTimeLimit;
    if (over_memory(t)) return Termination::kMemory;
    if (options.on_progress && t >= next_progress) {
      next_progress = t + options.progress_interval;
      options.on_progress({graph->num_states(), graph->num_transitions(), stats.steps,
                           findings.pending().size(), t});
    }
  }
  return std::nullopt;
}

bool Explorer::Impl::over_memory(double t, bool force) {
  if (options.memory_limit == 0 || (!force && t < next_memory_check)) return false;
  next_memory_check = t + 0.01;
  return detail::resident_bytes() >= options.memory_limit;
}

// The reference loop: pick, step, commit, until a limit or the end.
Status Explorer::Impl::run_one(Clock::time_point start, Termination& termination) {
  OneLoop loop;
  if (Status st = start_one(loop); !st) return st;
  double next_progress = options.progress_interval;
  std::uint64_t next_clock_check = 0;
  for (;;) {
    const bool clock = stats.steps >= next_clock_check;  // the clock every 256 steps
    if (clock) next_clock_check = stats.steps + 256;
    if (std::optional<Termination> t = limit_reached(start, 0, clock, next_progress)) {
      termination = *t;
      return Status::ok();
    }
    std::size_t want = loop.batch_size;
    if (options.max_steps > 0) {
      want = std::min<std::uint64_t>(want, options.max_steps - stats.steps);
    }
    loop.n = 0;
    loop.taken = 0;
    Status st = loop.whole_states ? run_states(loop, want) : run_pairs(loop, want);
    if (st && loop.batch) st = commit_batch(loop);
    if (!st) return st;
    if (loop.taken == 0) return Status::ok();  // the strategy has nothing left
  }
}

Status Explorer::Impl::start_one(OneLoop& loop) {
  const StrategyTraits traits = strategy.traits();
  // With cheap snapshots and a strategy that can pick ahead, pairs run in batches: each
  // successor is saved, its table slot prefetched, and all are added to the graph afterwards,
  // which hides most of the cache misses of the fingerprint table.
  loop.batch = world->cheap() && world->mode() == RestoreMode::kSnapshot && traits.lookahead > 1;
  if (loop.batch && world->size() == 1 && model.state_keys().empty()) {
    image_system = &world->system(0);
    image = image_system->byte_image();
    image_hash = fingerprint_fn(image.size);
    if (image.size) {
      own.image = &image;
      own.image_hash = image_hash;
    }
    image_typed = image.size != 0 && nf == 0 && !exec->has_before() && !any_run_limit &&
                  exec->all_typed_runs();
    store.set_size(image.size);
    if (image_typed) image_scratch.emplace(image.size);
    // From here on the explorer keeps the snapshots; the world is still at the initial state.
    if (image_typed && graph->has_unexplored(0)) {
      if (Status st = keep_state(0); !st) return st;
    }
  }
  loop.batch_size = loop.batch ? std::min<std::size_t>(traits.lookahead, 64) : 1;
  // A strategy that expands whole states hands out states rather than pairs; a batch then ends
  // after the state that fills it, so it holds up to batch_size - 1 + num_actions pairs. Not with
  // a step limit, which must stop at an exact pair.
  loop.whole_states = loop.batch && traits.whole_states && options.max_steps == 0;
  loop.items.resize(loop.whole_states ? loop.batch_size - 1 + model.actions().size()
                                      : loop.batch_size);
  return Status::ok();
}

Status Explorer::Impl::run_states(OneLoop& loop, std::size_t want) {
  while (loop.n < want) {
    std::optional<StateId> s = strategy.pick_state(*graph);
    if (!s) break;
    ++loop.taken;
    PROWL_CHECK(*s < graph->num_states(),
                fmt::format("strategy '{}' picked an unknown state", strategy.name()));
    loop.state_actions.clear();
    graph->take_unexplored(*s, loop.state_actions);
    hold_image(*s);
    if (image_typed && held.bytes != nullptr) {
      if (Status st = run_image_state(*s, loop.state_actions, loop.items, loop.n); !st) return st;
    } else {
      for (ActionId a : loop.state_actions) {
        Executed& item = loop.items[loop.n];
        if (Status st = run_pair({*s, a}, /*batch=*/true, item); !st) return st;
        if (!item.ran) {
          if (Status st = commit(own, item, /*batch=*/true); !st) return st;
          continue;
        }
        graph->prefetch(item.fp);
        ++loop.n;
      }
    }
    held = {};
    loop.unran.push_back(*s);
  }
  return Status::ok();
}

Status Explorer::Impl::run_pairs(OneLoop& loop, std::size_t want) {
  while (loop.taken < want) {
    std::optional<Pair> pick = strategy.pick(*graph);
    if (!pick) break;
    ++loop.taken;
    PROWL_CHECK(
        pick->state < graph->num_states() && graph->is_unexplored(pick->state, pick->action),
        fmt::format("strategy '{}' picked a pair that is not unexplored", strategy.name()));
    graph->mark_explored(pick->state, pick->action);
    Executed& item = loop.items[loop.n];
    if (Status st = run_pair(*pick, loop.batch, item); !st) return st;
    if (!loop.batch || !item.ran) {
      if (Status st = commit(own, item, loop.batch); !st) return st;
      if (loop.batch) loop.unran.push_back(pick->state);
      continue;
    }
    graph->prefetch(item.fp);
    ++loop.n;
  }
  return Status::ok();
}

Status Explorer::Impl::commit_batch(OneLoop& loop) {
  for (std::size_t i = 0; i < loop.n; ++i) {
    if (!loop.items[i].error) graph->prefetch_state(loop.items[i].fp);
  }
  for (std::size_t i = 0; i < loop.n; ++i) {
    Executed& item = loop.items[i];
    if (item.error) {
      if (Status st = commit(own, item, true); !st) return st;
      continue;
    }
    if (!item.before.empty()) note_before(item);
    const auto [t, is_new] = graph->add(item.fp, item.pair.state, item.pair.action);
    graph->add_transition(item.pair.state, item.pair.action, t);
    // A known state needs nothing more unless a strategy or a known violation is watching.
    if (!is_new && !observing && findings.none_violated()) continue;
    if (Status st = commit_added(own, item, t, is_new, true); !st) return st;
  }
  // Sources are freed only now: a later item of the batch may have needed one again.
  if (!loop.whole_states) {
    for (std::size_t i = 0; i < loop.n; ++i) loop.unran.push_back(loop.items[i].pair.state);
  }
  for (StateId src : loop.unran) {
    if (!graph->has_unexplored(src)) drop_state(src);
  }
  loop.unran.clear();
  return Status::ok();
}

}  // namespace prowl
