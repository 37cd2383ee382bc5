#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/replay.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"
#include "refund/refund.hpp"
#include "unit/support/fake_systems.hpp"

namespace prowl {
namespace {

std::vector<std::string> actions_of(const Finding& f) {
  std::vector<std::string> out;
  for (const auto& s : f.steps) out.push_back(s.action);
  return out;
}

const Finding* find_finding(const RunReport& r, std::string_view name) {
  for (const auto& f : r.findings) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(Bfs, ReachesEveryCounterStateByAShortestPath) {
  auto model = examples::make_counters_model(3, 4);
  Bfs bfs;
  Explorer explorer(model, bfs);
  auto r = explorer.run();
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 64u);                   // N^K
  EXPECT_EQ(r->stats.transitions, 64u * 3 * 6 / 4);  // N^K * K * (2N-2)/N
  EXPECT_EQ(r->termination, Termination::kExhausted);
  EXPECT_TRUE(r->findings.empty());
  // The shortest path to a state needs exactly sum(c) increments and nothing else.
  const Graph& g = explorer.graph();
  for (StateId s = 0; s < g.num_states(); ++s) {
    examples::Counters c;
    for (const Pair& e : g.path_to(s)) {
      const std::string& name = model.actions()[e.action].name;
      ASSERT_EQ(name.rfind("inc_", 0), 0u) << "state " << s << " is reached through " << name;
      ++c.c[name[4] - '0'];
    }
    EXPECT_EQ(g.depth(s), static_cast<std::uint32_t>(c.c[0] + c.c[1] + c.c[2]));
  }
}

TEST(Dfs, IsCompleteOnTheCountersModel) {
  auto model = examples::make_counters_model(3, 4);
  Dfs dfs;
  auto r = explore(model, dfs);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 64u);
  EXPECT_EQ(r->stats.transitions, 288u);
}

TEST(Bfs, FindsTheDoubleRefundAsTheShortestSequence) {
  auto model = examples::make_refund_model();
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  const Finding* f = find_finding(*r, "refund_at_most_once");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(actions_of(*f), (std::vector<std::string>{"create_order", "refund", "refund"}));
  EXPECT_EQ(f->kind, FindingKind::kInvariant);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_TRUE(f->confirmed);
  EXPECT_EQ(f->message, "order 0 was refunded 20 for a price of 10");
  EXPECT_EQ(f->steps[0].detail, "order 0");
  EXPECT_EQ(f->state, "customer=40 merchant=-10 order0=refunded(refunded 20)");
  // Reported once per (invariant, breaking action), whatever the number of paths to it.
  EXPECT_EQ(std::count_if(r->findings.begin(), r->findings.end(),
                          [](const Finding& x) { return x.name == "refund_at_most_once"; }),
            1);
  EXPECT_EQ(find_finding(*r, "money_conserved"), nullptr);
  // Critical findings come first.
  EXPECT_EQ(r->findings.front().severity, Severity::kCritical);
}

// v in {0..3}: a: 0 -> 1, c: 0 -> 2, b (after a): -> 3. Under per-path dependencies b can never
// run from 2 (reached without a); a run-global rule would let it.
ObjectModel<int> dependency_model() {
  ObjectModel<int> m("deps", 0);
  m.action("a").when([](const int& v) { return v == 0; }).run([](int& v) { v = 1; });
  m.action("c").when([](const int& v) { return v == 0; }).run([](int& v) { v = 2; });
  m.action("b").after("a").when([](const int& v) { return v != 3; }).run([](int& v) { v = 3; });
  return m;
}

TEST(Explorer, HoldsDependenciesPerPathNotPerRun) {
  auto model = dependency_model();
  Bfs bfs;
  Options opts;
  opts.record_edges = true;
  Explorer explorer(model, bfs, opts);
  auto r = explorer.run();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 4u);
  EXPECT_EQ(r->stats.transitions, 3u);
  EXPECT_EQ(r->coverage[2].name, "b");
  EXPECT_EQ(r->coverage[2].enabled, 1u);
  EXPECT_EQ(r->coverage[2].executed, 1u);
  for (const Edge& e : explorer.graph().edges()) {
    if (e.action != 2) continue;
    auto path = explorer.graph().path_to(e.from);
    EXPECT_TRUE(std::any_of(path.begin(), path.end(), [](const Pair& p) { return p.action == 0; }));
  }
}

TEST(Explorer, LimitsCallsPerPath) {
  ObjectModel<int> m("limit", 0);
  m.action("inc").max_per_path(2).run([](int& v) { ++v; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 3u);
  EXPECT_EQ(r->stats.transitions, 2u);
}

TEST(Explorer, LimitsCallsPerRun) {
  auto m = examples::make_counters_model(2, 3);
  m.actions()[0].max_per_run = 1;  // inc_0
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->coverage[0].executed, 1u);
  // inc_0 runs once, from the initial state: c0 reaches 1 and never 2.
  EXPECT_EQ(r->stats.states, 6u);
}

TEST(Explorer, TreatsAThrowingActionAsAFindingAndGoesOn) {
  auto m = examples::make_counters_model(2, 3);
  m.action("boom")
      .when([](const examples::Counters& s) { return s.c[0] == 1 && s.c[1] == 0; })
      .run([](examples::Counters&) { throw std::runtime_error("kaboom"); });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 9u);
  EXPECT_EQ(r->stats.transitions, 24u);
  EXPECT_EQ(r->stats.steps, 25u);
  ASSERT_EQ(r->findings.size(), 1u);
  const Finding& f = r->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.name, "boom");
  EXPECT_EQ(f.message, "kaboom");
  EXPECT_EQ(actions_of(f), (std::vector<std::string>{"inc_0", "boom"}));
  EXPECT_TRUE(f.confirmed);
  EXPECT_EQ(f.steps[1].outcome, "error");
}

TEST(Explorer, ReportsAnInvariantThatFailsInTheInitialState) {
  ObjectModel<int> m("bad_start", 0);
  m.action("inc").max_per_path(1).run([](int& v) { ++v; });
  m.invariant("positive").check([](const int& v) { return v > 0; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_TRUE(r->findings[0].steps.empty());
  EXPECT_EQ(r->findings[0].action, "");
  EXPECT_TRUE(r->findings[0].confirmed);
}

TEST(Explorer, StopsAfterExactlyMaxSteps) {
  auto m = examples::make_counters_model(3, 4);
  Bfs bfs;
  Options opts;
  opts.max_steps = 10;
  auto r = explore(m, bfs, opts);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.steps, 10u);
  EXPECT_EQ(r->termination, Termination::kMaxSteps);
}

TEST(Explorer, DoesNotExpandStatesBeyondMaxDepth) {
  auto m = examples::make_counters_model(2, 3);
  Bfs bfs;
  Options opts;
  opts.max_depth = 1;
  auto r = explore(m, bfs, opts);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stats.states, 3u);
  EXPECT_EQ(r->stats.transitions, 2u);
  EXPECT_EQ(r->stats.max_depth, 1u);
}

TEST(Explorer, StopsAtTheCoverageTarget) {
  auto m = examples::make_counters_model(2, 3);
  Bfs bfs;
  Options opts;
  opts.coverage_target = 0.5;
  auto r = explore(m, bfs, opts);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->termination, Termination::kCoverageTarget);
  // BFS runs inc_0 and inc_1 from the initial state first: 2 of 4 actions.
  EXPECT_EQ(r->stats.steps, 2u);
  EXPECT_DOUBLE_EQ(r->action_coverage(), 0.5);
}

TEST(Explorer, StopsAtTheFirstFinding) {
  auto m = examples::make_refund_model();
  Dfs dfs;
  Options opts;
  opts.stop_on_first = true;
  auto r = explore(m, dfs, opts);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->termination, Termination::kFirstFinding);
  EXPECT_FALSE(r->findings.empty());
}

TEST(Explorer, StopsAtTheTimeLimit) {
  auto m = examples::make_counters_model(8, 10);
  Bfs bfs;
  Options opts;
  opts.time_limit = 0.05;
  auto r = explore(m, bfs, opts);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->termination, Termination::kTimeLimit);
  EXPECT_LT(r->stats.states, 100000000u);
}

TEST(Explorer, WarnsAboutActionsThatNeverRan) {
  ObjectModel<int> m("never", 0);
  m.action("inc").max_per_path(1).run([](int& v) { ++v; });
  m.action("never").when([](const int&) { return false; }).run([](int&) {});
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0], "action 'never' never ran (it was never enabled)");
}

TEST(Explorer, ShrinksALongDepthFirstPath) {
  auto m = examples::make_counters_model(2, 5);
  m.invariant("c1_below_2").check([](const examples::Counters& s) { return s.c[1] < 2; });
  Dfs dfs;
  Options plain;
  plain.stop_on_first = true;
  auto r1 = explore(m, dfs, plain);
  ASSERT_TRUE(r1);
  ASSERT_EQ(r1->findings.size(), 1u);
  const std::size_t long_length = r1->findings[0].steps.size();
  EXPECT_GT(long_length, 2u);

  Dfs dfs2;
  Options shrink = plain;
  shrink.shrink = true;
  auto r2 = explore(m, dfs2, shrink);
  ASSERT_TRUE(r2);
  ASSERT_EQ(r2->findings.size(), 1u);
  EXPECT_EQ(actions_of(r2->findings[0]), (std::vector<std::string>{"inc_1", "inc_1"}));
  EXPECT_EQ(r2->findings[0].shrunk_from, long_length);
  EXPECT_TRUE(r2->findings[0].confirmed);
}

TEST(Explorer, ExploresTheSameGraphWithEveryRestoreMode) {
  struct Case {
    Capabilities caps;
    bool dfs;
    RestoreMode mode;
  };
  const Case cases[] = {
      {testing::snapshot_caps(), false, RestoreMode::kSnapshot},
      {testing::snapshot_caps(), true, RestoreMode::kSnapshot},
      {testing::stack_only(), false, RestoreMode::kStack},
      {testing::stack_only(), true, RestoreMode::kStack},
      {testing::reset_only(), false, RestoreMode::kReset},
      {testing::reset_only(), true, RestoreMode::kReset},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(to_string(c.mode)) + (c.dfs ? " dfs" : " bfs"));
    auto m = testing::fake_counters_model(c.caps, 2, 3);
    Bfs bfs;
    Dfs dfs;
    Strategy& s = c.dfs ? static_cast<Strategy&>(dfs) : static_cast<Strategy&>(bfs);
    auto r = explore(m, s);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->restore_mode, c.mode);
    EXPECT_EQ(r->stats.states, 9u);
    EXPECT_EQ(r->stats.transitions, 24u);
    if (c.mode == RestoreMode::kSnapshot || (c.mode == RestoreMode::kStack && c.dfs)) {
      EXPECT_EQ(r->stats.replayed_actions, 0u);  // DFS with savepoints never replays
    } else {
      EXPECT_GT(r->stats.replayed_actions, 0u);
    }
  }
}

TEST(Explorer, ReportsAnActionThatDoesNotReplayTheSameWay) {
  static int calls = 0;
  calls = 0;
  Model m("flaky");
  m.set_world([]() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    w->emplace<testing::FakeSystem>("s", testing::reset_only(), 1);
    return w;
  });
  auto value = [](World& w) -> int& {
    return static_cast<testing::FakeSystem&>(w.system(0)).values()[0];
  };
  m.action("tick")
      .when([](const World& w, const Context&) {
        return static_cast<const testing::FakeSystem&>(w.system(0)).values()[0] == 0;
      })
      .run([=](Step& s) {
        value(s.world) = (++calls % 2 == 0) ? 1 : 2;  // a different result every other call
        return Outcome::ok();
      });
  m.action("other")
      .when([](const World& w, const Context&) {
        return static_cast<const testing::FakeSystem&>(w.system(0)).values()[0] == 0;
      })
      .run([=](Step& s) {
        value(s.world) = 5;
        return Outcome::ok();
      });
  m.action("leave")
      .when([](const World& w, const Context&) {
        return static_cast<const testing::FakeSystem&>(w.system(0)).values()[0] != 0 &&
               static_cast<const testing::FakeSystem&>(w.system(0)).values()[0] < 10;
      })
      .run([=](Step& s) {
        value(s.world) += 10;
        return Outcome::ok();
      });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_FALSE(r->findings.empty());
  EXPECT_EQ(r->findings[0].kind, FindingKind::kNondeterminism);
  EXPECT_NE(r->findings[0].message.find("not deterministic"), std::string::npos);
}

TEST(Model, RejectsInvalidModelsWithAMessageNamingTheProblem) {
  auto message = [](const Model& m) { return m.validate().message(); };
  {
    ObjectModel<int> m("m", 0);
    m.action("a").run([](int&) {});
    m.action("a").run([](int&) {});
    EXPECT_EQ(message(m), "model 'm': duplicate action name 'a': action names must be unique");
  }
  {
    ObjectModel<int> m("m", 0);
    m.action("a").after("nope").run([](int&) {});
    EXPECT_EQ(message(m), "model 'm': action 'a' depends on unknown action 'nope' (after:)");
  }
  {
    ObjectModel<int> m("m", 0);
    m.action("a").weight(0).run([](int&) {});
    EXPECT_EQ(message(m), "model 'm': action 'a' has weight 0: weights must be > 0");
  }
  {
    ObjectModel<int> m("m", 0);
    EXPECT_EQ(message(m), "model 'm': no actions");
  }
  {
    ObjectModel<int> m("m", 0);
    m.action("a");
    EXPECT_EQ(message(m), "model 'm': action 'a' has no code to run: call .run(...)");
  }
}

TEST(Explorer, RefusesAnInvalidModelOrOptionsBeforeRunning) {
  ObjectModel<int> m("m", 0);
  m.action("a").run([](int&) {});
  m.action("a").run([](int&) {});
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().exit_code(), kExitUsage);

  auto good = examples::make_counters_model(1, 2);
  Options opts;
  opts.coverage_target = 1.5;
  Bfs bfs2;
  auto r2 = explore(good, bfs2, opts);
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.status().message(),
            "coverage target 1.5 is outside 0..1 (it is a fraction of actions)");
}

TEST(Replayer, RefusesAStepWhoseActionIsNotEnabled) {
  auto m = examples::make_refund_model();
  auto w = m.make_world();
  ASSERT_TRUE(w);
  ASSERT_TRUE((*w)->begin());
  Replayer replayer(m, **w);
  std::vector<TraceStep> steps = {{"refund", 1, "", ""}};
  auto r = replayer.run(steps);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->error_step, 1u);
  EXPECT_EQ(r->error,
            "action 'refund' is not enabled: 'create_order' has not run on this path (after:)");
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

TEST(Explorer, ReportsAnInMemoryActionThatDoesNotRepeatAndGoesOn) {
  static int calls = 0;
  calls = 0;
  ObjectModel<int> m("coin", 0);
  // From 0, "flip" lands on 1 or 2 depending on how often it ran: not a function of the state.
  m.action("flip").when([](const int& v) { return v == 0; }).run([](int& v) {
    v = (++calls % 2) + 1;
  });
  m.action("inc").when([](const int& v) { return v > 0 && v < 5; }).run([](int& v) { ++v; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kNondeterminism);
  EXPECT_EQ(r->findings[0].name, "flip");
  EXPECT_EQ(r->termination, Termination::kExhausted);
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

TEST(Explorer, ReportsABeforeInvariantOnceWhateverTheStrategy) {
  auto model = [] {
    ObjectModel<int> m("before_only", 0);
    m.action("set1").run([](int& v) { v = 1; });
    m.action("set2").run([](int& v) { v = 2; });
    m.invariant("not_one").timing(Timing::kBefore).check([](const int& v) { return v != 1; });
    return m;
  };
  auto m1 = model();
  Bfs bfs;
  auto r1 = explore(m1, bfs);
  auto m2 = model();
  Dfs dfs;
  auto r2 = explore(m2, dfs);
  ASSERT_TRUE(r1);
  ASSERT_TRUE(r2);
  ASSERT_EQ(r1->findings.size(), 1u);
  ASSERT_EQ(r2->findings.size(), 1u);
  EXPECT_EQ(actions_of(r1->findings[0]), (std::vector<std::string>{"set1"}));
  EXPECT_EQ(actions_of(r2->findings[0]), (std::vector<std::string>{"set1"}));
}

TEST(Explorer, DoesNotCheckInvariantsOnAStateANondeterministicStepFailedToReach) {
  static int calls = 0;
  calls = 0;
  ObjectModel<int> m("flip", 0);
  m.action("flip").when([](const int& v) { return v == 0; }).run([](int& v) {
    v = (++calls % 2) + 1;  // 2, then 1, then 2, ...
  });
  m.invariant("not_one").check([](const int& v) { return v != 1; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kNondeterminism);
}

// A system whose observation fails from the given call on, counting how often it was ended.
class FailingSystem final : public System {
 public:
  FailingSystem(int fail_at, int* ends) : System("db"), fail_at_(fail_at), ends_(ends) {}
  Capabilities capabilities() const override { return testing::reset_only(); }
  Status observe(Hasher& h) const override {
    if (++calls_ >= fail_at_) return Status::environment("db down");
    h.add_u64(0);
    return Status::ok();
  }
  Status reset() override { return Status::ok(); }
  Status end() override {
    ++*ends_;
    return Status::ok();
  }

 private:
  int fail_at_;
  int* ends_;
  mutable int calls_ = 0;
};

TEST(Explorer, ReturnsTheWorldToItsInitialStateWhenTheRunFails) {
  int ends = 0;
  Model m("failing");
  m.set_world([&]() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    w->emplace<FailingSystem>(2, &ends);
    return w;
  });
  m.action("a").run([](Step&) { return Outcome::ok(); });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().message(), "db down");
  EXPECT_EQ(r.status().exit_code(), kExitEnvironment);
  EXPECT_EQ(ends, 1);
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

TEST(Replayer, KeepsOneOutcomePerStepWhenAStepIsSkipped) {
  ObjectModel<int> m("skips", 0);
  m.action("maybe").run([](int&) -> Outcome { return Outcome::skipped("not now"); });
  m.action("inc").run([](int& v) -> Outcome {
    ++v;
    return Outcome::ok("now " + std::to_string(v));
  });
  auto w = m.make_world();
  ASSERT_TRUE(w);
  ASSERT_TRUE((*w)->begin());
  Replayer replayer(m, **w);
  std::vector<TraceStep> steps = {{"maybe", 1, "", ""}, {"inc", 2, "", ""}};
  auto r = replayer.run(steps);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->executed.size(), 2u);
  EXPECT_EQ(r->executed[0].outcome, "skipped");
  EXPECT_EQ(r->executed[0].detail, "not now");
  EXPECT_EQ(r->executed[1].outcome, "ok");
  EXPECT_EQ(r->executed[1].detail, "now 1");
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

// The explorer evaluates ObjectModel's when(const T&) guards and run(T&) code through typed
// copies; a precondition or code installed on the Action directly must still be what runs.
TEST(ObjectModel, APreconditionAddedToTheActionDirectlyStillGates) {
  ObjectModel<int> m("direct", 0);
  m.action("inc").when([](const int& v) { return v < 5; }).run([](int& v) { ++v; });
  m.actions()[0].preconditions.push_back(
      [](const World& w, const Context&) { return ObjectModel<int>::object(w) < 3; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 4u);  // 0..3: the direct precondition stops at 3, not 5
  EXPECT_EQ(r->stats.transitions, 3u);
}

TEST(ObjectModel, CodeReplacedOnTheActionDirectlyIsWhatRuns) {
  ObjectModel<int> m("replaced", 0);
  m.action("step").when([](const int& v) { return v < 8; }).run([](int& v) { ++v; });
  m.actions()[0].run = [](Step& s) {
    ObjectModel<int>::object(s.world) += 4;
    return Outcome::ok();
  };
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 3u);  // 0, 4, 8
}

TEST(ObjectModel, ALaterRunWithAContextReplacesTheTypedCode) {
  ObjectModel<int> m("rerun", 0);
  m.action("step")
      .when([](const int& v) { return v < 6; })
      .run([](int& v) { ++v; })
      .run([](int& v, Context&) { v += 3; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 3u);  // 0, 3, 6
}

TEST(ObjectModel, ALaterRunReturningAnOutcomeReplacesTheTypedCode) {
  ObjectModel<int> m("rerun_bool", 0);
  m.action("step")
      .when([](const int& v) { return v < 6; })
      .run([](int& v) { ++v; })
      .run([](int& v) {
        v += 2;
        return true;
      });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 4u);  // 0, 2, 4, 6
}

TEST(ObjectModel, AnActionWithoutGuardsNextToGuardedOnesIsAlwaysEnabled) {
  ObjectModel<int> m("unguarded", 0);
  m.action("up").when([](const int& v) { return v < 3; }).run([](int& v) { ++v; });
  m.action("reset").run([](int& v) { v = 0; });
  m.action("down").when([](const int& v) { return v > 0; }).when([](const int& v) {
    return v != 3;
  });
  m.actions()[2].run = [](Step& s) {
    --ObjectModel<int>::object(s.world);
    return Outcome::ok();
  };
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 4u);
  // up from 0, 1, 2; reset from all 4; down from 1 and 2.
  EXPECT_EQ(r->stats.transitions, 9u);
  EXPECT_EQ(r->coverage[1].enabled, 4u);
  EXPECT_EQ(r->coverage[2].executed, 2u);
}

TEST(ObjectModel, ABooleanCheckFailsWithItsDefaultMessage) {
  ObjectModel<int> m("bounded", 0);
  m.action("inc").when([](const int& v) { return v < 4; }).run([](int& v) { ++v; });
  m.invariant("below_three").check([](const int& v) { return v < 3; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].message, "invariant 'below_three' does not hold");
  EXPECT_EQ(r->findings[0].steps.size(), 3u);
}

TEST(ObjectModel, ACheckReplacedLaterOrOnTheInvariantDirectlyIsWhatRuns) {
  {
    ObjectModel<int> m("rechecked", 0);
    m.action("inc").when([](const int& v) { return v < 4; }).run([](int& v) { ++v; });
    m.invariant("limit").check([](const int&) { return true; }).check([](const int& v) {
      return v < 2 ? Check::pass() : Check::fail("two or more");
    });
    Bfs bfs;
    auto r = explore(m, bfs);
    ASSERT_TRUE(r) << r.status().message();
    ASSERT_EQ(r->findings.size(), 1u);
    EXPECT_EQ(r->findings[0].message, "two or more");
  }
  {
    ObjectModel<int> m("direct_check", 0);
    m.action("inc").when([](const int& v) { return v < 4; }).run([](int& v) { ++v; });
    m.invariant("limit").check([](const int&) { return true; });
    m.invariants()[0].check = [](const World& w, const Context&) {
      return ObjectModel<int>::object(w) == 4 ? Check::fail("four") : Check::pass();
    };
    Bfs bfs;
    auto r = explore(m, bfs);
    ASSERT_TRUE(r) << r.status().message();
    ASSERT_EQ(r->findings.size(), 1u);
    EXPECT_EQ(r->findings[0].message, "four");
    EXPECT_EQ(r->findings[0].steps.size(), 4u);
  }
}

TEST(ObjectModel, ABooleanCheckThatThrowsFailsWithTheException) {
  ObjectModel<int> m("throwing_check", 0);
  m.action("inc").when([](const int& v) { return v < 2; }).run([](int& v) { ++v; });
  m.invariant("fragile").check([](const int& v) {
    if (v == 2) throw std::runtime_error("cannot look at two");
    return true;
  });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].message, "the check threw: cannot look at two");
}

TEST(ObjectModel, GuardsOfInterleavedActionsStayWithTheirAction) {
  ObjectModel<int> m("interleaved", 0);
  auto up = m.action("up");
  auto down = m.action("down");
  down.when([](const int& v) { return v > 0; }).run([](int& v) { --v; });
  up.when([](const int& v) { return v < 4; }).run([](int& v) { ++v; });
  up.when([](const int& v) { return v != 2; });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->stats.states, 3u);       // 0, 1, 2: up is disabled at 2
  EXPECT_EQ(r->stats.transitions, 4u);  // 0->1, 1->2, 1->0, 2->1
}

}  // namespace
}  // namespace prowl
