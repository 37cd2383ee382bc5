// Parameters whose values the state gives (prowl::from_state): places, names with values,
// replay by value, and the failures of a domain that cannot be worked out.
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/explore/replay.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"

namespace prowl {
namespace {

// Items with ids the shelf hands out (0, 1, 2), as a service's database would.
struct Shelf {
  std::set<int> ids;
  int next = 0;
  bool broken = false;
  void add() { ids.insert(next++); }
  // The bug: taking out item 2 while item 0 is still there breaks the shelf.
  void remove(int id) {
    if (id == 2 && ids.count(0) > 0) broken = true;
    ids.erase(id);
  }
  bool operator==(const Shelf&) const = default;
};

void prowl_observe(const Shelf& s, Hasher& h) {
  h.add(s.next);
  h.add(s.broken);
  for (int id : s.ids) h.add(id);
}

// With `buggy`, remove() has the bug and the invariant is checked; without, ids just go.
ObjectModel<Shelf> shelf_model(std::size_t places = 3, bool buggy = true) {
  ObjectModel<Shelf> model("shelf");
  model.action("add").when([](const Shelf& s) { return s.next < 3; }).run([](Shelf& s) {
    s.add();
  });
  model.action("remove")
      .param("id", from_state([](const Shelf& s) { return s.ids; }, places))
      .run([buggy](Shelf& s, const Args& a) {
        if (buggy) {
          s.remove(a.get<int>("id"));
        } else {
          s.ids.erase(a.get<int>("id"));
        }
      });
  if (buggy) model.invariant("not_broken").check([](const Shelf& s) { return !s.broken; });
  return model;
}

std::vector<std::string> actions_of(const Finding& f) {
  std::vector<std::string> out;
  for (const TraceStep& s : f.steps) out.push_back(s.action);
  return out;
}

TEST(StateDomain, AnActionStandsForOnePlacePerValueTheStateCanHave) {
  const ObjectModel<Shelf> model = shelf_model();
  ASSERT_TRUE(model.validate()) << model.validate().message();
  std::vector<std::string> names;
  for (const Action& a : model.actions()) names.push_back(a.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"add", "remove(id=#0)", "remove(id=#1)", "remove(id=#2)"}));
  EXPECT_TRUE(model.has_state_domains());
  EXPECT_TRUE(model.may_name("remove(id=7)"));
  EXPECT_TRUE(model.may_name("remove(id=#1)"));
  EXPECT_FALSE(model.may_name("removed(id=7)"));
  EXPECT_FALSE(model.may_name("remove(id=7"));
}

TEST(StateDomain, ExhaustiveStrategiesRunEveryValueOfEveryStateAndStayExhausted) {
  for (bool depth_first : {false, true}) {
    Bfs bfs;
    Dfs dfs;
    Strategy& s = depth_first ? static_cast<Strategy&>(dfs) : bfs;
    const ObjectModel<Shelf> model = shelf_model(3, /*buggy=*/false);
    auto r = explore(model, s);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->termination, Termination::kExhausted);
    // next = 0..3 and any subset of the ids handed out: 1 + 2 + 4 + 8 states. Transitions: an
    // add from each state with next < 3 (7), a remove per id held (0 + 1 + 4 + 12).
    EXPECT_EQ(r->stats.states, 15u);
    EXPECT_EQ(r->stats.transitions, 7u + 17u);
    EXPECT_TRUE(r->findings.empty());
  }
}

TEST(StateDomain, AFindingNamesTheValuesItsStepsRanWithAndReplaysByValue) {
  Bfs bfs;
  auto r = explore(shelf_model(), bfs);
  ASSERT_TRUE(r) << r.status().message();
  // Item 2 taken out from place #2 (all three in) and from place #1 (item 1 gone first): one
  // finding, the shortest, each step named with its value.
  ASSERT_EQ(r->findings.size(), 1u);
  const Finding& f = r->findings[0];
  EXPECT_TRUE(f.confirmed);
  EXPECT_EQ(f.name, "not_broken");
  // Item 2 is at place #2 here; the step says which item.
  EXPECT_EQ(actions_of(f), (std::vector<std::string>{"add", "add", "add", "remove(id=2)"}));
  EXPECT_EQ(f.action, "remove(id=2)");

  // Replayed by value: after item 1 goes, item 2 is at place #1, and the same step takes it.
  const ObjectModel<Shelf> model = shelf_model();
  auto world = model.make_world();
  ASSERT_TRUE(world);
  ASSERT_TRUE((*world)->begin());
  Replayer replayer(model, **world);
  const std::vector<TraceStep> steps = {{"add", 1, {}, {}},
                                        {"add", 2, {}, {}},
                                        {"add", 3, {}, {}},
                                        {"remove(id=1)", 4, {}, {}},
                                        {"remove(id=2)", 5, {}, {}}};
  auto replayed = replayer.run(steps);
  ASSERT_TRUE(replayed) << replayed.status().message();
  EXPECT_TRUE(replayed->error.empty()) << replayed->error;
  ASSERT_EQ(replayed->failures.size(), 1u);
  EXPECT_EQ(replayed->failures[0].name, "not_broken");
  EXPECT_EQ(replayed->failures[0].after_steps, 5u);
  ASSERT_EQ(replayed->executed.size(), 5u);
  EXPECT_EQ(replayed->executed[4].action, "remove(id=2)");
  // A place replays too, and is named with the value it held.
  auto by_place =
      replayer.run(std::vector<TraceStep>{{"add", 1, {}, {}}, {"remove(id=#0)", 2, {}, {}}});
  ASSERT_TRUE(by_place);
  ASSERT_EQ(by_place->executed.size(), 2u);
  EXPECT_EQ(by_place->executed[1].action, "remove(id=0)");
  // A value the state does not have is refused, with the step.
  auto absent =
      replayer.run(std::vector<TraceStep>{{"add", 1, {}, {}}, {"remove(id=7)", 2, {}, {}}});
  ASSERT_TRUE(absent);
  EXPECT_EQ(absent->error, "action 'remove(id=7)' has no such value in this state");
  EXPECT_EQ(absent->error_step, 2u);
  auto unknown = replayer.run(std::vector<TraceStep>{{"take(id=0)", 1, {}, {}}});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->error, "unknown action 'take(id=0)'");
  (void)(*world)->end();
}

TEST(StateDomain, PreconditionsSeeTheStatesValue) {
  // Item 0 is never taken out.
  ObjectModel<Shelf> guarded("shelf");
  guarded.action("add").when([](const Shelf& s) { return s.next < 3; }).run([](Shelf& s) {
    s.add();
  });
  guarded.action("remove")
      .param("id", from_state(
                       [](const Shelf& s) { return std::vector<int>(s.ids.begin(), s.ids.end()); }))
      .when([](const Shelf&, const Args& a) { return a.get<int>("id") != 0; })
      .run([](Shelf& s, const Args& a) { s.ids.erase(a.get<int>("id")); });
  ASSERT_EQ(guarded.actions().size(), 1u + 8);  // 8 places by default
  Bfs bfs;
  auto r = explore(guarded, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kExhausted);
  // Item 0, once in, stays: {}, then {0} and what 1 and 2 add to it (1 + 1 + 2 + 4 states).
  // Adds from the 4 states with next < 3; removes of 1 and 2 ({0,1} twice, {0,2}, {0,1,2} 2).
  EXPECT_EQ(r->stats.states, 8u);
  EXPECT_EQ(r->stats.transitions, 4u + 5u);
}

TEST(StateDomain, AStateWithMoreValuesThanPlacesFailsOnceAndSaysWhatToDo) {
  const ObjectModel<Shelf> model = shelf_model(/*places=*/2, /*buggy=*/false);
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  const Finding& f = r->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.name, "remove(id=#0)");
  EXPECT_EQ(f.message,
            "parameter 'id' of 'remove' (from_state) has 3 values in this state, more than its 2 "
            "places: give it at least 3 places");
  EXPECT_EQ(actions_of(f), (std::vector<std::string>{"add", "add", "add", "remove(id=#0)"}));
}

TEST(StateDomain, APreconditionDoesNotHideAStateWithTooManyValues) {
  ObjectModel<Shelf> model("shelf");
  model.action("add").when([](const Shelf& s) { return s.next < 3; }).run([](Shelf& s) {
    s.add();
  });
  model.action("remove")
      .param("id", from_state([](const Shelf& s) { return s.ids; }, 2))
      .param("twice", range(0, 1))
      .when([](const Shelf&, const Args&) { return true; })
      .run([](Shelf& s, const Args& a) { s.ids.erase(a.get<int>("id")); });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  // Once, at combination 0, whatever the other parameter.
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].name, "remove(id=#0, twice=0)");
  EXPECT_EQ(actions_of(r->findings[0]),
            (std::vector<std::string>{"add", "add", "add", "remove(id=#0, twice=0)"}));
}

TEST(StateDomain, AnActionErrorIsNamedWithItsValueAndReplaysEitherWay) {
  ObjectModel<Shelf> model("shelf");
  model.action("add").when([](const Shelf& s) { return s.next < 3; }).run([](Shelf& s) {
    s.add();
  });
  model.action("remove")
      .param("id", from_state([](const Shelf& s) { return s.ids; }, 3))
      .run([](Shelf& s, const Args& a) {
        if (a.get<int>("id") == 1 && s.ids.count(0) == 0) throw std::runtime_error("lost item 0");
        s.ids.erase(a.get<int>("id"));
      });
  for (bool confirm : {true, false}) {
    Options options;
    options.confirm = confirm;
    Bfs bfs;
    auto r = explore(model, bfs, options);
    ASSERT_TRUE(r) << r.status().message();
    ASSERT_EQ(r->findings.size(), 1u) << confirm;
    const Finding& f = r->findings[0];
    EXPECT_EQ(f.kind, FindingKind::kActionError);
    EXPECT_EQ(f.confirmed, confirm);
    // Item 0 out first (place #0), then item 1, which is at place #0 too by then. Unconfirmed,
    // the failing step keeps the place the exploration saw it at; the steps before it are named
    // by the last replay, which fills in their outcomes.
    EXPECT_EQ(f.name, confirm ? "remove(id=1)" : "remove(id=#0)");
    EXPECT_EQ(actions_of(f),
              (std::vector<std::string>{"add", "add", "remove(id=0)",
                                        confirm ? "remove(id=1)" : "remove(id=#0)"}));
    // Either way, a replay of the steps fails as the finding says.
    auto world = model.make_world();
    ASSERT_TRUE(world);
    ASSERT_TRUE((*world)->begin());
    Replayer replayer(model, **world);
    auto replayed = replayer.run(f.steps);
    ASSERT_TRUE(replayed);
    EXPECT_NE(replayed->find(f.kind, f.name, f.steps.size()), nullptr) << f.name;
    (void)(*world)->end();
  }
}

TEST(StateDomain, AThrowingDomainFailsTheStepThatNeedsIt) {
  ObjectModel<Shelf> model("shelf");
  model.action("add").when([](const Shelf& s) { return s.next < 2; }).run([](Shelf& s) {
    s.add();
  });
  model.action("remove")
      .param("id", from_state([](const Shelf& s) {
               if (s.ids.size() == 2) throw std::runtime_error("no listing of two");
               return s.ids;
             }))
      .run([](Shelf& s, const Args& a) { s.remove(a.get<int>("id")); });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].message,
            "the values of parameter 'id' of 'remove' (from_state) could not be worked out: no "
            "listing of two");
  EXPECT_EQ(actions_of(r->findings[0]), (std::vector<std::string>{"add", "add", "remove(id=#0)"}));
}

TEST(StateDomain, MisuseIsALogicError) {
  EXPECT_THROW(state_domain(
                   0,
                   [](const World&, const Context&) {
                     return Result<std::vector<ParamValue>>(std::vector<ParamValue>{});
                   },
                   "x"),
               LogicError);
  EXPECT_THROW(state_domain(
                   257,
                   [](const World&, const Context&) {
                     return Result<std::vector<ParamValue>>(std::vector<ParamValue>{});
                   },
                   "x"),
               LogicError);
  EXPECT_THROW(state_domain(2, nullptr, "x"), LogicError);
  Domain half = range(0, 1);
  half.slots = 2;  // places without a way to work them out
  EXPECT_THROW(check_domain(half), LogicError);
  // Values of a range, each once, in order.
  EXPECT_EQ(to_param_values(std::vector<int>{3, 1, 3}), (std::vector<ParamValue>{3, 1}));
  EXPECT_EQ(to_param_values(std::vector<std::string>{"b", "a"}),
            (std::vector<ParamValue>{std::string("b"), std::string("a")}));
}

}  // namespace
}  // namespace prowl
