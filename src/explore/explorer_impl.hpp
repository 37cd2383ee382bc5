// Explorer::Impl: one run's state, shared by explorer.cpp (the loop of one worker), step.cpp (a
// step and its commit, for every loop), workers.cpp (several workers, each with its own copy of
// the world) and explorer_report.cpp (findings made into the report). Private to the explorer.
#pragma once

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "executor.hpp"
#include "finding_log.hpp"
#include "image_store.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/world/restore_planner.hpp"
#include "step_scratch.hpp"

namespace prowl {

namespace detail {
using Clock = std::chrono::steady_clock;

// The CPUs the calling thread may run on, in increasing order (empty if unknown).
std::vector<int> thread_cpus();
// This process's resident memory in bytes (/proc/self/statm; 0 if unknown).
std::uint64_t resident_bytes();

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace detail

struct Explorer::Impl {
  using Pending = detail::Pending;
  using Executed = detail::Executed;
  using Lane = detail::Lane;

  Impl(const Model& m, Strategy& s, Options o);
  ~Impl();

  const Model& model;
  Strategy& strategy;
  Options options;
  std::unique_ptr<World> world;
  std::unique_ptr<detail::Executor> exec;
  std::unique_ptr<Graph> graph;
  std::unique_ptr<RestorePlanner> planner;
  std::vector<detail::Fact> facts;  // num_facts per state, contiguous
  std::size_t nf = 0;
  std::vector<std::uint32_t> run_counts;
  bool any_run_limit = false;
  std::vector<ActionId> enabled_scratch;
  std::vector<ActionCoverage> coverage;
  detail::FindingLog findings{model};
  std::vector<std::string> warnings;
  Stats stats;

  std::span<const detail::Fact> facts_of(StateId s) const {
    return nf == 0 ? std::span<const detail::Fact>() : std::span(&facts[s * nf], nf);
  }
  // The generator of step (s, a): seeded from the run seed, s's fingerprint and a, so the step
  // draws the same numbers wherever and whenever it runs. Derived only if the action draws.
  Rng step_rng(StateId s, ActionId a) const { return step_rng_at(graph->fingerprint(s), a); }
  // The same, from the fingerprint of the step's source.
  Rng step_rng_at(const Fingerprint& fp, ActionId a) const {
    return Rng::derived(options.seed, fp.lo ^ (fp.hi * 0x9e3779b97f4a7c15ULL), a);
  }
  std::uint64_t step_seed(StateId s, ActionId a) const { return step_rng(s, a).seed(); }

  std::size_t actions_covered = 0;
  bool observing = true;  // strategy.traits().observes, asked once
  // Batch fast path: the world is one byte-image system without state keys. Restoring is a
  // memcpy from the snapshot and the fingerprint is the bytes' hash, exactly as observe() would
  // give, without the planner, World and System layers in between.
  ByteImage image;
  System* image_system = nullptr;
  FingerprintFn image_hash = nullptr;  // fingerprint_of for image.size
  // The byte-image path where every action runs typed and nothing else is tracked (no facts,
  // before-invariants or run limits): a state's actions run in run_image_state().
  bool image_typed = false;
  // Where run_image_state() runs the steps, each held with the index of its item.
  std::optional<detail::StepScratch<std::size_t>> image_scratch;

  // While a state's actions run back to back, its snapshot is looked up once. Only while no
  // snapshot is saved or released: those may move the bytes.
  struct Held {
    StateId state = kNoState;
    std::uint32_t snapshot = 0;  // the World's snapshot (unused on the typed path)
    const unsigned char* bytes = nullptr;
  } held;
  // s's snapshot on the byte-image path, from the explorer's store (typed path) or the World's;
  // bytes == nullptr when there is no byte image or s has no snapshot.
  Held image_of(StateId s) const {
    if (image_typed) {
      const unsigned char* bytes = store.bytes(s);
      return bytes == nullptr ? Held{} : Held{s, 0, bytes};
    }
    const std::uint32_t snap = image.size ? planner->snapshot_of(s) : RestorePlanner::kNone;
    if (snap == RestorePlanner::kNone) return {};
    return {s, snap, image_system->snapshot_bytes(world->system_handle(snap, 0))};
  }
  void hold_image(StateId s) { held = image_of(s); }
  // Byte-image path: writes s's snapshot into the live bytes and restores its context (typed
  // code never changes the context). False when there is no byte image or s has no snapshot
  // (then the planner must restore it).
  bool restore_image(StateId s) {
    const Held h = s == held.state ? held : image_of(s);
    if (h.bytes == nullptr) return false;
    std::memcpy(image.live, h.bytes, image.size);
    if (!image_typed) world->restore_context(h.snapshot);
    return true;
  }

  // The typed byte-image path's snapshots (image_typed).
  detail::ImageStore store;
  // Keeps the live bytes as state t's snapshot (the world is at t).
  Status keep_state(StateId t) {
    if (!image_typed) return planner->discovered(t);
    store.keep(t, image.live);
    return Status::ok();
  }
  // Frees state s's snapshot: nothing will run from s again.
  void drop_state(StateId s) {
    if (workers) {
      drop_image(s);
      return;
    }
    if (!image_typed) {
      planner->release(s);
      return;
    }
    store.drop(s);
  }

  // The explorer's own world as a lane: the one worker's, or worker 0's with several.
  Lane own;
  // The actions whose steps drew from their Rng, by action (Executor::drew()), from every
  // executor the run used.
  std::vector<char> sampled;
  void note_sampled(const detail::Executor& ex) {
    for (std::size_t a = 0; a < sampled.size(); ++a) sampled[a] = sampled[a] || ex.drew(a);
  }
  detail::Clock::time_point started;
  // A crash found while replaying a step on the path to a picked state (replay_edge), for
  // run_pair to report.
  std::optional<Executed> replay_crash;
  // The findings made into reports so far, in the order of `pending`.
  std::vector<Finding> materialized;
  // When the run first saw an interrupt (Clock::time_point{} until then).
  detail::Clock::time_point interrupted_at{};
  // Whether findings may still be replayed: no interrupt, or one within the grace period.
  bool may_replay();
  // The report of a run that failed (partial_report()), and building it.
  std::optional<RunReport> partial;
  RunReport partial_report(const Status& failure, Termination termination);
  // The report's common part: model, strategy, seed, termination, stats, coverage, warnings.
  RunReport report_header(Termination termination);

  // Several workers (workers.cpp), each with its own copy of the world, exploring one graph. Null
  // with one worker.
  struct Workers;
  std::unique_ptr<Workers> workers;
  std::uint64_t worker_loads = 0;  // images the workers loaded (their restores)
  // The CPUs the exploring thread could run on when the run began (before a service sharing its
  // CPU pinned it): the workers' CPUs are chosen among them.
  std::vector<int> start_cpus;
  // Why this run cannot have the several workers it asked for; empty when it can.
  std::string workers_refused() const;
  // Explores with options.workers workers until a limit or the end; the main thread is worker 0
  // on `world`. REQUIRES: the root is in the graph and expanded.
  Status run_workers(detail::Clock::time_point start, Termination& termination);
  // Workers: frees s's image.
  void drop_image(StateId s);
  // Workers: keeps the image of t, which the lane's world holds, before any worker may pick t.
  Status keep_worker_image(Lane& lane, StateId t);

  // The threaded breadth-first search (levels.cpp): why this run cannot use it (empty when it
  // can), and the search itself with `threads` threads until a limit or the end. REQUIRES: the
  // root is in the graph and expanded.
  struct Levels;
  std::string levels_refused() const;
  Status run_levels(detail::Clock::time_point start, unsigned threads, Termination& termination);
  std::uint32_t threads_used = 1;
  // The search over several processes (ranks.cpp, Options::ranks): why this run cannot use it,
  // and the search itself. It leaves the totals of every rank and the findings every rank met,
  // their paths rebuilt, for the report.
  struct RankSearch;
  std::string ranks_refused() const;
  Status run_ranks(detail::Clock::time_point start, Termination& termination);
  struct RankTotals {
    std::uint64_t states = 0;
    std::uint64_t transitions = 0;
    std::size_t graph_bytes = 0;
  };
  std::optional<RankTotals> rank_totals;
  std::vector<Finding> rank_findings;
  // Whether the process has reached options.memory_limit (read at most every 10 ms of `t`, the
  // seconds since the start; always when force).
  bool over_memory(double t, bool force = false);
  double next_memory_check = 0;

  Status init();
  // Sets s's enabled actions (evaluated by ex, whose world is at s) and tells the strategy.
  Status expand(StateId s, detail::Executor& ex);

  // The step path every loop shares (step.cpp). step() runs item.pair on `lane`, whose world is
  // at the pair's source (fingerprint source_fp, facts source_facts): the before-invariants, the
  // action, the successor's facts and fingerprint, and the after-invariants unless `batch` (then
  // they are checked once per new state, in commit_added()). It touches nothing shared: workers
  // run it without their lock. commit() then counts the step and records its findings, adds its
  // target to the graph, keeps a new state and expands it, and tells the strategy; with several
  // workers under their lock.
  Status step(Lane& lane, const Fingerprint& source_fp, std::span<const detail::Fact> source_facts,
              bool batch, Executed& item);
  Status commit(Lane& lane, Executed& item, bool batch);
  // Records the before-invariants that failed at the step's source (item.before).
  void note_before(Executed& item);
  // The rest of commit() once the step's target t is in the graph. The batch loop calls it
  // directly: a step onto a known state, most of them, then costs no call at all.
  Status commit_added(Lane& lane, Executed& item, StateId t, bool is_new, bool batch);
  // Batch mode: a new state t whose step ran from s is not kept by the step (most batch steps
  // reach known states). Runs the step again to reach t, checking that it repeats. False when
  // it does not (a nondeterminism finding; the world is elsewhere).
  Result<bool> reach_again(const Executed& item);
  // The lane's world is at t, reached by a step (new: first seen): keeps what is needed to come
  // back to it (the planner's snapshot, the image store, or a worker's image).
  Status arrived(Lane& lane, StateId t, bool is_new);
  // The lane's world left the state it was known at (a step ran) for one not known yet.
  void left(Lane& lane);

  // One worker: restores the world to pick's source and steps (a pair the graph already has
  // marked explored). item.ran is false when the pair did not run (over its run limit, skipped,
  // its source not reached).
  Status run_pair(Pair pick, bool batch, Executed& item);
  // One worker: brings the world to s for a step. False when it cannot and the pick is
  // abandoned (a signal, a crash while replaying the path, a path that does not replay).
  Result<bool> reach(StateId s, Pair pick);
  // Batch mode on the typed byte-image path (image_typed), with s held: runs every one of
  // `actions` from s into items[n...], advancing n.
  Status run_image_state(StateId s, std::span<const ActionId> actions, std::vector<Executed>& items,
                         std::size_t& n);
  // Counts a step that ran in the stats and the coverage.
  void count_step(ActionId a, Outcome::Kind kind);
  Status replay_edge(StateId from, ActionId a, StateId to);
  Result<RunReport> run();
  Result<RunReport> explore_and_report();
  Status search(detail::Clock::time_point start, Termination& termination);
  // One worker on `world` until a limit or the end. REQUIRES: the root is in the graph and
  // expanded.
  Status run_one(detail::Clock::time_point start, Termination& termination);
  // One worker's loop: batch mode (cheap snapshots and a strategy that picks ahead) and its
  // buffers. A round picks up to a batch of pairs (or whole states), steps each, and commits
  // them: each at once, or in batch mode all after the round.
  struct OneLoop {
    bool batch = false;
    bool whole_states = false;  // the strategy hands out whole states (pick_state())
    std::size_t batch_size = 1;
    std::vector<Executed> items;
    std::size_t n = 0;                    // items stepped this round, waiting for commit_batch()
    std::size_t taken = 0;                // picks this round
    std::vector<StateId> unran;           // batch mode: sources to free after the round
    std::vector<ActionId> state_actions;  // whole-state mode: the picked state's actions
  };
  // Sets up batch mode and the byte-image paths.
  Status start_one(OneLoop& loop);
  // One round's picks: whole states up to `want` pairs, or `want` pairs.
  Status run_states(OneLoop& loop, std::size_t want);
  Status run_pairs(OneLoop& loop, std::size_t want);
  // Batch mode: commits the round's items, and frees the sources nothing will run from again.
  Status commit_batch(OneLoop& loop);
  // The option limit that ends the run now, counting `under_way` pairs as steps already taken;
  // the time limit and progress calls (due at next_progress) only when `clock`.
  std::optional<Termination> limit_reached(detail::Clock::time_point start, std::uint64_t under_way,
                                           bool clock, double& next_progress);
  Result<Finding> materialize(const Pending& p) {
    return settle(finding_of(p), p.source != kNoState);
  }
  // A finding as found (at_step: its last step is the one that failed, not a step to the state
  // that fails) confirmed, shrunk and named as the options say.
  Result<Finding> settle(Finding f, bool at_step);
  // A finding's steps along the graph's shortest path, without replaying them.
  Finding finding_of(const Pending& p) const;
  // The finding p with these steps (its path to the failing step, the failing step last).
  Finding finding_on(const Pending& p, std::vector<TraceStep> steps) const;
};

}  // namespace prowl
