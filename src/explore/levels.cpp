// The threaded breadth-first search of an in-memory model (Options::threads, docs/scale.md).
//
// The search goes level by level. A level's states (the frontier, whose bytes are kept in
// LevelBytes blocks) are expanded in rounds of up to round_states() states, each round in three
// phases that every thread of a Team runs, with the caller's bookkeeping between them:
//   1. expand: threads claim chunks of consecutive states, run every enabled action of each on
//      their own copies of the state (detail::StepScratch), and look each successor up in the
//      graph (read-only: nothing writes the graph in this phase). A known successor is a
//      transition; an unknown one is kept as a candidate in the chunk, in (source, action) order.
//   2. deduplicate: each thread owns the fingerprints of its part of the table (Graph::part_of;
//      phase 1 listed them per owner) and goes through its candidates of the round in order,
//      keeping the first of each fingerprint (the winner). Since chunks and candidates are in
//      (source, action) order, the winner is the step one thread would have found the state by.
//   3. add: the caller numbers the winners in that order (ids are those one thread gives); the
//      threads then store them in the graph (Graph::set_state), run each winner's step again to
//      keep its bytes for the next level and check that it repeats, and check the
//      after-invariants of each new state; then each thread enters the winners it owns in its
//      part of the fingerprint table (Graph::TablePart: no two threads write one slot, so no
//      write is atomic and none waits for its cache line), and the caller the few a part kept
//      aside.
// The caller then records the round's findings in (source, action) order, exactly as one thread
// meets them, so that every thread count gives the same states, ids, depths, findings and paths.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "explorer_impl.hpp"
#include "level_bytes.hpp"
#include "prowl/core/interrupt.hpp"
#include "step_scratch.hpp"
#include "team.hpp"

namespace prowl {

using detail::Clock;

namespace {

// A successor that was not in the graph when it was generated.
struct Candidate {
  Fingerprint fp;
  std::uint32_t source;  // the source's offset in the level; a winner's new id after phase 3
  std::uint16_t action;
  std::uint16_t won;  // the first step of the round to reach this fingerprint
};

// Something the findings must hear of, at step (source, action).
struct Event {
  enum class Kind { kError, kKnownViolating, kNew, kNewAgain, kNondeterminism };
  Kind kind;
  StateId source;
  ActionId action;
  StateId target = kNoState;
  std::string message = {};
  std::vector<std::pair<std::size_t, std::string>> failures = {};
};

// Consecutive states of the frontier, expanded by one thread. On a cache line of its own: threads
// expand neighbouring chunks at once.
struct alignas(64) Chunk {
  StateId first = 0;
  StateId end = 0;
  std::vector<Candidate> candidates;
  std::vector<std::vector<std::uint32_t>> owned;  // by thread: the candidates it deduplicates
  std::vector<Event> events;
  std::uint32_t winners = 0;
  StateId first_new = 0;  // the id of the chunk's first winner
};

// One thread's copy of the world and what it counted, on cache lines of its own.
struct alignas(64) Member {
  std::unique_ptr<World> own_world;  // null for member 0, which uses the explorer's
  std::unique_ptr<detail::Executor> own_exec;
  detail::Executor* exec = nullptr;
  unsigned char* live = nullptr;
  std::optional<detail::StepScratch<Pair>> scratch;  // where expand() runs the steps
  std::vector<ActionId> enabled;
  struct Step {
    Fingerprint fp;
    StateId source;
    ActionId action;
  };
  std::vector<Step> pending;             // successors whose table slots are being prefetched
  std::vector<std::uint64_t> dedupe;     // phase 2's table: (tag << 40) | (ref + 1)
  std::vector<std::uint32_t> winners;    // phase 2: the winners this member found, by chunk
  std::optional<Graph::TablePart> part;  // phase 3: its part of the table
  std::vector<std::uint64_t> enabled_count, executed, errors;
  std::uint64_t steps = 0;
  std::uint64_t transitions = 0;
};

constexpr std::size_t kPrefetchBatch = 32;

constexpr unsigned kRefIndexBits = 24;  // a dedupe ref: chunk << 24 | candidate index

}  // namespace

struct Explorer::Impl::Levels {
  Impl& x;
  Graph& graph;
  unsigned threads;
  std::size_t size;  // bytes of a state
  FingerprintFn hash;
  std::vector<Member> members;
  std::unique_ptr<detail::Team> team;
  std::size_t chunk_states = 256;

  std::vector<unsigned char> root;  // the initial state's bytes
  detail::LevelBytes::Pool blocks;  // frontier's and next's free blocks
  detail::LevelBytes frontier;      // the level's states' bytes
  detail::LevelBytes next;          // the next level's, as they are found
  StateId level_first = 0;
  StateId next_first = 0;
  std::uint32_t depth = 0;
  std::vector<Chunk> chunks;  // the round's
  std::size_t round_chunks = 0;
  std::atomic<std::size_t> claim{0};
  std::atomic<bool> stop{false};
  bool check_known = false;   // some state violates an after-invariant: known targets are asked
  std::vector<char> skipped;  // next level: states whose step did not repeat (not expanded)
  std::vector<char> skip_now;
  std::vector<StateId> new_violating;  // the round's new states that fail an invariant (sorted)

  Levels(Impl& impl, unsigned n)
      : x(impl),
        graph(*impl.graph),
        threads(n),
        size(impl.world->system(0).byte_image().size),
        frontier(size, blocks),
        next(size, blocks) {}

  Status start();
  void finish();
  void run(const detail::Team::Job& job) { team ? team->run(job) : job(0); }
  // job, then (once every thread is done with it) then.
  void run(const detail::Team::Job& job, const detail::Team::Job& then) {
    if (team) return team->run(job, then);
    job(0);
    then(0);
  }
  Status search(Clock::time_point start, Termination& termination);
  // One round: the frontier's states [first, end). False when the run must stop.
  bool round(StateId first, StateId end, Clock::time_point start, Termination& termination);
  void expand(Member& m, Chunk& c);
  void resolve(Member& m, Chunk& c);
  void error(Member& m, Chunk& c, StateId s, ActionId a, const unsigned char* src);
  void deduplicate(Member& m, unsigned member);
  void add(Member& m, Chunk& c);
  // Phase 3, once every winner has its id: member k enters the winners it owns in its part of
  // the table (and, when the table grew, the known states of that part).
  void enter(unsigned k, std::size_t again);
  void find_again(Chunk& c);
  // After phase 3: the round's new states that fail an invariant (new_violating) and whose step
  // did not repeat (skipped, not expanded).
  void note_new_states();
  // Records the round's events in (source, action) order; false once a finding stops the run.
  bool record();
  void tally();
  // The thread that deduplicates a fingerprint and enters it in the table.
  unsigned owner(const Fingerprint& fp) const { return Graph::part_of(fp, threads); }
  // At most 8192 states a round: deduplicating their candidates (phase 2) then stays within a
  // core's own cache. Rounds of up to 65,536 states on 10^7-state graphs cost about a tenth more
  // time (bench/README.md).
  std::size_t round_states() const {
    const std::size_t n = graph.num_states() / 128;
    return std::clamp<std::size_t>(n, 4096, 8192);
  }
};

std::string Explorer::Impl::levels_refused() const {
  const StrategyTraits traits = strategy.traits();
  if (!traits.level_order || !traits.whole_states || traits.observes) {
    return fmt::format("strategy '{}' is not breadth-first", strategy.name());
  }
  if (options.max_steps > 0) return "a step limit stops at an exact pair";
  if (options.coverage_target > 0) return "a coverage target stops at an exact pair";
  if (options.record_edges) return "graph reports keep every transition";
  if (!world->cheap() || world->mode() != RestoreMode::kSnapshot || world->size() != 1 ||
      !model.state_keys().empty() || world->system(0).byte_image().size == 0) {
    return "the model is not one in-memory object of plain bytes";
  }
  if (nf > 0) return "actions have dependencies or per-path call limits";
  if (exec->has_before()) return "the model has before-invariants";
  if (any_run_limit) return "actions have per-run call limits";
  if (!exec->all_typed_runs()) return "some actions are not typed";
  if (model.actions().size() >= 0xffff) return "the model has 65535 actions or more";
  return {};
}

Status Explorer::Impl::run_levels(Clock::time_point start, unsigned threads,
                                  Termination& termination) {
  Levels levels(*this, threads);
  if (Status st = levels.start(); !st) return st;
  Status st = levels.search(start, termination);
  levels.finish();
  return st;
}

Status Explorer::Impl::Levels::start() {
  x.image_system = &x.world->system(0);
  x.image = x.image_system->byte_image();
  x.image_hash = fingerprint_fn(x.image.size);
  size = x.image.size;
  hash = x.image_hash;
  members.resize(threads);
  for (unsigned k = 0; k < threads; ++k) {
    Member& m = members[k];
    if (k == 0) {
      m.exec = x.exec.get();
      m.live = x.image.live;
    } else {
      auto w = x.model.make_world();
      if (!w) return w.status();
      m.own_world = std::move(*w);
      if (Status st = m.own_world->begin(); !st) return st;
      m.own_exec = std::make_unique<detail::Executor>(x.model, *m.own_world);
      m.exec = m.own_exec.get();
      m.live = m.own_world->system(0).byte_image().live;
      if (m.live == nullptr || m.own_world->system(0).byte_image().size != size) {
        return Status::internal("a copy of the model's world has another byte image");
      }
    }
    const std::size_t n = x.model.actions().size();
    m.enabled_count.assign(n, 0);
    m.executed.assign(n, 0);
    m.errors.assign(n, 0);
    m.pending.reserve(kPrefetchBatch);
    m.scratch.emplace(size);
  }
  chunk_states = std::clamp<std::size_t>(
      (std::size_t{1} << kRefIndexBits) / std::max<std::size_t>(1, x.model.actions().size()), 1,
      256);
  const auto cpus = static_cast<unsigned>(detail::thread_cpus().size());  // 0: unknown, short spins
  if (threads > 1) team = std::make_unique<detail::Team>(threads, cpus);
  // The root was expanded by the one-thread code (its actions marked unexplored and counted as
  // enabled): the levels run them, and do not count them again.
  std::vector<ActionId> root_actions;
  graph.take_unexplored(0, root_actions);
  root.assign(x.image.live, x.image.live + size);
  frontier.grow(1);
  std::memcpy(frontier.at(0), root.data(), size);
  return Status::ok();
}

void Explorer::Impl::Levels::finish() {
  team.reset();
  for (Member& m : members) {
    if (m.own_world) (void)m.own_world->end();
  }
  // The explorer's world ends where member 0 left it: back to the root for the replays.
  std::memcpy(x.image.live, root.data(), size);
  x.planner->invalidate();
}

Status Explorer::Impl::Levels::search(Clock::time_point start, Termination& termination) {
  if (x.options.stop_on_first && !x.findings.pending().empty()) {
    termination = Termination::kFirstFinding;
    return Status::ok();
  }
  double next_progress = x.options.progress_interval;
  for (StateId count = 1; count > 0; ++depth) {
    if (x.options.max_depth > 0 && depth >= x.options.max_depth) break;
    next_first = static_cast<StateId>(graph.num_states());
    skip_now.swap(skipped);
    skipped.clear();
    for (StateId first = level_first; first < level_first + count;) {
      const StateId end =
          static_cast<StateId>(std::min<std::size_t>(level_first + count, first + round_states()));
      if (!round(first, end, start, termination)) return Status::ok();
      first = end;
      if (x.options.on_progress && detail::seconds_since(start) >= next_progress) {
        next_progress = detail::seconds_since(start) + x.options.progress_interval;
        x.options.on_progress({graph.num_states(), graph.num_transitions(), x.stats.steps,
                               x.findings.pending().size(), detail::seconds_since(start)});
      }
    }
    count = static_cast<StateId>(graph.num_states()) - next_first;
    level_first = next_first;
    frontier.clear();
    frontier.swap(next);
  }
  return Status::ok();
}

bool Explorer::Impl::Levels::round(StateId first, StateId end, Clock::time_point start,
                                   Termination& termination) {
  round_chunks = (end - first + chunk_states - 1) / chunk_states;
  if (chunks.size() < round_chunks) chunks.resize(round_chunks);
  for (std::size_t i = 0; i < round_chunks; ++i) {
    Chunk& c = chunks[i];
    c.first = static_cast<StateId>(first + i * chunk_states);
    c.end = static_cast<StateId>(std::min<std::size_t>(end, c.first + chunk_states));
    c.candidates.clear();
    c.owned.resize(threads);
    for (std::vector<std::uint32_t>& o : c.owned) o.clear();
    c.events.clear();
  }
  check_known = !x.findings.none_violated();
  const double limit = x.options.time_limit;
  // Phase 1: expand; then, once every thread is done with it, phase 2: deduplicate.
  claim = 0;
  run(
      [&](unsigned k) {
        for (std::size_t i;
             !stop.load(std::memory_order_relaxed) && (i = claim++) < round_chunks;) {
          if (interrupts() > 0 || (limit > 0 && detail::seconds_since(start) >= limit)) {
            stop = true;
            break;
          }
          expand(members[k], chunks[i]);
        }
      },
      [&](unsigned k) { deduplicate(members[k], k); });
  // Phase 3: number the winners, then add them.
  std::size_t winners = 0;
  for (std::size_t i = 0; i < round_chunks; ++i) {
    Chunk& c = chunks[i];
    c.winners = 0;
    for (const Member& m : members) c.winners += m.winners[i];
    c.first_new = static_cast<StateId>(graph.num_states() + winners);
    winners += c.winners;
  }
  const std::size_t again = graph.append_level(winners, depth + 1);
  next.grow(winners);
  if (winners > 0) x.stats.max_depth = std::max(x.stats.max_depth, depth + 1);
  new_violating.clear();
  claim = 0;
  run(
      [&](unsigned k) {
        for (std::size_t i; (i = claim++) < round_chunks;) add(members[k], chunks[i]);
      },
      [&](unsigned k) { enter(k, again); });
  for (Member& m : members) m.part->enter_aside();
  note_new_states();
  if (!new_violating.empty()) {
    std::sort(new_violating.begin(), new_violating.end());
    claim = 0;
    run([&](unsigned) {
      for (std::size_t i; (i = claim++) < round_chunks;) find_again(chunks[i]);
    });
  }
  tally();
  frontier.release_below(end - level_first);  // no step of a later round starts there
  const bool go_on = record();
  if (go_on && !stop && x.over_memory(0, /*force=*/true)) {
    termination = Termination::kMemory;
    return false;
  }
  if (!go_on) {
    termination = Termination::kFirstFinding;
  } else if (stop) {
    termination = interrupts() > 0 ? Termination::kInterrupted : Termination::kTimeLimit;
    if (termination == Termination::kInterrupted && x.interrupted_at == Clock::time_point{}) {
      x.interrupted_at = Clock::now();
    }
  }
  return go_on && !stop;
}

void Explorer::Impl::Levels::note_new_states() {
  for (std::size_t i = 0; i < round_chunks; ++i) {
    for (const Event& e : chunks[i].events) {
      if (e.kind == Event::Kind::kNew) new_violating.push_back(e.target);
      if (e.kind == Event::Kind::kNondeterminism && e.target != kNoState) {
        const std::size_t offset = e.target - next_first;
        if (skipped.size() <= offset) skipped.resize(offset + 1, 0);
        skipped[offset] = 1;
      }
    }
  }
}

void Explorer::Impl::Levels::expand(Member& m, Chunk& c) {
  const auto ran = [&](const unsigned char* bytes, const Pair& step) {
    ++m.transitions;
    const Fingerprint fp = hash(bytes, size);
    graph.prefetch(fp);
    m.pending.push_back({fp, step.state, step.action});
    if (m.pending.size() == kPrefetchBatch) resolve(m, c);
  };
  detail::StepScratch<Pair>& scratch = *m.scratch;
  for (StateId s = c.first; s < c.end; ++s) {
    const std::size_t offset = s - level_first;
    if (offset < skip_now.size() && skip_now[offset]) continue;
    const unsigned char* src = frontier.at(offset);
    detail::copy_state(m.live, src, size);
    m.exec->enabled_actions({}, nullptr, m.enabled);
    if (s != 0) {  // the root's were counted when it was expanded first
      for (ActionId a : m.enabled) ++m.enabled_count[a];
    }
    for (ActionId a : m.enabled) {
      unsigned char* at = scratch.fresh(src);
      ++m.steps;
      ++m.executed[a];
      if (m.exec->run_typed_on(a, at)) {
        scratch.hold(at, {s, a}, ran);
      } else {
        scratch.release(ran);
        error(m, c, s, a, src);
      }
    }
  }
  scratch.release(ran);
  resolve(m, c);
}

void Explorer::Impl::Levels::resolve(Member& m, Chunk& c) {
  for (const Member::Step& p : m.pending) graph.prefetch_state(p.fp);
  for (const Member::Step& p : m.pending) {
    const StateId t = graph.find(p.fp);
    if (t == kNoState) {
      c.owned[owner(p.fp)].push_back(static_cast<std::uint32_t>(c.candidates.size()));
      c.candidates.push_back(
          {p.fp, p.source - level_first, static_cast<std::uint16_t>(p.action), 0});
      continue;
    }
    if (check_known && x.findings.violated_after(t)) {
      c.events.push_back({Event::Kind::kKnownViolating, p.source, p.action, t});
    }
  }
  m.pending.clear();
}

void Explorer::Impl::Levels::error(Member& m, Chunk& c, StateId s, ActionId a,
                                   const unsigned char* src) {
  // Run it again the general way, which says what it threw.
  std::memcpy(m.live, src, size);
  Outcome out = m.exec->run(a, [&] { return x.step_rng(s, a); });
  if (out.kind != Outcome::Kind::kError) {
    // It did not throw the second time: a step like any other, as one thread takes it.
    ++m.transitions;
    const Fingerprint fp = hash(m.live, size);
    m.pending.push_back({fp, s, a});
    if (m.pending.size() == kPrefetchBatch) resolve(m, c);
    return;
  }
  if (interrupts() > 0) {  // failed while the run was stopping: not the system's fault
    --m.steps;
    --m.executed[a];
    return;
  }
  ++m.errors[a];
  Event e{Event::Kind::kError, s, a, kNoState, std::move(out.message)};
  if (m.exec->has_after()) {
    m.exec->check(false,
                  [&](std::size_t i, const std::string& msg) { e.failures.emplace_back(i, msg); });
  }
  c.events.push_back(std::move(e));
}

void Explorer::Impl::Levels::deduplicate(Member& m, unsigned member) {
  std::size_t mine = 16;
  for (std::size_t i = 0; i < round_chunks; ++i) mine += chunks[i].owned[member].size();
  std::size_t slots = 64;
  while (slots < 2 * mine) slots *= 2;
  m.dedupe.assign(slots, 0);
  m.winners.assign(round_chunks, 0);
  const std::size_t mask = slots - 1;
  // Candidates are not written here (threads own candidates of the same cache lines): each
  // thread's list keeps its winners, which add() marks.
  for (std::size_t i = 0; i < round_chunks; ++i) {
    const std::vector<Candidate>& cands = chunks[i].candidates;
    std::vector<std::uint32_t>& owned = chunks[i].owned[member];
    std::size_t kept = 0;
    for (std::size_t k = 0; k < owned.size(); ++k) {
      const std::uint32_t j = owned[k];
      const Fingerprint& fp = cands[j].fp;
      const std::uint64_t tag = fp.hi >> 40;
      for (std::size_t slot = fp.lo & mask;; slot = (slot + 1) & mask) {
        const std::uint64_t v = m.dedupe[slot];
        if (v == 0) {
          m.dedupe[slot] = (tag << 40) | ((i << kRefIndexBits | j) + 1);
          owned[kept++] = j;
          break;
        }
        if ((v >> 40) != tag) continue;
        const std::uint64_t ref = (v & ((std::uint64_t{1} << 40) - 1)) - 1;
        if (chunks[ref >> kRefIndexBits].candidates[ref & ((1u << kRefIndexBits) - 1)].fp == fp) {
          break;  // a step earlier in the round reached it first
        }
      }
    }
    owned.resize(kept);
    m.winners[i] = static_cast<std::uint32_t>(kept);
  }
}

void Explorer::Impl::Levels::enter(unsigned k, std::size_t again) {
  Graph::TablePart& part = members[k].part.emplace(graph, k, threads);
  if (again > 0) part.enter_old(static_cast<StateId>(again));
  for (std::size_t i = 0; i < round_chunks; ++i) {
    const std::vector<Candidate>& cands = chunks[i].candidates;
    for (const std::uint32_t j : chunks[i].owned[k]) part.enter(cands[j].source, cands[j].fp);
  }
  part.finish();
}

void Explorer::Impl::Levels::add(Member& m, Chunk& c) {
  for (const std::vector<std::uint32_t>& winners : c.owned) {
    for (const std::uint32_t j : winners) c.candidates[j].won = 1;
  }
  StateId t = c.first_new;
  for (Candidate& cand : c.candidates) {
    if (!cand.won) continue;
    const StateId s = level_first + cand.source;
    const ActionId a = cand.action;
    graph.set_state(t, cand.fp, s, a);
    detail::copy_state(m.live, frontier.at(cand.source), size);
    const bool again = m.exec->run_typed(a) && hash(m.live, size) == cand.fp;
    detail::copy_state(next.at(t - next_first), m.live, size);
    cand.source = t;
    if (!again) {
      // Not expanded, as one thread leaves a state whose step does not repeat.
      c.events.push_back({Event::Kind::kNondeterminism, s, a, t});
      ++t;
      continue;
    }
    if (m.exec->has_after()) {
      Event e{Event::Kind::kNew, s, a, t};
      m.exec->check(
          false, [&](std::size_t i, const std::string& msg) { e.failures.emplace_back(i, msg); });
      if (!e.failures.empty()) c.events.push_back(std::move(e));
    }
    ++t;
  }
}

bool Explorer::Impl::Levels::record() {
  for (std::size_t i = 0; i < round_chunks; ++i) {
    std::vector<Event>& events = chunks[i].events;
    std::sort(events.begin(), events.end(), [](const Event& p, const Event& q) {
      return std::pair(p.source, p.action) < std::pair(q.source, q.action);
    });
    for (Event& e : events) {
      switch (e.kind) {
        case Event::Kind::kError: {
          detail::Executed item;
          item.reset({e.source, e.action});
          item.ran = true;
          item.kind = Outcome::Kind::kError;
          item.error = true;
          item.violation = true;
          item.failures = std::move(e.failures);
          x.findings.note_action_error(item, std::move(e.message));
          break;
        }
        case Event::Kind::kKnownViolating:
        case Event::Kind::kNewAgain:
          x.findings.note_known_failures(e.source, e.action, e.target);
          break;
        case Event::Kind::kNew:
          for (const auto& [inv, msg] : e.failures) {
            x.findings.note_new_failure(e.source, e.action, e.target, inv, msg);
          }
          break;
        case Event::Kind::kNondeterminism:
          x.findings.note_nondeterminism(e.source, e.action);
          break;
      }
      if (x.options.stop_on_first && !x.findings.pending().empty()) return false;
    }
  }
  return true;
}

void Explorer::Impl::Levels::tally() {
  for (Member& m : members) {
    for (std::size_t a = 0; a < m.executed.size(); ++a) {
      ActionCoverage& cov = x.coverage[a];
      cov.enabled += m.enabled_count[a];
      cov.executed += m.executed[a];
      cov.errors += m.errors[a];
      cov.ok += m.executed[a] - m.errors[a];
      m.enabled_count[a] = m.executed[a] = m.errors[a] = 0;
    }
    x.stats.steps += m.steps;
    graph.count_transitions(m.transitions);
    m.steps = m.transitions = 0;
  }
  x.actions_covered = static_cast<std::size_t>(
      std::count_if(x.coverage.begin(), x.coverage.end(),
                    [](const ActionCoverage& c) { return c.executed > 0; }));
}

void Explorer::Impl::Levels::find_again(Chunk& c) {
  for (const Candidate& cand : c.candidates) {
    if (cand.won) continue;
    const StateId t = graph.find(cand.fp);
    if (std::binary_search(new_violating.begin(), new_violating.end(), t)) {
      c.events.push_back({Event::Kind::kNewAgain, level_first + cand.source, cand.action, t});
    }
  }
}

}  // namespace prowl
