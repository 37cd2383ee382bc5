#include <gtest/gtest.h>

#include "prowl/world/memory_system.hpp"
#include "prowl/world/restore_planner.hpp"
#include "prowl/world/world.hpp"
#include "unit/support/fake_systems.hpp"

namespace prowl {
namespace {

using testing::FakeSystem;
using testing::OpCounts;

struct Point {
  int x = 0;
  int y = 0;
};

TEST(MemorySystem, SavesRestoresAndRollsBackValues) {
  MemorySystem<Point> sys("p", Point{1, 2});
  ASSERT_TRUE(sys.begin());
  auto h = sys.save();
  ASSERT_TRUE(h);
  sys.value().x = 5;
  ASSERT_TRUE(sys.push());
  sys.value().y = 9;
  ASSERT_TRUE(sys.rollback(1));
  EXPECT_EQ(sys.value().x, 5);
  EXPECT_EQ(sys.value().y, 2);
  ASSERT_TRUE(sys.restore(*h));
  EXPECT_EQ(sys.value().x, 1);
  sys.value().x = 7;
  ASSERT_TRUE(sys.reset());
  EXPECT_EQ(sys.value().x, 1);
  sys.release(*h);
  EXPECT_EQ(sys.live_snapshots(), 0u);
}

TEST(MemorySystem, ObservesTheBytesOfAPaddingFreeType) {
  MemorySystem<Point> a("p", Point{1, 2});
  MemorySystem<Point> b("p", Point{1, 2});
  MemorySystem<Point> c("p", Point{2, 1});
  Hasher ha, hb, hc;
  ASSERT_TRUE(a.observe(ha));
  ASSERT_TRUE(b.observe(hb));
  ASSERT_TRUE(c.observe(hc));
  EXPECT_EQ(ha.finish(), hb.finish());
  EXPECT_NE(ha.finish(), hc.finish());
}

TEST(World, TakesTheWeakestCapabilityOfItsSystems) {
  {
    World w;
    w.emplace<FakeSystem>("a", testing::snapshot_caps(), 1);
    ASSERT_TRUE(w.begin());
    EXPECT_EQ(w.mode(), RestoreMode::kSnapshot);
  }
  {
    World w;
    w.emplace<FakeSystem>("a", testing::snapshot_caps(), 1);
    w.emplace<FakeSystem>("b", testing::stack_only(), 1);
    ASSERT_TRUE(w.begin());
    EXPECT_EQ(w.mode(), RestoreMode::kStack);
  }
  {
    World w;
    w.emplace<FakeSystem>("a", testing::stack_only(), 1);
    w.emplace<FakeSystem>("b", testing::reset_only(), 1);
    ASSERT_TRUE(w.begin());
    EXPECT_EQ(w.mode(), RestoreMode::kReset);
  }
}

TEST(World, RejectsDuplicateSystemNames) {
  World w;
  w.emplace<FakeSystem>("a", testing::snapshot_caps(), 1);
  EXPECT_THROW(w.emplace<FakeSystem>("a", testing::snapshot_caps(), 1), LogicError);
}

TEST(World, EmulatesSavepointsWithSnapshotsAndKeepsTheContext) {
  World w;
  auto& snap = w.emplace<FakeSystem>("snap", Capabilities{true, false, false, false}, 1);
  auto& stack = w.emplace<FakeSystem>("stack", testing::stack_only(), 1);
  ASSERT_TRUE(w.begin());
  ASSERT_EQ(w.mode(), RestoreMode::kStack);
  snap.values()[0] = 1;
  stack.values()[0] = 1;
  w.context().set("k", 1);
  ASSERT_TRUE(w.push());
  snap.values()[0] = 2;
  stack.values()[0] = 2;
  w.context().set("k", 2);
  ASSERT_TRUE(w.rollback(1));
  EXPECT_EQ(snap.values()[0], 1);
  EXPECT_EQ(stack.values()[0], 1);
  EXPECT_EQ(w.context().get<int>("k"), 1);
  ASSERT_TRUE(w.reset());
  EXPECT_EQ(snap.values()[0], 0);
  EXPECT_EQ(stack.values()[0], 0);
  EXPECT_FALSE(w.context().has("k"));
}

// A tree of states for the planner: parent and action per state. State ids are also the value
// the fake system holds when the world is at that state.
class Tree final : public StateTree {
 public:
  void add(StateId s, StateId parent, ActionId a) {
    if (parents_.size() <= s) {
      parents_.resize(s + 1, kNoState);
      actions_.resize(s + 1, kNoAction);
    }
    parents_[s] = parent;
    actions_[s] = a;
  }
  StateId parent(StateId s) const override { return parents_[s]; }
  ActionId parent_action(StateId s) const override { return actions_[s]; }
  std::uint32_t depth(StateId s) const override {
    std::uint32_t d = 0;
    while (parents_[s] != kNoState) {
      s = parents_[s];
      ++d;
    }
    return d;
  }

 private:
  std::vector<StateId> parents_;
  std::vector<ActionId> actions_;
};

struct PlannerFixture {
  explicit PlannerFixture(Capabilities caps) {
    system = &world.emplace<FakeSystem>("s", caps, 1, &counts);
    EXPECT_TRUE(world.begin());
    // 0 -a0-> 1 -a1-> 2 -a2-> 3, and 1 -a3-> 4
    tree.add(0, kNoState, kNoAction);
    tree.add(1, 0, 0);
    tree.add(2, 1, 1);
    tree.add(3, 2, 2);
    tree.add(4, 1, 3);
    planner =
        std::make_unique<RestorePlanner>(world, tree, [this](StateId f, ActionId a, StateId t) {
          EXPECT_EQ(system->values()[0], static_cast<int>(f));
          replays.push_back({f, a});
          system->values()[0] = static_cast<int>(t);
          return Status::ok();
        });
    EXPECT_TRUE(planner->begin(0));
  }
  // Runs the edge into `to` as the explorer would.
  void execute(StateId to) {
    system->values()[0] = static_cast<int>(to);
    planner->moved(to);
  }
  World world;
  FakeSystem* system;
  OpCounts counts;
  Tree tree;
  std::vector<Pair> replays;
  std::unique_ptr<RestorePlanner> planner;
};

TEST(RestorePlanner, StackModeRollsBackToTheDeepestCommonSavepointAndReplaysTheRest) {
  PlannerFixture f(testing::stack_only());
  f.execute(1);
  ASSERT_TRUE(f.planner->go_to(1));  // saves 1
  f.execute(2);
  ASSERT_TRUE(f.planner->go_to(2));  // saves 2
  f.execute(3);
  EXPECT_EQ(f.planner->replayed(), 0u);

  ASSERT_TRUE(f.planner->go_to(4));  // back to 1, replay 1 -> 4
  EXPECT_EQ(f.system->values()[0], 4);
  EXPECT_EQ(f.replays, (std::vector<Pair>{{1, 3}}));
  EXPECT_EQ(f.counts.rollbacks, 1);

  ASSERT_TRUE(f.planner->go_to(3));  // back to 1, replay 1 -> 2 -> 3
  EXPECT_EQ(f.system->values()[0], 3);
  EXPECT_EQ(f.replays, (std::vector<Pair>{{1, 3}, {1, 1}, {2, 2}}));
  EXPECT_EQ(f.planner->replayed(), 3u);

  ASSERT_TRUE(f.planner->go_to(2));  // an ancestor on the current path: rollback only
  EXPECT_EQ(f.system->values()[0], 2);
  EXPECT_EQ(f.planner->replayed(), 3u);
}

TEST(RestorePlanner, ResetModeReplaysFromTheCurrentStateWhenItIsOnThePath) {
  PlannerFixture f(testing::reset_only());
  ASSERT_TRUE(f.planner->go_to(3));  // 0 is on the path to 3: no reset
  EXPECT_EQ(f.system->values()[0], 3);
  EXPECT_EQ(f.counts.resets, 0);
  EXPECT_EQ(f.planner->replayed(), 3u);

  ASSERT_TRUE(f.planner->go_to(4));  // 3 is not on the path to 4: reset, replay 0 -> 1 -> 4
  EXPECT_EQ(f.system->values()[0], 4);
  EXPECT_EQ(f.counts.resets, 1);
  EXPECT_EQ(f.planner->replayed(), 5u);
  EXPECT_EQ(f.replays, (std::vector<Pair>{{0, 0}, {1, 1}, {2, 2}, {0, 0}, {1, 3}}));
}

TEST(RestorePlanner, SnapshotModeRestoresOrReplaysFromTheNearestSavedAncestor) {
  PlannerFixture f(Capabilities{true, false, false, false});
  f.execute(1);
  ASSERT_TRUE(f.planner->discovered(1));
  f.execute(2);
  ASSERT_TRUE(f.planner->discovered(2));
  f.execute(3);
  ASSERT_TRUE(f.planner->discovered(3));

  ASSERT_TRUE(f.planner->go_to(1));
  EXPECT_EQ(f.system->values()[0], 1);
  EXPECT_EQ(f.planner->replayed(), 0u);

  f.planner->release(3);
  f.planner->release(2);
  ASSERT_TRUE(f.planner->go_to(3));  // restore 1, replay 1 -> 2 -> 3
  EXPECT_EQ(f.system->values()[0], 3);
  EXPECT_EQ(f.replays, (std::vector<Pair>{{1, 1}, {2, 2}}));
}

TEST(RestorePlanner, ReportsAReplayThatFails) {
  World world;
  world.emplace<FakeSystem>("s", testing::reset_only(), 1);
  ASSERT_TRUE(world.begin());
  Tree tree;
  tree.add(0, kNoState, kNoAction);
  tree.add(1, 0, 0);
  RestorePlanner planner(world, tree,
                         [](StateId, ActionId, StateId) { return Status::internal("diverged"); });
  ASSERT_TRUE(planner.begin(0));
  Status st = planner.go_to(1);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(planner.current(), kNoState);
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

// A reset-only system that records how often it was reset and ended.
class CountingResetSystem final : public System {
 public:
  explicit CountingResetSystem(int* resets, int* ends)
      : System("svc"), resets_(resets), ends_(ends) {}
  Capabilities capabilities() const override { return testing::reset_only(); }
  Status observe(Hasher&) const override { return Status::ok(); }
  Status reset() override {
    ++*resets_;
    return Status::ok();
  }
  Status end() override {
    ++*ends_;
    return Status::ok();
  }

 private:
  int* resets_;
  int* ends_;
};

TEST(World, EndsAResetModeWorldWithoutRestartingItsServices) {
  int resets = 0, ends = 0;
  World w;
  w.emplace<CountingResetSystem>(&resets, &ends);
  auto& stack = w.emplace<FakeSystem>("db", testing::stack_only(), 1);
  ASSERT_TRUE(w.begin());
  ASSERT_EQ(w.mode(), RestoreMode::kReset);
  stack.values()[0] = 7;
  w.context().set("k", 1);
  ASSERT_TRUE(w.end());
  EXPECT_EQ(resets, 0);
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(stack.values()[0], 0);  // savepoint 0
  EXPECT_FALSE(w.context().has("k"));
}

// A system whose begin() fails, after others began: say a database whose recovery record must not
// outlive the run.
class FailingBegin final : public System {
 public:
  FailingBegin() : System("fails") {}
  Capabilities capabilities() const override { return {true, true, true, false}; }
  Status observe(Hasher&) const override { return Status::ok(); }
  Status begin() override { return Status::environment("the service cannot be reached"); }
};

TEST(World, ABeginThatFailsEndsTheSystemsAlreadyBegun) {
  int resets = 0, ends = 0;
  World w;
  w.emplace<CountingResetSystem>(&resets, &ends);
  w.emplace<FailingBegin>();
  const Status st = w.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(), "the service cannot be reached");
  EXPECT_EQ(ends, 1);  // ended as end() would have
  EXPECT_EQ(resets, 0);
  EXPECT_TRUE(w.end());  // nothing begun: nothing more to end
  EXPECT_EQ(ends, 1);
}

TEST(World, EndReturnsSnapshotSystemsToTheirInitialState) {
  World w;
  auto& a = w.emplace<FakeSystem>("a", testing::snapshot_caps(), 1);
  ASSERT_TRUE(w.begin());
  a.values()[0] = 5;
  ASSERT_TRUE(w.push());
  a.values()[0] = 6;
  ASSERT_TRUE(w.end());
  EXPECT_EQ(a.values()[0], 0);
}

TEST(World, LoadsAnImageThatACopyOfItCaptured) {
  World original;
  World copy;
  auto& a = original.emplace<FakeSystem>("a", testing::portable_caps(), 2);
  auto& b = copy.emplace<FakeSystem>("a", testing::portable_caps(), 2);
  ASSERT_TRUE(original.begin());
  ASSERT_TRUE(copy.begin());
  EXPECT_TRUE(original.portable());
  EXPECT_EQ(original.first_not_portable(), nullptr);
  a.values() = {3, 4};
  original.context().set("order", 7);
  auto image = original.capture();
  ASSERT_TRUE(image);
  a.values() = {9, 9};  // the image is a copy, not a view
  b.values() = {1, 1};
  ASSERT_TRUE(copy.load(**image));
  EXPECT_EQ(b.values(), (std::vector<int>{3, 4}));
  EXPECT_EQ(copy.context().get<int>("order"), 7);
  // And back into the world that captured it.
  ASSERT_TRUE(original.load(**image));
  EXPECT_EQ(a.values(), (std::vector<int>{3, 4}));
  ASSERT_TRUE(copy.end());
  EXPECT_EQ(b.values(), (std::vector<int>{0, 0}));
  EXPECT_FALSE(copy.context().has("order"));
  ASSERT_TRUE(original.end());
}

TEST(World, IsPortableOnlyInSnapshotModeWithEverySystemPortable) {
  World mixed;
  mixed.emplace<FakeSystem>("a", testing::portable_caps(), 1);
  mixed.emplace<FakeSystem>("b", testing::snapshot_caps(), 1);
  ASSERT_TRUE(mixed.begin());
  EXPECT_FALSE(mixed.portable());
  ASSERT_NE(mixed.first_not_portable(), nullptr);
  EXPECT_EQ(mixed.first_not_portable()->name(), "b");

  World stack;
  stack.emplace<FakeSystem>("a", testing::portable_caps(), 1);
  stack.emplace<FakeSystem>("s", testing::stack_only(), 1);
  ASSERT_TRUE(stack.begin());
  EXPECT_EQ(stack.mode(), RestoreMode::kStack);
  EXPECT_FALSE(stack.portable());
  EXPECT_EQ(stack.first_not_portable()->name(), "s");
}

TEST(World, RunsItsDestroyHooksAfterItsSystemsAreGone) {
  std::vector<std::string> events;
  struct Noisy final : System {
    explicit Noisy(std::vector<std::string>& e) : System("noisy"), events(e) {}
    ~Noisy() override { events.push_back("system destroyed"); }
    Capabilities capabilities() const override { return {true, false, false, false}; }
    Status observe(Hasher&) const override { return Status::ok(); }
    Result<SnapshotHandle> save() override { return SnapshotHandle{0}; }
    Status restore(SnapshotHandle) override { return Status::ok(); }
    void release(SnapshotHandle) override {}
    std::vector<std::string>& events;
  };
  {
    World w;
    w.emplace<Noisy>(events);
    w.on_destroyed([&] { events.push_back("hook"); });
    ASSERT_TRUE(w.begin());
  }
  EXPECT_EQ(events, (std::vector<std::string>{"system destroyed", "hook"}));
}

}  // namespace
}  // namespace prowl
