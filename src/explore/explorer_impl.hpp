// Explorer::Impl, shared by explorer.cpp (the loop of one worker, findings, the report) and
// workers.cpp (several workers, each with its own copy of the world). Private to the explorer.
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
#include "prowl/explore/explorer.hpp"
#include "prowl/world/restore_planner.hpp"

namespace prowl {

namespace detail {
using Clock = std::chrono::steady_clock;

// The CPUs the calling thread may run on, in increasing order (empty if unknown).
std::vector<int> thread_cpus();

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A finding as first seen: where it happened, not yet turned into steps.
struct Pending {
  FindingKind kind;
  std::size_t index;  // invariant index, or action id for action errors
  StateId source;     // state the failing step started from (kNoState: the initial state failed)
  ActionId action;    // the failing step (kNoAction: a state check without a step)
  StateId at;         // for state checks: the failing state
  std::string message;
  std::uint32_t length;
  // The failing step's outcome and detail as the exploration saw them (empty when not kept): what
  // a finding that does not reproduce on replay shows for its last step.
  std::string outcome = {};
  std::string detail = {};
};
// A pair that ran, waiting to be added to the graph.
struct Executed {
  Pair pair;
  bool ran = false;        // false: skipped, over its run limit, or not reached
  bool error = false;      // the action failed: nothing to add
  bool violation = false;  // a finding on this step (before-invariant or action error)
  Outcome::Kind kind = Outcome::Kind::kOk;
  Fingerprint fp;
  std::vector<std::uint16_t> facts;  // the successor's facts, when the model tracks any
  std::vector<std::pair<std::size_t, std::string>> failures;  // after-invariants that failed
  std::string detail;  // the step's Outcome::detail (not in batch mode)
  // A system died during the step (System::died()): its index in the world and the message.
  std::size_t crashed = kNoSystem;
  std::string crash;
  static constexpr std::size_t kNoSystem = ~std::size_t{0};
};

// Whether a system of `world` died during step (s, a); if so fills item.crashed and item.crash.
bool detect_crash(const World& world, const Model& model, ActionId a, Executed& item);
}  // namespace detail

struct Explorer::Impl {
  using Pending = detail::Pending;
  using Executed = detail::Executed;

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
  std::vector<detail::Fact> next_facts;
  std::vector<std::uint32_t> run_counts;
  bool any_run_limit = false;
  std::vector<ActionId> enabled_scratch;
  std::vector<ActionCoverage> coverage;
  std::map<std::tuple<int, std::size_t, ActionId>, Pending> pending;
  std::vector<std::string> warnings;
  Stats stats;
  // Per invariant, the states where it fails, with the message: a violation is reported for the
  // step that breaks the invariant, not again for every step taken from a state that already
  // violates it. In batch mode invariants are checked once per state and looked up here after.
  std::vector<std::unordered_map<StateId, std::string>> violating;
  std::vector<std::size_t> ever_violated;  // invariants with at least one violating state

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
  bool observing = true;  // strategy.observes(), asked once
  // Batch fast path: the world is one byte-image system without state keys. Restoring is a
  // memcpy from the snapshot and the fingerprint is the bytes' hash, exactly as observe() would
  // give, without the planner, World and System layers in between.
  ByteImage image;
  System* image_system = nullptr;
  FingerprintFn image_hash = nullptr;  // fingerprint_of for image.size
  // The byte-image path where every action runs typed and nothing else is tracked (no facts,
  // before-invariants or run limits): a state's actions run in run_image_state().
  bool image_typed = false;

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
      const unsigned char* bytes = stored_image(s);
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

  // On the typed byte-image path the context never changes, so a state's snapshot is its bytes
  // alone, kept here rather than in the World: slot k holds image.size bytes at k * image.size.
  struct ImageStore {
    std::vector<unsigned char> bytes;
    std::vector<std::uint32_t> free;
    detail::ChunkedVector<std::uint32_t> slot_of;  // per state; kNoSlot once released
  } store;
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  const unsigned char* stored_image(StateId s) const {
    if (s >= store.slot_of.size() || store.slot_of[s] == kNoSlot) return nullptr;
    return store.bytes.data() + std::size_t{store.slot_of[s]} * image.size;
  }
  // Keeps the live bytes as state t's snapshot (the world is at t).
  Status keep_state(StateId t) {
    if (!image_typed) return planner->discovered(t);
    std::uint32_t slot;
    if (!store.free.empty()) {
      slot = store.free.back();
      store.free.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(store.bytes.size() / image.size);
      store.bytes.resize(store.bytes.size() + image.size);
    }
    std::memcpy(store.bytes.data() + std::size_t{slot} * image.size, image.live, image.size);
    store.slot_of.resize(std::max<std::size_t>(store.slot_of.size(), t + 1), kNoSlot);
    store.slot_of[t] = slot;
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
    if (s >= store.slot_of.size() || store.slot_of[s] == kNoSlot) return;
    store.free.push_back(store.slot_of[s]);
    store.slot_of[s] = kNoSlot;
  }

  // Whether an after-invariant that item.failures holds was not failing in s, the step's source:
  // the step would be reported as breaking it.
  bool breaks_invariant(const Executed& item, StateId s) const {
    for (const auto& [i, msg] : item.failures) {
      if (!violating[i].count(s)) return true;
    }
    return false;
  }
  // Records that invariant i fails in state s; false if it was known.
  bool mark_violating(std::size_t i, StateId s, const std::string& message) {
    if (violating[i].empty()) ever_violated.push_back(i);
    return violating[i].emplace(s, message).second;
  }
  // A "before" invariant i that fails in s, checked before a step from s (or at the start, for
  // the initial state): a finding at s unless it was known. True when it is new.
  bool note_before(std::size_t i, StateId s, const std::string& message) {
    if (!mark_violating(i, s, message)) return false;
    record({FindingKind::kInvariant, i, kNoState, kNoAction, s, message, graph->depth(s)});
    return true;
  }
  // Step (s, a) failed (threw or returned an error); `detail` is its outcome's detail.
  void note_action_error(StateId s, ActionId a, std::string message, std::string detail) {
    record({FindingKind::kActionError, a, s, a, kNoState, std::move(message), graph->depth(s) + 1,
            "error", std::move(detail)});
  }
  // A system died during step item.pair (detect_crash()).
  void note_crash(Executed& item) {
    const auto [s, a] = item.pair;
    // The step's own outcome: an answer may have come before the service died.
    record({FindingKind::kServiceCrashed, item.crashed, s, a, kNoState, std::move(item.crash),
            graph->depth(s) + 1, std::string(to_string(item.kind)), item.detail});
  }
  // A system of `world` that died while idle between steps and was restarted by the restore just
  // made (World::take_unreported_death()): one service_crashed finding, for the last step that
  // ran on that world (`last`, with its outcome and detail), or for the initial state when none
  // had. Not for in-process worlds, which cannot die.
  struct LastStep {
    Pair pair{kNoState, kNoAction};
    std::string outcome;
    std::string detail;
  };
  LastStep last_step;  // of the explorer's own world
  void note_idle_death(World& w, const LastStep& last) {
    if (w.cheap()) return;
    const auto [system, why] = w.take_unreported_death();
    if (system == nullptr) return;
    std::size_t index = 0;
    while (&w.system(index) != system) ++index;
    const auto [s, a] = last.pair;
    if (s == kNoState) {
      record({FindingKind::kServiceCrashed, index, kNoState, kNoAction, 0,
              fmt::format("service '{}' died before the first step: {}", system->name(), why), 0});
      return;
    }
    record({FindingKind::kServiceCrashed, index, s, a, kNoState,
            fmt::format("service '{}' died after '{}', between steps: {}", system->name(),
                        model.actions()[a].name, why),
            graph->depth(s) + 1, last.outcome, last.detail});
  }
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
  std::vector<std::pair<std::size_t, std::string>> before_scratch;
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

  Status init();
  // Sets s's enabled actions (evaluated by ex, whose world is at s) and tells the strategy.
  Status expand(StateId s, detail::Executor& ex);
  // Marks the after-invariants that failed in t (item.failures, step item.pair from s) and
  // records a finding for each that held in s. True when there is one.
  bool note_failures(const Executed& item, StateId t);
  // Runs a pair the graph already has marked explored.
  Status run_pair(Pair pick, bool batch, Executed& item);
  // Batch mode on the typed byte-image path (image_typed), with s held: runs every one of
  // `actions` from s into items[n...], advancing n.
  Status run_image_state(StateId s, std::span<const ActionId> actions, std::vector<Executed>& items,
                         std::size_t& n);
  // Counts a step that ran in the stats and the coverage.
  void count_step(ActionId a, Outcome::Kind kind);
  Status commit(Executed& item, bool batch);
  // The rest of commit() once the step's target t is in the graph. The batch loop calls it
  // directly: a step onto a known state, most of them, then costs no call at all.
  Status commit_added(Executed& item, StateId t, bool is_new, bool batch);
  void record(Pending p);
  Status replay_edge(StateId from, ActionId a, StateId to);
  Result<RunReport> run();
  Result<RunReport> explore_and_report();
  // One worker on `world` until a limit or the end. REQUIRES: the root is in the graph and
  // expanded.
  Status run_one(detail::Clock::time_point start, Termination& termination);
  // The option limit that ends the run now, counting `under_way` pairs as steps already taken;
  // the time limit and progress calls (due at next_progress) only when `clock`.
  std::optional<Termination> limit_reached(detail::Clock::time_point start, std::uint64_t under_way,
                                           bool clock, double& next_progress);
  Result<Finding> materialize(const Pending& p);
  // A finding's steps along the graph's shortest path, without replaying them.
  Finding finding_of(const Pending& p) const;
};

}  // namespace prowl
