// Several workers (Options::workers) on fake live targets: copies of a world whose systems are
// portable but not cheap, as a service on a SQLite file is. The real service is covered in
// tests/integration/modelfile/explore_test.cpp.
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"
#include "prowl/strategy/random.hpp"
#include "unit/support/fake_systems.hpp"

namespace prowl {
namespace {

using testing::FakeSystem;
using testing::portable_caps;

const std::vector<int>& values_of(const World& w) {
  return static_cast<const FakeSystem&>(w.system(0)).values();
}

// K counters in 0..N-1 (testing::fake_counters_model) on a portable fake system. With `slow`,
// inc_0 takes that long from (1, 0, ...): meanwhile another worker can run every other state's
// pairs, go deeper, and reach (2, 0, ...) the long way, through inc_1 and later reset_1.
Model counters(int k, int n, std::chrono::microseconds slow = std::chrono::microseconds(0)) {
  Model m = testing::fake_counters_model(portable_caps(), k, n);
  if (slow.count() > 0) {
    Action& inc0 = m.actions()[static_cast<std::size_t>(m.find_action("inc_0"))];
    inc0.run = [run = inc0.run, slow](Step& s) {
      const auto& v = values_of(s.world);
      if (v[0] == 1 && std::all_of(v.begin() + 1, v.end(), [](int c) { return c == 0; })) {
        std::this_thread::sleep_for(slow);
      }
      return run(s);
    };
  }
  return m;
}

// An invariant that breaks once the counters sum to `total`.
void sum_below(Model& m, int total) {
  m.invariant("sum_below").check([total](const World& w, const Context&) {
    int sum = 0;
    for (int v : values_of(w)) sum += v;
    return sum < total ? Check::pass() : Check::fail("the counters sum to " + std::to_string(sum));
  });
}

Result<RunReport> run_with(const Model& m, Strategy& strategy, std::uint32_t workers,
                           Options options = {}) {
  options.workers = workers;
  return explore(m, strategy, std::move(options));
}

// A run with two workers fails with exactly this Status.
void expect_failure(const Model& m, StatusCode code, const std::string& message) {
  Bfs bfs;
  auto r = run_with(m, bfs, 2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), code);
  EXPECT_EQ(r.status().message(), message);
}

// Each finding as (name, last action, number of steps, confirmed).
std::set<std::tuple<std::string, std::string, std::size_t, bool>> summary(const RunReport& r) {
  std::set<std::tuple<std::string, std::string, std::size_t, bool>> out;
  for (const Finding& f : r.findings) out.emplace(f.name, f.action, f.steps.size(), f.confirmed);
  return out;
}

// One integer held as a live target holds its state: portable, not cheap, snapshots as copies.
// After `fail_after` loads, load() fails, as a copy whose service lost its database would
// (-1: never). Counts its loads in `loads`, which only the thread driving it touches.
class Cell final : public System {
 public:
  explicit Cell(int fail_after = -1, int* loads = nullptr)
      : System("cell"), fail_after_(fail_after), loads_(loads) {}
  int value = 0;

  Capabilities capabilities() const override {
    return {.snapshot = true, .stack = false, .reset = true, .cheap = false, .portable = true};
  }
  Status observe(Hasher& h) const override {
    h.add_u64(static_cast<std::uint64_t>(value));
    return Status::ok();
  }
  Status begin() override {
    initial_ = value;
    return Status::ok();
  }
  Result<SnapshotHandle> save() override {
    saved_.push_back(value);
    return static_cast<SnapshotHandle>(saved_.size() - 1);
  }
  Status restore(SnapshotHandle h) override {
    value = saved_[h];
    return Status::ok();
  }
  void release(SnapshotHandle) override {}
  Status reset() override {
    value = initial_;
    return Status::ok();
  }
  Result<SystemImagePtr> capture() override {
    auto image = std::make_shared<Image>();
    image->value = value;
    return SystemImagePtr(std::move(image));
  }
  Status load(const SystemImagePtr& image) override {
    if (loads_ != nullptr) ++*loads_;
    if (fail_after_ >= 0 && loaded_++ >= fail_after_) {
      return Status::environment("copy lost its database");
    }
    value = dynamic_cast<const Image&>(*image).value;
    return Status::ok();
  }

 private:
  struct Image final : SystemImage {
    int value = 0;
  };
  int fail_after_;
  int* loads_;
  int loaded_ = 0;
  int initial_ = 0;
  std::vector<int> saved_;
};

int& cell(World& w) { return static_cast<Cell&>(w.system(0)).value; }
int cell(const World& w) { return static_cast<const Cell&>(w.system(0)).value; }

// A cell counting from 0 to `top` (inc, each step taking `pause`) and back to 0 (clear); copy k
// of the world is make_copy(k).
Model cell_model(int top, std::chrono::microseconds pause,
                 std::function<std::unique_ptr<Cell>(std::size_t copy)> make_copy) {
  Model m("cell");
  m.set_world([]() -> Result<std::unique_ptr<World>> {
    auto world = std::make_unique<World>();
    world->add(std::make_unique<Cell>());
    return world;
  });
  m.set_world_copies([make_copy](std::size_t copy) -> Result<std::unique_ptr<World>> {
    auto world = std::make_unique<World>();
    world->add(make_copy(copy));
    return world;
  });
  m.action("inc")
      .when([top](const World& w, const Context&) { return cell(w) < top; })
      .run([pause](Step& s) {
        std::this_thread::sleep_for(pause);
        ++cell(s.world);
        return Outcome::ok();
      });
  m.action("clear")
      .when([](const World& w, const Context&) { return cell(w) > 0; })
      .run([pause](Step& s) {
        std::this_thread::sleep_for(pause);
        cell(s.world) = 0;
        return Outcome::ok();
      });
  return m;
}

TEST(Workers, EveryCopyRunsStepsOfItsOwn) {
  int loads[3] = {0, 0, 0};
  Model m = cell_model(9, std::chrono::microseconds(300),
                       [&](std::size_t copy) { return std::make_unique<Cell>(-1, &loads[copy]); });
  // Ten pairs from every state: work for every worker at every level.
  for (int k = 0; k < 10; ++k) {
    m.action("set_" + std::to_string(k)).run([k](Step& s) {
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      cell(s.world) = k;
      return Outcome::ok();
    });
  }
  Bfs one;
  auto expected = run_with(m, one, 1);
  ASSERT_TRUE(expected);
  EXPECT_EQ(expected->stats.states, 10u);
  EXPECT_EQ(loads[1] + loads[2], 0);
  Bfs bfs;
  auto r = run_with(m, bfs, 3);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 10u);
  EXPECT_EQ(r->stats.transitions, expected->stats.transitions);
  EXPECT_GT(loads[1], 0);
  EXPECT_GT(loads[2], 0);
}

TEST(Workers, FailTheRunWithTheFirstFailureOfACopy) {
  const Model m = cell_model(30, std::chrono::microseconds(200), [](std::size_t copy) {
    return std::make_unique<Cell>(copy == 1 ? 2 : -1);
  });
  expect_failure(m, StatusCode::kEnvironment, "copy lost its database");
}

TEST(Workers, RecordABeforeInvariantAtAStateWhoseOnlyStepIsSkipped) {
  Model m = cell_model(2, std::chrono::microseconds(0),
                       [](std::size_t) { return std::make_unique<Cell>(); });
  m.actions()[static_cast<std::size_t>(m.find_action("clear"))].preconditions.clear();
  m.actions()[static_cast<std::size_t>(m.find_action("clear"))].run = [](Step& s) {
    // Declines at the top: the only step from there is skipped.
    if (cell(s.world) == 2) return Outcome::skipped("not at the top");
    cell(s.world) = 0;
    return Outcome::ok();
  };
  m.invariant("below_top").timing(Timing::kBefore).check([](const World& w, const Context&) {
    return cell(w) < 2 ? Check::pass() : Check::fail("at the top");
  });
  Bfs one;
  auto expected = run_with(m, one, 1);
  ASSERT_TRUE(expected);
  ASSERT_EQ(expected->findings.size(), 1u);
  EXPECT_EQ(expected->findings[0].steps.size(), 2u);
  Bfs bfs;
  auto r = run_with(m, bfs, 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(summary(*r), summary(*expected));
}

TEST(Workers, ExploreTheSameGraphAsOneWorker) {
  const Model m = counters(3, 4);
  for (std::uint32_t workers : {1u, 2u, 3u}) {
    Bfs bfs;
    auto r = run_with(m, bfs, workers);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->stats.states, 64u) << workers << " workers";
    EXPECT_EQ(r->stats.transitions, 288u) << workers << " workers";
    EXPECT_EQ(r->stats.steps, 288u) << workers << " workers";
    EXPECT_EQ(r->termination, Termination::kExhausted);
    EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
    EXPECT_GT(r->stats.restores, 0u);
  }
}

TEST(Workers, FindTheShortestReproductionsWithBfs) {
  Model m = counters(3, 4, std::chrono::milliseconds(20));
  sum_below(m, 5);
  Bfs one;
  auto expected = run_with(m, one, 1);
  ASSERT_TRUE(expected) << expected.status().message();
  ASSERT_EQ(expected->findings.size(), 3u);  // the fifth increment, of each counter
  for (const Finding& f : expected->findings) EXPECT_EQ(f.steps.size(), 5u);
  for (int round = 0; round < 3; ++round) {
    Bfs bfs;
    auto r = run_with(m, bfs, 2);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(summary(*r), summary(*expected));
    EXPECT_EQ(r->stats.states, expected->stats.states);
  }
}

TEST(Workers, ExpandExactlyTheStatesWithinMaxDepthWithBfs) {
  // inc_0 from (1, 0, 0) is slow: without waiting for it, the other worker would reach (2, 0, 0)
  // first at depth 4, by inc_1, inc_0, inc_0, reset_1, and leave it unexpanded at the bound
  // (and (3, 0, 0) undiscovered).
  const Model m = counters(3, 4, std::chrono::milliseconds(30));
  Options options;
  options.max_depth = 4;
  Bfs one;
  auto expected = run_with(m, one, 1, options);
  ASSERT_TRUE(expected);
  EXPECT_EQ(expected->stats.states, 32u);  // three counters in 0..3 summing to 4 or less
  EXPECT_EQ(expected->stats.max_depth, 4u);
  for (int round = 0; round < 3; ++round) {
    Bfs bfs;
    auto r = run_with(m, bfs, 2, options);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->stats.states, expected->stats.states);
    EXPECT_EQ(r->stats.transitions, expected->stats.transitions);
    EXPECT_EQ(r->stats.max_depth, 4u);
  }
}

TEST(Workers, ExhaustTheGraphWithOtherStrategiesToo) {
  const Model m = counters(3, 4);
  Dfs dfs;
  auto d = run_with(m, dfs, 2);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->stats.states, 64u);
  EXPECT_EQ(d->stats.transitions, 288u);
  RandomStrategy random(3);
  auto r = run_with(m, random, 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 64u);
  EXPECT_EQ(r->stats.transitions, 288u);
}

// Only BFS's level barrier makes several workers repeat a run from its seed; the report says so
// for every other strategy.
TEST(Workers, WarnThatARunIsNotReproducibleWhenPicksDependOnTiming) {
  const Model m = counters(2, 3);
  Dfs dfs;
  auto d = run_with(m, dfs, 2);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->warnings.size(), 1u);
  EXPECT_EQ(d->warnings[0],
            "with 2 workers, strategy 'dfs' picks by what the workers have finished, which "
            "depends on timing: this run is not reproducible from its seed (bfs is, or run one "
            "worker)");
  Bfs bfs;
  auto b = run_with(m, bfs, 2);
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->warnings.empty());
}

TEST(Workers, StopAfterExactlyMaxSteps) {
  const Model m = counters(3, 4);
  Options options;
  options.max_steps = 37;
  Bfs bfs;
  auto r = run_with(m, bfs, 2, options);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.steps, 37u);
  EXPECT_EQ(r->termination, Termination::kMaxSteps);
}

TEST(Workers, StopAtTheFirstFinding) {
  Model m = counters(3, 4);
  sum_below(m, 2);
  Options options;
  options.stop_on_first = true;
  Bfs bfs;
  auto r = run_with(m, bfs, 2, options);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->termination, Termination::kFirstFinding);
  ASSERT_FALSE(r->findings.empty());
  EXPECT_EQ(r->findings.front().steps.size(), 2u);
  EXPECT_LT(r->stats.states, 64u);
}

TEST(Workers, RunAnActionNoMoreOftenThanItsPerRunLimit) {
  Model m = counters(2, 3);
  m.actions()[static_cast<std::size_t>(m.find_action("inc_1"))].max_per_run = 2;
  // Which pairs get the two runs depends on which worker comes first, and so does the graph;
  // that there are exactly two does not.
  for (int round = 0; round < 5; ++round) {
    Bfs bfs;
    auto r = run_with(m, bfs, 2);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->coverage[static_cast<std::size_t>(m.find_action("inc_1"))].executed, 2u);
    EXPECT_EQ(r->termination, Termination::kExhausted);
    EXPECT_EQ(r->stats.steps, r->stats.transitions);
    ASSERT_EQ(r->warnings.size(), 1u);
    EXPECT_EQ(r->warnings[0],
              "with 2 workers, which steps an action limited per run (max_per_run) gets depends "
              "on timing: this run is not reproducible from its seed (run one worker)");
  }
}

TEST(Workers, PerRunLimitsAndTheLevelBarrierDoNotWaitForEachOther) {
  // 0 -go-> 1 -slow-> 3, 1 -lim-> 7; 0 -side-> 2 -next-> 5 -lim-> 7; lim runs once per run.
  // One worker takes state 1 and spends 50 ms on slow; the other runs 2, then takes 5 (one
  // level deeper) and would claim lim's only run before the barrier: then it waited for state
  // 1's pairs and the first worker, at lim, for its claim. lim must run from 1, the shallower.
  Model m("gate");
  m.set_world([]() -> Result<std::unique_ptr<World>> {
    auto world = std::make_unique<World>();
    world->add(std::make_unique<Cell>());
    return world;
  });
  m.set_world_copies([](std::size_t) -> Result<std::unique_ptr<World>> {
    auto world = std::make_unique<World>();
    world->add(std::make_unique<Cell>());
    return world;
  });
  auto move = [&m](const char* name, int from, int to, std::chrono::milliseconds pause) {
    return m.action(name)
        .when([from](const World& w, const Context&) { return cell(w) == from; })
        .run([to, pause](Step& s) {
          std::this_thread::sleep_for(pause);
          cell(s.world) = to;
          return Outcome::ok();
        });
  };
  move("go", 0, 1, std::chrono::milliseconds(0));
  move("side", 0, 2, std::chrono::milliseconds(0));
  move("slow", 1, 3, std::chrono::milliseconds(50));
  move("next", 2, 5, std::chrono::milliseconds(0));
  m.action("lim")
      .max_per_run(1)
      .when([](const World& w, const Context&) { return cell(w) == 1 || cell(w) == 5; })
      .run([](Step& s) {
        cell(s.world) = 7;
        return Outcome::ok();
      });
  for (int round = 0; round < 3; ++round) {
    Bfs bfs;
    auto r = run_with(m, bfs, 2);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->termination, Termination::kExhausted);
    EXPECT_EQ(r->coverage[static_cast<std::size_t>(m.find_action("lim"))].executed, 1u);
    EXPECT_EQ(r->stats.states, 6u);  // 0, 1, 2, 3, 5, 7
    EXPECT_EQ(r->stats.transitions, 5u);
  }
}

TEST(Workers, ReportAnActionThatThrowsAndGoOn) {
  Model m = counters(2, 3);
  m.action("boom")
      .when([](const World& w, const Context&) { return values_of(w)[0] == 2; })
      .run([](Step&) -> Outcome { throw std::runtime_error("kaboom"); });
  Bfs bfs;
  auto r = run_with(m, bfs, 2);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kActionError);
  EXPECT_EQ(r->findings[0].steps.size(), 3u);  // inc_0, inc_0, boom
  EXPECT_TRUE(r->findings[0].confirmed);
  EXPECT_NE(r->findings[0].message.find("kaboom"), std::string::npos);
  EXPECT_EQ(r->stats.states, 9u);
}

TEST(Workers, BuildEachCopyWithTheCopyFactory) {
  Model m = counters(2, 3);
  std::mutex mu;
  std::vector<std::size_t> built;
  m.set_world_copies([&](std::size_t copy) -> Result<std::unique_ptr<World>> {
    {
      std::lock_guard<std::mutex> lock(mu);
      built.push_back(copy);
    }
    auto world = std::make_unique<World>();
    world->emplace<FakeSystem>("counters", portable_caps(), 2);
    return world;
  });
  Bfs bfs;
  auto r = run_with(m, bfs, 3);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 9u);
  std::sort(built.begin(), built.end());
  EXPECT_EQ(built, (std::vector<std::size_t>{1, 2}));
}

TEST(Workers, FailTheRunWhenACopyCannotBeBuilt) {
  Model m = counters(2, 3);
  m.set_world_copies([](std::size_t copy) -> Result<std::unique_ptr<World>> {
    return Status::environment("copy " + std::to_string(copy) + " has no service");
  });
  expect_failure(m, StatusCode::kEnvironment, "copy 1 has no service");
}

TEST(Workers, FailTheRunWhenACopyIsNotLikeTheFirst) {
  Model m = counters(2, 3);
  m.set_world_copies([](std::size_t) -> Result<std::unique_ptr<World>> {
    auto world = std::make_unique<World>();
    world->emplace<FakeSystem>("counters", testing::snapshot_caps(), 2);  // not portable
    return world;
  });
  Bfs bfs;
  auto r = run_with(m, bfs, 2);
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("copy 1 of model 'fake_counters''s world is not like the"),
            std::string::npos)
      << r.status().message();
}

TEST(Workers, RunOneWorkerOnAnInProcessWorld) {
  const Model m = testing::fake_counters_model(
      {.snapshot = true, .stack = true, .reset = true, .cheap = true, .portable = true}, 3, 4);
  Bfs bfs;
  auto r = run_with(m, bfs, 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 64u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(
      r->warnings[0].rfind("2 workers were asked for; running one: the world is in-process", 0), 0u)
      << r->warnings[0];
}

TEST(Workers, RunOneWorkerWhenASystemIsNotPortable) {
  const Model m = testing::fake_counters_model(testing::snapshot_caps(), 3, 4);
  Bfs bfs;
  auto r = run_with(m, bfs, 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 64u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("system 'counters' cannot load a state that another copy of it "
                                "saved"),
            std::string::npos)
      << r->warnings[0];
}

TEST(Workers, AtLeastOneIsNeeded) {
  Options options;
  options.workers = 0;
  const Status st = options.validate();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(), "workers must be at least 1");
}

}  // namespace
}  // namespace prowl
