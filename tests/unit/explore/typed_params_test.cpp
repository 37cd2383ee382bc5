// Code of an action with parameters that takes the values as arguments (when(const T&, int),
// run(T&, std::string), ...; prowl/explore/typed_params.hpp): the same actions and states as code
// that reads the Args, the explorer's typed fast path, and misuse refused before anything changes.
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/bfs.hpp"

namespace prowl {
namespace {

using ::testing::StartsWith;

// Three counters 0..2 with a ceiling; a label counts who bumped last (1 alice, 2 bob).
struct Counters {
  std::array<std::int32_t, 3> c{};
  std::int32_t last = 0;
};

ObjectModel<Counters> typed_model() {
  ObjectModel<Counters> model("counters");
  model.action("bump")
      .param("i", range(0, 2))
      .param("who", one_of({"alice", "bob"}))
      .when([](const Counters& s, std::size_t i, const std::string&) { return s.c[i] < 2; })
      .run([](Counters& s, std::size_t i, const std::string& who) {
        ++s.c[i];
        s.last = who == "alice" ? 1 : 2;
      });
  model.action("reset")
      .param("i", range(0, 2))
      .when([](const Counters& s, int i) { return s.c[static_cast<std::size_t>(i)] > 0; })
      .run([](Counters& s, Context& ctx, std::int64_t i) {
        s.c[static_cast<std::size_t>(i)] = 0;
        ctx.set("reset", std::to_string(i));
      });
  return model;
}

ObjectModel<Counters> args_model() {
  ObjectModel<Counters> model("counters");
  model.action("bump")
      .param("i", range(0, 2))
      .param("who", one_of({"alice", "bob"}))
      .when([](const Counters& s, const Args& a) { return s.c[a.get<std::size_t>("i")] < 2; })
      .run([](Counters& s, const Args& a) {
        ++s.c[a.get<std::size_t>("i")];
        s.last = a.get<std::string>("who") == "alice" ? 1 : 2;
      });
  model.action("reset")
      .param("i", range(0, 2))
      .when([](const Counters& s, const Args& a) { return s.c[a.get<std::size_t>("i")] > 0; })
      .run([](Counters& s, Context& ctx, const Args& a) {
        s.c[a.get<std::size_t>("i")] = 0;
        ctx.set("reset", std::to_string(a.get<int>("i")));
      });
  return model;
}

TEST(TypedParams, ValuesAsArgumentsExploreExactlyWhatCodeReadingArgsDoes) {
  const ObjectModel<Counters> typed = typed_model();
  ASSERT_TRUE(typed.validate()) << typed.validate().message();
  ASSERT_EQ(typed.actions().size(), 9u);
  EXPECT_EQ(typed.actions()[1].name, "bump(i=0, who=bob)");
  EXPECT_EQ(typed.actions()[8].name, "reset(i=2)");
  // The precondition of a given combination has a typed copy, with its values bound once.
  std::vector<TypedGuard> guards;
  EXPECT_TRUE(typed.typed_guards(0, guards));
  EXPECT_EQ(guards.size(), 1u);
  EXPECT_TRUE(static_cast<bool>(typed.typed_run(0)));
  EXPECT_FALSE(static_cast<bool>(typed.typed_run(6)));  // run() takes the Context
  Bfs a, b;
  auto with_values = explore(typed, a);
  auto with_args = explore(args_model(), b);
  ASSERT_TRUE(with_values) << with_values.status().message();
  ASSERT_TRUE(with_args) << with_args.status().message();
  EXPECT_EQ(with_values->termination, Termination::kExhausted);
  // The start, then each counter 0..2 (27) with who bumped last (2): a reset keeps the label.
  EXPECT_EQ(with_values->stats.states, 1u + 27 * 2);
  EXPECT_EQ(with_values->stats.states, with_args->stats.states);
  EXPECT_EQ(with_values->stats.transitions, with_args->stats.transitions);
}

TEST(TypedParams, StateGivenValuesAreConvertedInEachState) {
  struct Bag {
    std::set<int> ids;
    int next = 0;
  };
  ObjectModel<Bag> model("bag", Bag{}, [](const Bag& b, Hasher& h) {
    h.add(b.next);
    for (int id : b.ids) h.add(id);
  });
  model.action("add").when([](const Bag& b) { return b.next < 3; }).run([](Bag& b) {
    b.ids.insert(b.next++);
  });
  std::set<int> removed;
  model.action("remove")
      .param("id", from_state([](const Bag& b) { return b.ids; }, 3))
      .when([](const Bag&, int id) { return id != 1; })
      .run([&removed](Bag& b, int id) {
        removed.insert(id);
        b.ids.erase(id);
      });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kExhausted);
  // Item 1, once added, never goes: every removal was of 0 or 2.
  EXPECT_EQ(removed, (std::set<int>{0, 2}));
  // next 0..3, with the subsets of the added ids that still hold 1 once it was added:
  // next=0: {} ; 1: {0},{} ; 2: {0,1},{1} ; 3: {0,1,2},{0,1},{1,2},{1}.
  EXPECT_EQ(r->stats.states, 1u + 2 + 2 + 4);
}

// A state-given value the code cannot take: the run fails, naming the action; the precondition
// lets it go ahead to say so.
TEST(TypedParams, AStateGivenValueOfTheWrongKindFailsTheRunAndNamesTheAction) {
  struct Tags {
    int added = 0;
  };
  ObjectModel<Tags> model("tags", Tags{}, [](const Tags& t, Hasher& h) { h.add(t.added); });
  model.action("add").when([](const Tags& t) { return t.added < 1; }).run([](Tags& t) {
    ++t.added;
  });
  model.action("drop")
      .param("tag", from_state(
                        [](const Tags& t) {
                          return t.added > 0 ? std::vector<std::string>{"red"}
                                             : std::vector<std::string>{};
                        },
                        1))
      .when([](const Tags&, int) { return false; })
      .run([](Tags&, int) {});
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kActionError);
  EXPECT_THAT(r->findings[0].message,
              StartsWith("action 'drop': run() cannot take the value as its argument: "
                         "Args::get(\"tag\"): the value red is not a number"));
}

TEST(TypedParams, RunMayReturnBoolOrOutcomeAndFunctionPointersWork) {
  ObjectModel<Counters> model("counters");
  model.action("bump").param("i", range(0, 2)).run([](Counters& s, int i) {
    const auto at = static_cast<std::size_t>(i);
    if (i == 2 || s.c[at] >= 1) return false;  // refused: rejected, not an error
    ++s.c[at];
    return true;
  });
  bool (*guard)(const Counters&, long) noexcept = [](const Counters& s, long i) noexcept {
    return s.c[static_cast<std::size_t>(i)] > 0;
  };
  model.action("reset").param("i", range(0, 1)).when(guard).run([](Counters& s, int i) noexcept {
    s.c[static_cast<std::size_t>(i)] = 0;
    return Outcome::ok();
  });
  // Only code that returns nothing has the typed fast path for its run.
  EXPECT_FALSE(static_cast<bool>(model.typed_run(0)));
  std::vector<TypedGuard> guards;
  EXPECT_TRUE(model.typed_guards(3, guards));
  EXPECT_EQ(guards.size(), 1u);
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  // c[0] and c[1] in 0..1; c[2] stays 0.
  EXPECT_EQ(r->stats.states, 4u);
  EXPECT_EQ(r->coverage[2].name, "bump(i=2)");
  EXPECT_EQ(r->coverage[2].ok, 0u);
}

TEST(TypedParams, MisuseIsRefusedBeforeAnythingChanges) {
  ObjectModel<Counters> model("counters");
  auto bump = model.action("bump");
  bump.param("i", range(0, 2));
  // One value per parameter.
  try {
    bump.when([](const Counters&, int, int) { return true; });
    ADD_FAILURE() << "two values for one parameter";
  } catch (const LogicError& e) {
    EXPECT_THAT(e.what(),
                StartsWith("action 'bump': when() takes 2 value(s) but the action has 1 "
                           "parameter(s); give it one argument per parameter, in the order of "
                           "param() ("));
  }
  // Of the kind the domain has: the values are numbers.
  EXPECT_THROW(bump.run([](Counters&, const std::string&) {}), LogicError);
  EXPECT_EQ(model.actions().size(), 3u);
  for (const Action& a : model.actions()) {
    EXPECT_TRUE(a.preconditions.empty()) << a.name;
    EXPECT_FALSE(static_cast<bool>(a.run)) << a.name;
  }
  // A value that does not fit the argument's type, beside a state-given parameter too.
  ObjectModel<Counters> wide("wide");
  try {
    wide.action("big")
        .param("n", one_of({1, 300}))
        .param("k", from_state([](const Counters& s) { return std::vector<int>{s.last}; }, 1))
        .run([](Counters&, std::int8_t, int) {});
    ADD_FAILURE() << "300 fits no int8";
  } catch (const LogicError& e) {
    EXPECT_STREQ(e.what(),
                 "action 'big': run() cannot take the value as its argument: Args::get(\"n\"): "
                 "the value 300 does not fit the type asked for");
  }
  // Every param() before the code that takes the values.
  bump.run([](Counters& s, int i) { ++s.c[static_cast<std::size_t>(i)]; });
  try {
    bump.param("j", range(0, 1));
    ADD_FAILURE() << "a parameter after run(T&, int)";
  } catch (const LogicError& e) {
    EXPECT_THAT(e.what(),
                StartsWith("action 'bump': parameter 'j' comes after a when() or run() that "
                           "takes the parameters' values as arguments; declare every param() "
                           "first ("));
  }
  EXPECT_EQ(model.actions().size(), 3u);
  // Values need parameters.
  EXPECT_THROW(model.action("plain").run([](Counters&, int) {}), LogicError);
}

}  // namespace
}  // namespace prowl
