// Actions with parameters (prowl/explore/params.hpp): one action per combination of values,
// named with them, enumerated by exhaustive strategies, drawn by random ones, replayed by name and
// shrunk toward each domain's first value.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"
#include "prowl/strategy/random.hpp"

namespace prowl {
namespace {

// A cache of capacity 2 over keys 0..2: keys and values, most recent first (-1: empty).
struct Cache {
  std::array<std::int32_t, 2> keys{-1, -1}, values{0, 0};
  void put(int k, int v) {
    if (keys[0] == k) {
      values[0] = v;
      return;
    }
    if (keys[1] != k)
      keys[1] = keys[0], values[1] = values[0];
    else
      keys[1] = keys[0], values[1] = values[0];
    keys[0] = k;
    values[0] = v;
  }
  void get(int k) {
    if (keys[1] == k) {
      std::swap(keys[0], keys[1]);
      std::swap(values[0], values[1]);
    }
  }
};

ObjectModel<Cache> with_params() {
  ObjectModel<Cache> model("cache");
  model.action("put")
      .param("key", one_of({0, 1, 2}))
      .param("value", range(0, 1))
      .run([](Cache& c, const Args& a) { c.put(a.get<int>("key"), a.get<int>("value")); });
  model.action("get").param("key", range(0, 2)).run([](Cache& c, const Args& a) {
    c.get(a.get<int>("key"));
  });
  return model;
}

ObjectModel<Cache> by_hand() {
  ObjectModel<Cache> model("cache");
  for (int k = 0; k < 3; ++k) {
    for (int v = 0; v < 2; ++v) {
      model.action("put_" + std::to_string(k) + std::to_string(v)).run([k, v](Cache& c) {
        c.put(k, v);
      });
    }
  }
  for (int k = 0; k < 3; ++k)
    model.action("get_" + std::to_string(k)).run([k](Cache& c) { c.get(k); });
  return model;
}

TEST(Params, AnActionStandsForOneActionPerCombinationNamedWithItsValues) {
  const ObjectModel<Cache> model = with_params();
  ASSERT_TRUE(model.validate()) << model.validate().message();
  std::vector<std::string> names;
  for (const Action& a : model.actions()) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"put(key=0, value=0)", "put(key=0, value=1)",
                                             "put(key=1, value=0)", "put(key=1, value=1)",
                                             "put(key=2, value=0)", "put(key=2, value=1)",
                                             "get(key=0)", "get(key=1)", "get(key=2)"}));
  ASSERT_EQ(model.families().size(), 2u);
  EXPECT_EQ(model.families()[0].count(), 6u);
  EXPECT_EQ(model.families()[1].first, 6u);
  EXPECT_EQ(model.actions()[model.variant(3, 0, 2)].name, "put(key=2, value=1)");
  EXPECT_EQ(model.actions()[model.variant(3, 1, 0)].name, "put(key=1, value=0)");
  // Texts are shown as they are, or quoted when they hold anything but letters, digits, _ . -.
  ObjectModel<Cache> login("login");
  login.action("login")
      .param("user", one_of({"alice", "bob smith", "a\"b"}))
      .run([](Cache&, const Args& a) { EXPECT_FALSE(a.get<std::string>("user").empty()); });
  EXPECT_EQ(login.actions()[0].name, "login(user=alice)");
  EXPECT_EQ(login.actions()[1].name, "login(user=\"bob smith\")");
  EXPECT_EQ(login.actions()[2].name, "login(user=\"a\\\"b\")");
}

TEST(Params, ExhaustiveStrategiesExploreExactlyWhatHandWrittenActionsDo) {
  for (bool depth_first : {false, true}) {
    Bfs bfs_a, bfs_b;
    Dfs dfs_a, dfs_b;
    Strategy& a = depth_first ? static_cast<Strategy&>(dfs_a) : bfs_a;
    Strategy& b = depth_first ? static_cast<Strategy&>(dfs_b) : bfs_b;
    auto params = explore(with_params(), a);
    auto hand = explore(by_hand(), b);
    ASSERT_TRUE(params) << params.status().message();
    ASSERT_TRUE(hand);
    EXPECT_EQ(params->termination, Termination::kExhausted);
    // Empty, one entry (6), two of different keys (3 · 2 keys, 2 · 2 values): 31 states; every
    // action is enabled everywhere.
    EXPECT_EQ(params->stats.states, 31u);
    EXPECT_EQ(params->stats.states, hand->stats.states);
    EXPECT_EQ(params->stats.transitions, 31u * 9);
    EXPECT_EQ(params->stats.transitions, hand->stats.transitions);
  }
}

TEST(Params, PreconditionsSeeTheArgumentsAndSettersReachEveryCombination) {
  ObjectModel<Cache> model("cache");
  model.action("put")
      .param("key", range(0, 2))
      .when([](const Cache& c, const Args& a) { return a.get<int>("key") != c.keys[0]; })
      .when([](const Cache& c) { return c.keys[1] < 0; })  // without Args too
      .run([](Cache& c, const Args& a) { c.put(a.get<int>("key"), 1); })
      .weight(3)
      .max_per_path(1);
  ASSERT_EQ(model.actions().size(), 3u);
  for (const Action& a : model.actions()) {
    EXPECT_EQ(a.weight, 3) << a.name;
    EXPECT_EQ(a.max_per_path, 1u) << a.name;
    EXPECT_EQ(a.preconditions.size(), 2u) << a.name;
  }
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  // From empty: put(0|1|2) (3 states); from [k]: put of another key, each once per path (6).
  EXPECT_EQ(r->stats.states, 1u + 3 + 6);
  EXPECT_EQ(r->coverage[0].name, "put(key=0)");
  EXPECT_EQ(r->coverage[0].enabled, 3u);  // empty, [1], [2]
}

TEST(Params, RandomDrawsReplayAndTheShrinkerMovesValuesTowardTheFirst) {
  struct Total {
    std::int32_t total = 0;
  };
  ObjectModel<Total> model("total");
  model.action("add")
      .param("n", range(0, 20))
      .when([](const Total& t) { return t.total == 0; })
      .run([](Total& t, const Args& a) { t.total += a.get<int>("n"); });
  model.action("clear").when([](const Total& t) { return t.total > 0; }).run([](Total& t) {
    t.total = 0;
  });
  model.invariant("below_ten").check([](const Total& t) { return t.total < 10; });
  Options options;
  options.stop_on_first = true;
  options.seed = 4;
  RandomStrategy plain_random(4);
  auto plain = explore(model, plain_random, options);
  ASSERT_TRUE(plain) << plain.status().message();
  ASSERT_EQ(plain->findings.size(), 1u);
  EXPECT_TRUE(plain->findings[0].confirmed);  // replayed by name from the initial state
  const std::string drawn = plain->findings[0].steps.back().action;
  EXPECT_NE(drawn, "add(n=10)") << "the draw already found the simplest; pick another seed";
  options.shrink = true;
  RandomStrategy random(4);
  auto shrunk = explore(model, random, options);
  ASSERT_TRUE(shrunk);
  ASSERT_EQ(shrunk->findings.size(), 1u);
  ASSERT_EQ(shrunk->findings[0].steps.size(), 1u);
  EXPECT_EQ(shrunk->findings[0].steps[0].action, "add(n=10)");
  EXPECT_TRUE(shrunk->findings[0].confirmed);
}

TEST(Params, AFamilyChangedAfterTheNextActionIsRefusedAndTheModelStaysAsItWas) {
  ObjectModel<Cache> model("cache");
  auto put = model.action("put").param("key", range(0, 2));
  put.when([](const Cache& c, const Args& a) { return a.get<int>("key") != c.keys[0]; })
      .run([](Cache& c, const Args& a) { c.put(a.get<int>("key"), 1); });
  model.action("clear").when([](const Cache& c) { return c.keys[0] >= 0; }).run([](Cache& c) {
    c = Cache{};
  });
  Bfs before;
  auto a = explore(model, before);
  ASSERT_TRUE(a);
  EXPECT_THROW(put.param("value", range(0, 1)), LogicError);
  EXPECT_THROW(put.weight(2), LogicError);
  ASSERT_EQ(model.actions().size(), 4u);
  EXPECT_EQ(model.actions()[3].name, "clear");
  EXPECT_EQ(model.actions()[0].weight, 1);
  Bfs after;
  auto b = explore(model, after);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->stats.states, a->stats.states);
  EXPECT_EQ(b->stats.transitions, a->stats.transitions);
  EXPECT_EQ(b->coverage[3].enabled, a->coverage[3].enabled);  // clear kept its own guard
}

TEST(Params, MisuseIsALogicErrorThatSaysWhatToDo) {
  ObjectModel<Cache> model("cache");
  // Parameters come first.
  auto late = model.action("late");
  late.run([](Cache&) {});
  EXPECT_THROW(late.param("k", range(0, 1)), LogicError);
  // Args need parameters.
  EXPECT_THROW(model.action("plain").run([](Cache&, const Args&) {}), LogicError);
  EXPECT_THROW(model.action("twice").param("k", range(0, 1)).param("k", range(0, 1)), LogicError);
  EXPECT_THROW(model.action("huge").param("a", range(0, 999)).param("b", range(0, 999)),
               LogicError);
  EXPECT_THROW(model.action("empty").param("k", Domain{}), LogicError);
  EXPECT_THROW(
      model.action("same").param("k", Domain{{ParamValue(std::int64_t{1}), ParamValue("1")}}),
      LogicError);
  EXPECT_THROW(range(3, 2), LogicError);
  EXPECT_THROW(one_of({1, 1}), LogicError);
  const Args args({{"key", ParamValue(std::int64_t{300})}});
  EXPECT_EQ(args.get<int>("key"), 300);
  try {
    (void)args.get<std::int8_t>("key");
    ADD_FAILURE() << "300 fits no int8";
  } catch (const LogicError& e) {
    EXPECT_STREQ(e.what(), "Args::get(\"key\"): the value 300 does not fit the type asked for");
  }
  try {
    (void)args.get<int>("value");
    ADD_FAILURE();
  } catch (const LogicError& e) {
    EXPECT_STREQ(e.what(), "Args::get(\"value\"): the action has no such parameter (it has: key)");
  }
  EXPECT_THROW((void)args.get<std::string>("key"), LogicError);
  EXPECT_EQ(args.get<std::int64_t>(0), 300);  // by position
  try {
    (void)args.get<int>(std::size_t{1});
    ADD_FAILURE();
  } catch (const LogicError& e) {
    EXPECT_STREQ(e.what(), "Args::get(1): the action has 1 parameter");
  }
}

}  // namespace
}  // namespace prowl
