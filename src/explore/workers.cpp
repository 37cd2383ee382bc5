// Several workers exploring one graph (Options::workers > 1), each with its own copy of the world:
// worker 0 on the explorer's world in the calling thread, worker k >= 1 on Model::make_world(k)
// in a thread of its own, which builds, begins, ends and destroys that copy (so a service it
// starts belongs to that thread, as ProcessSystem requires).
//
// Everything shared (graph, strategy, findings, statistics, the states' images) is guarded by one
// mutex. A worker holds it to take pairs (one, or with BFS all of a state's) and to commit what
// came of each; in between it loads the source state's image into its copy of the world, runs the
// action, fingerprints the result and checks the invariants without it. On a live target those are
// nearly all of a step's time, so the workers overlap almost completely. A new state's image is
// captured while the lock is held, before the strategy can hand the state to another worker.
//
// Images are reference counted: a worker keeps the image of the state it is loading even if
// another worker drops it meanwhile (the state's last pair was picked).
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "explorer_impl.hpp"
#include "prowl/core/interrupt.hpp"

namespace prowl {

using detail::Clock;
using detail::seconds_since;

namespace detail {

std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0;
  unsigned long long resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

std::vector<int> thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace detail

namespace {

// Lets the calling thread run on `cpus` (best effort: an affinity that cannot be set is left).
void run_on(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  (void)::sched_setaffinity(0, sizeof set, &set);
}

}  // namespace

struct Explorer::Impl::Workers {
  // One worker: its copy of the world, the executor on it, and the state the copy holds.
  struct Worker {
    std::unique_ptr<World> own;  // copies k >= 1; worker 0 runs on Impl::world
    std::unique_ptr<detail::Executor> own_exec;
    Lane lane;              // its world, where that is, and the last step it ran
    std::vector<int> cpus;  // where its thread runs (empty: worker 0, left as it is)
    Executed item;
    // The state its pairs start from: its image (kept even if another worker drops it), its
    // fingerprint and facts, and the actions still to run from it (whole-state picks).
    StateId source = kNoState;
    std::shared_ptr<const WorldImage> source_image;
    Fingerprint source_fp;
    std::vector<detail::Fact> source_facts;
    std::vector<ActionId> queue;  // in reverse order: the next one is at the back
    std::uint32_t depth = 0;      // the source's depth when its pairs were taken
    std::uint64_t loads = 0;
  };

  explicit Workers(Impl& impl) : x(impl) {}

  Impl& x;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::unique_ptr<Worker>> pool;
  // Per state, the image a worker captured when it found it; empty once nothing will run from it.
  std::vector<std::shared_ptr<const WorldImage>> images;
  std::map<std::uint32_t, std::uint32_t> flying;  // pairs under way, by their source's depth
  std::vector<std::uint32_t> reserved;            // per action: runs under way
  std::uint32_t in_flight = 0;
  std::size_t built = 0;         // copies built (their files made), not yet begun
  bool go = false;               // every copy is built: explore
  bool stop = false;             // no more picks: a limit, the end, or a failure
  Status failure;                // the first failure, which ends the run
  std::exception_ptr exception;  // the first exception, rethrown by the main thread
  double next_progress = 0;

  // Under the lock.
  void fail(const Status& st) {
    if (failure) failure = st;
    stop = true;
    cv.notify_all();
  }
  // An exception from a worker (a broken invariant of prowl's, user code outside an action): the
  // run stops, and once every thread is joined the main thread rethrows it, as it would have
  // come through with one worker. Without the lock.
  void caught(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu);
    if (!exception) exception = std::move(e);
    stop = true;
    cv.notify_all();
  }
  // Stops the run and joins every copy's thread.
  void join(std::vector<std::thread>& threads) {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      cv.notify_all();
    }
    for (std::thread& t : threads) {
      if (t.joinable()) t.join();
    }
  }
  // The body of worker k's thread: copy_run(), then the copy's end on the same thread.
  void copy_main(std::size_t k, Clock::time_point start, Termination& termination);
  // Builds and begins copy k, then explores with it.
  Status copy_run(std::size_t k, Clock::time_point start, Termination& termination);
  // Picks, runs and commits pairs until there are none left or the run stops.
  Status loop(Worker& w, Clock::time_point start, Termination& termination);
  // Whether a limit ends the run now (`ends`), or may once the pairs under way are done (`wait`).
  // Under the lock.
  struct Limit {
    bool ends = false;
    bool wait = false;
    Termination termination = Termination::kExhausted;
  };
  Limit limit(Clock::time_point start);
  // Takes the next pair for w: from the state it holds (w.queue), else from the strategy, a
  // whole state (traits().whole_states) or one pair. Counts what it takes as under way. False:
  // nothing to take now. Under the lock.
  bool take(Worker& w, bool whole, Pair& pick);
  // Makes s w's source state. Under the lock.
  void hold_source(Worker& w, StateId s);
  // w's pair with action a is no longer under way. Under the lock.
  void done(Worker& w, ActionId a, bool reserved_run);
  // Once w's loop is over: a service of w's world that died while idle after its last step is
  // noticed by a restore, which no later pick of w will make. w makes one (to the initial state),
  // so that the death is reported whichever worker ran that step. Without the lock.
  Status settle(Worker& w);
  // Loads w.source into w's copy if it is elsewhere, and steps pair (w.source, a) on it
  // (Impl::step()), without the lock; the results go to w.item.
  Status step(Worker& w, ActionId a);
};

// Here, where Workers is complete.
Explorer::Impl::Impl(const Model& m, Strategy& s, Options o)
    : model(m), strategy(s), options(std::move(o)) {}
Explorer::Impl::~Impl() = default;

std::string Explorer::Impl::workers_refused() const {
  if (world->cheap()) {
    return "the world is in-process: it runs breadth-first on --threads instead (workers pay off "
           "on live services)";
  }
  if (!model.has_world_copies()) {
    return fmt::format(
        "model '{}' does not say how to build a copy of its world for another worker "
        "(Model::set_world_copies; model files do)",
        model.name());
  }
  if (const System* s = world->first_not_portable()) {
    return fmt::format(
        "system '{}' cannot load a state that another copy of it saved, which each worker's copy "
        "of the world needs (SQLite files and stateless services can; PostgreSQL databases, "
        "services that keep state and reset hooks cannot)",
        s->name());
  }
  return {};
}

void Explorer::Impl::drop_image(StateId s) {
  if (s < workers->images.size()) workers->images[s].reset();
}

Status Explorer::Impl::run_workers(Clock::time_point start, Termination& termination) {
  const std::size_t n = options.workers;
  // What a seed cannot pin down once several workers race: BFS's level barrier keeps depths and
  // shortest paths; every other strategy picks from a graph whose shape depends on which worker
  // finished first, and per-run limits go to whichever worker claims them first.
  if (!strategy.traits().level_order) {
    warnings.push_back(fmt::format(
        "with {} workers, strategy '{}' picks by what the workers have finished, which depends "
        "on timing: this run is not reproducible from its seed (bfs is, or run one worker)",
        n, strategy.name()));
  } else if (any_run_limit) {
    warnings.push_back(fmt::format(
        "with {} workers, which steps an action limited per run (max_per_run) gets depends on "
        "timing: this run is not reproducible from its seed (run one worker)",
        n));
  }
  workers = std::make_unique<Workers>(*this);
  Workers& ws = *workers;
  auto root = world->capture();
  if (!root) return root.status();
  ws.images.resize(graph->num_states());
  ws.images[0] = std::move(*root);
  ws.reserved.assign(model.actions().size(), 0);
  ws.next_progress = options.progress_interval;
  for (std::size_t k = 0; k < n; ++k) ws.pool.push_back(std::make_unique<Workers::Worker>());
  ws.pool[0]->lane.world = world.get();
  ws.pool[0]->lane.exec = exec.get();
  ws.pool[0]->lane.at = 0;
  // A service that shares prowl's CPU pinned this thread to one CPU; then each worker gets a CPU
  // of its own, the next ones after this thread's, for itself and its copy of the service.
  // Otherwise (or with more workers than CPUs) the workers run wherever this thread could.
  const std::vector<int> now = detail::thread_cpus();
  bool pinned = now.size() == 1 && start_cpus.size() >= n;
  std::size_t first = 0;
  if (pinned) {
    while (first < start_cpus.size() && start_cpus[first] != now[0]) ++first;
    pinned = first < start_cpus.size();
  }
  for (std::size_t k = 1; k < n; ++k) {
    ws.pool[k]->cpus =
        pinned ? std::vector<int>{start_cpus[(first + k) % start_cpus.size()]} : start_cpus;
  }

  // The explorer's world will hold whatever state worker 0 leaves it in; the findings are
  // replayed from the initial state, and the world ends there.
  planner->invalidate();
  std::vector<std::thread> threads;
  try {
    for (std::size_t k = 1; k < n; ++k) {
      threads.emplace_back([&ws, k, start, &termination] { ws.copy_main(k, start, termination); });
    }
    // A copy may take what it needs from the explorer's world while that is idle at the initial
    // state (the model file's copies take a byte copy of the database file): worker 0 starts
    // once every copy is built. The copies begin (start their services) meanwhile and join as
    // they can.
    Status st;
    {
      std::unique_lock<std::mutex> lock(ws.mu);
      ws.cv.wait(lock, [&] { return ws.stop || ws.built == n - 1; });
      if (!ws.stop) {
        ws.go = true;
        ws.cv.notify_all();
      }
    }
    if (ws.go) st = ws.loop(*ws.pool[0], start, termination);
    if (st) st = ws.settle(*ws.pool[0]);
    if (!st) {
      std::lock_guard<std::mutex> lock(ws.mu);
      ws.fail(st);
    }
  } catch (...) {
    ws.caught(std::current_exception());
  }
  ws.join(threads);
  for (const auto& w : ws.pool) worker_loads += w->loads;
  ws.images.clear();
  if (ws.exception) std::rethrow_exception(ws.exception);
  return ws.failure;
}

void Explorer::Impl::Workers::copy_main(std::size_t k, Clock::time_point start,
                                        Termination& termination) {
  Worker& w = *pool[k];
  try {
    if (Status st = copy_run(k, start, termination); !st) {
      std::lock_guard<std::mutex> lock(mu);
      fail(st);
    }
  } catch (...) {
    caught(std::current_exception());
  }
  // The copy ends on the thread that began it: its services stop, their CPU pin is undone.
  try {
    if (w.own_exec) {
      std::lock_guard<std::mutex> lock(mu);
      x.note_sampled(*w.own_exec);
    }
    w.own_exec.reset();
    if (w.own) {
      Status end = w.own->end();
      w.own.reset();
      if (!end) {
        std::lock_guard<std::mutex> lock(mu);
        if (failure) failure = end;
      }
    }
  } catch (...) {
    caught(std::current_exception());
  }
}

Status Explorer::Impl::Workers::copy_run(std::size_t k, Clock::time_point start,
                                         Termination& termination) {
  Worker& w = *pool[k];
  run_on(w.cpus);
  auto made = x.model.make_world(k);
  {
    std::lock_guard<std::mutex> lock(mu);
    ++built;
    cv.notify_all();
  }
  if (!made) return made.status();
  w.own = std::move(*made);
  if (Status st = w.own->begin(); !st) return st;
  bool alike = w.own->portable() && w.own->size() == x.world->size();
  for (std::size_t i = 0; alike && i < w.own->size(); ++i) {
    alike = w.own->system(i).name() == x.world->system(i).name();
  }
  if (!alike) {
    return Status::invalid(
        fmt::format("copy {} of model '{}''s world is not like the first: its systems differ or "
                    "cannot load each other's states",
                    k, x.model.name()));
  }
  w.own_exec = std::make_unique<detail::Executor>(x.model, *w.own);
  w.lane.world = w.own.get();
  w.lane.exec = w.own_exec.get();
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return go || stop; });
    if (!go || stop) return Status::ok();
  }
  if (Status st = loop(w, start, termination); !st) return st;
  return settle(w);
}

Explorer::Impl::Workers::Limit Explorer::Impl::Workers::limit(Clock::time_point start) {
  const std::optional<Termination> t = x.limit_reached(start, in_flight, true, next_progress);
  if (!t) return {};
  // Pairs under way that turn out skipped do not count toward a step limit: wait for them.
  if (*t == Termination::kMaxSteps && in_flight > 0) return {false, true, *t};
  return {true, false, *t};
}

void Explorer::Impl::Workers::hold_source(Worker& w, StateId s) {
  w.source = s;
  w.source_image = s < images.size() ? images[s] : nullptr;
  PROWL_CHECK(w.source_image != nullptr, "a worker picked a state whose image was dropped");
  w.source_fp = x.graph->fingerprint(s);
  const auto facts = x.facts_of(s);
  w.source_facts.assign(facts.begin(), facts.end());
}

bool Explorer::Impl::Workers::take(Worker& w, bool whole, Pair& pick) {
  Graph& graph = *x.graph;
  while (w.queue.empty()) {
    StateId s;
    if (whole) {
      // All of a state's actions, run back to back: one load of its image at most, as with one
      // worker.
      const std::optional<StateId> picked = x.strategy.pick_state(graph);
      if (!picked) return false;
      s = *picked;
      PROWL_CHECK(s < graph.num_states(),
                  fmt::format("strategy '{}' picked an unknown state", x.strategy.name()));
      graph.take_unexplored(s, w.queue);
      if (w.queue.empty()) continue;
      std::reverse(w.queue.begin(), w.queue.end());
    } else {
      const std::optional<Pair> p = x.strategy.pick(graph);
      if (!p) return false;
      s = p->state;
      PROWL_CHECK(
          s < graph.num_states() && graph.is_unexplored(s, p->action),
          fmt::format("strategy '{}' picked a pair that is not unexplored", x.strategy.name()));
      graph.mark_explored(s, p->action);
      w.queue.assign(1, p->action);
    }
    // A state's image, fingerprint and facts never change: a worker that holds them keeps them.
    if (w.source != s || w.source_image == nullptr) hold_source(w, s);
    // From here on these pairs are under way: no worker ends the run for want of pairs. Their
    // depth is the one they are counted under until done(), whatever later re-parenting does.
    w.depth = graph.depth(s);
    in_flight += static_cast<std::uint32_t>(w.queue.size());
    flying[w.depth] += static_cast<std::uint32_t>(w.queue.size());
  }
  pick = {w.source, w.queue.back()};
  w.queue.pop_back();
  return true;
}

void Explorer::Impl::Workers::done(Worker& w, ActionId a, bool reserved_run) {
  --in_flight;
  if (--flying[w.depth] == 0) flying.erase(w.depth);
  if (reserved_run) --reserved[a];
  cv.notify_all();
}

Status Explorer::Impl::Workers::loop(Worker& w, Clock::time_point start, Termination& termination) {
  const bool levels = x.strategy.traits().level_order;
  // As with one worker: not with a step limit, which must stop at an exact pair.
  const bool whole = x.strategy.traits().whole_states && x.options.max_steps == 0;
  std::unique_lock<std::mutex> lock(mu);
  for (;;) {
    if (stop) return Status::ok();
    // Before every pair, as one worker checks: the rest of a state's actions wait as well.
    if (const Limit l = limit(start); l.ends) {
      termination = l.termination;
      stop = true;
      cv.notify_all();
      return Status::ok();
    } else if (l.wait && w.queue.empty()) {  // a step limit: one pair at a time
      cv.wait(lock);
      continue;
    }
    Pair pick;
    if (!take(w, whole, pick)) {
      if (in_flight == 0) {
        stop = true;  // nothing left, and nothing under way can add more
        cv.notify_all();
        return Status::ok();
      }
      cv.wait(lock);
      continue;
    }
    if (levels) {
      // A shallower pair under way may still find a state that this one would find deeper.
      // Waited for before a per-run limit is claimed: a worker waiting here holds no claim that
      // a shallower pair could be waiting for.
      cv.wait(lock, [&] { return stop || flying.begin()->first >= w.depth; });
      if (stop) return Status::ok();
    }
    const auto [s, a] = pick;
    const Action& action = x.model.actions()[a];
    if (action.max_per_run > 0) {
      // Runs under way that turn out skipped leave room: wait for them before deciding.
      cv.wait(lock, [&] {
        return stop || reserved[a] == 0 || x.run_counts[a] + reserved[a] < action.max_per_run;
      });
      if (stop) return Status::ok();
      if (x.run_counts[a] + reserved[a] >= action.max_per_run) {
        done(w, a, false);
        if (!x.graph->has_unexplored(s)) x.drop_state(s);
        continue;
      }
    }
    ++reserved[a];
    lock.unlock();
    Status st = step(w, a);
    lock.lock();
    done(w, a, true);
    if (!st) return st;
    if (w.item.ran) x.count_step(a, w.item.kind);
    if (Status c = x.commit(w.lane, w.item, /*batch=*/false); !c) return c;
  }
}

Status Explorer::Impl::Workers::step(Worker& w, ActionId a) {
  const StateId s = w.source;
  w.item.reset({s, a});
  if (w.lane.at != s) {
    ++w.loads;
    w.lane.at = kNoState;
    if (Status st = w.lane.world->load(*w.source_image); !st) {
      // A signal cut the load short (a service restarted): the pair is abandoned.
      return interrupts() > 0 ? Status::ok() : st;
    }
    w.lane.at = s;
  }
  return x.step(w.lane, w.source_fp, w.source_facts, /*batch=*/false, w.item);
}

Status Explorer::Impl::Workers::settle(Worker& w) {
  if (w.lane.world->cheap() || w.lane.last.pair.state == kNoState || interrupts() > 0) {
    return Status::ok();
  }
  w.lane.at = kNoState;
  if (Status st = w.lane.world->reset(); !st) return interrupts() > 0 ? Status::ok() : st;
  std::lock_guard<std::mutex> lock(mu);
  x.findings.note_idle_death(*w.lane.world, w.lane.last);
  return Status::ok();
}

Status Explorer::Impl::keep_worker_image(Lane& lane, StateId t) {
  // Before the strategy hears of t: from then on any worker may pick it.
  auto image = lane.world->capture();
  if (!image) return image.status();
  auto& images = workers->images;
  if (images.size() <= t) images.resize(static_cast<std::size_t>(t) + 1);
  images[t] = std::move(*image);
  return Status::ok();
}

}  // namespace prowl
