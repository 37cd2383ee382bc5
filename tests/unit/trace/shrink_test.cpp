#include "prowl/trace/shrink.hpp"

#include <algorithm>

#include <gtest/gtest.h>

namespace prowl::trace {
namespace {

Step step(std::string action, std::vector<std::string> args = {},
          std::vector<std::string> returns = {}) {
  Step s;
  s.seed = 1;
  s.action = std::move(action);
  s.args = std::move(args);
  s.returns = std::move(returns);
  return s;
}

std::vector<std::string> actions(const Trace& t) {
  std::vector<std::string> out;
  for (const Step& s : t.steps) out.push_back(s.action);
  return out;
}

// Fails when "open" is followed later by "close" of the same handle, then "use" of it with an
// argument >= 5: a 3-call bug that only works when the handle bindings line up.
bool fails(const Trace& t) {
  std::vector<std::string> live, closed;
  for (const Step& s : t.steps) {
    if (s.action == "open") live.insert(live.end(), s.returns.begin(), s.returns.end());
    auto known = [&](const std::string& h) {
      return std::find(live.begin(), live.end(), h) != live.end();
    };
    if (s.action == "close" && !s.args.empty() && known(s.args[0])) closed.push_back(s.args[0]);
    if (s.action == "use" && s.args.size() == 2 &&
        std::find(closed.begin(), closed.end(), s.args[0]) != closed.end() &&
        std::stoi(s.args[1]) >= 5) {
      return true;
    }
  }
  return false;
}

TEST(ShrinkTrace, RemovesEveryStepTheFailureDoesNotNeed) {
  Trace t;
  t.header.model = "m";
  t.steps = {step("open", {}, {"h1"}),
             step("noise", {"1"}),
             step("open", {}, {"h2"}),
             step("use", {"h1", "3"}),
             step("noise"),
             step("close", {"h2"}),
             step("noise", {"9"}),
             step("use", {"h2", "40"}),
             step("noise")};
  t.steps[0].comments_before = {"dropped"};
  ASSERT_TRUE(fails(t));
  ShrinkStats stats;
  std::size_t calls = 0;
  Trace shrunk = shrink_trace(
      t,
      [&](const Trace& c) {
        ++calls;
        return fails(c);
      },
      {}, &stats);
  EXPECT_EQ(actions(shrunk), (std::vector<std::string>{"open", "close", "use"}));
  EXPECT_EQ(shrunk.steps[0].returns, std::vector<std::string>{"h2"});
  EXPECT_EQ(shrunk.steps[2].args, (std::vector<std::string>{"h2", "5"}));  // 40 -> 20 -> 10 -> 5
  EXPECT_TRUE(shrunk.steps[0].comments_before.empty());
  EXPECT_EQ(stats.steps_before, 9u);
  EXPECT_EQ(stats.steps_after, 3u);
  EXPECT_EQ(stats.candidates, calls);
  EXPECT_EQ(shrunk.header.model, "m");
}

TEST(ShrinkTrace, SubstitutesAnEarlierHandleSoItsProducerCanGo) {
  // The failure also needs some handle touched; the trace touches h1 but closes and uses h2.
  // Removing steps alone keeps both opens; using h1 throughout lets the second open go.
  auto fails_after_touch = [](const Trace& t) {
    bool touched = false;
    std::vector<std::string> live;
    for (const Step& s : t.steps) {
      if (s.action == "open") live.insert(live.end(), s.returns.begin(), s.returns.end());
      if (s.action == "touch" && std::find(live.begin(), live.end(), s.args[0]) != live.end()) {
        touched = true;
      }
    }
    return touched && fails(t);
  };
  Trace t;
  t.header.model = "m";
  t.steps = {step("open", {}, {"h1"}), step("touch", {"h1"}), step("open", {}, {"h2"}),
             step("close", {"h2"}), step("use", {"h2", "5"})};
  ASSERT_TRUE(fails_after_touch(t));
  Trace shrunk = shrink_trace(t, fails_after_touch);
  EXPECT_EQ(actions(shrunk), (std::vector<std::string>{"open", "touch", "close", "use"}));
  EXPECT_EQ(shrunk.steps[2].args, std::vector<std::string>{"h1"});
  EXPECT_EQ(shrunk.steps[3].args, (std::vector<std::string>{"h1", "5"}));
}

TEST(ShrinkTrace, ResultIsOneMinimal) {
  Trace t;
  t.header.model = "m";
  for (int i = 0; i < 40; ++i) t.steps.push_back(step("noise"));
  t.steps.insert(t.steps.begin() + 10, step("open", {}, {"h1"}));
  t.steps.insert(t.steps.begin() + 25, step("close", {"h1"}));
  t.steps.push_back(step("use", {"h1", "7"}));
  Trace shrunk = shrink_trace(t, fails);
  ASSERT_TRUE(fails(shrunk));
  for (std::size_t i = 0; i < shrunk.steps.size(); ++i) {
    Trace less = shrunk;
    less.steps.erase(less.steps.begin() + static_cast<std::ptrdiff_t>(i));
    EXPECT_FALSE(fails(less)) << "step " << i << " could go";
  }
}

TEST(ShrinkTrace, StopsAtTheCandidateBudget) {
  Trace t;
  t.header.model = "m";
  for (int i = 0; i < 20; ++i) t.steps.push_back(step("noise"));
  t.steps.push_back(step("open", {}, {"h1"}));
  t.steps.push_back(step("close", {"h1"}));
  t.steps.push_back(step("use", {"h1", "7"}));
  ShrinkStats stats;
  Trace shrunk = shrink_trace(t, fails, {3}, &stats);
  EXPECT_EQ(stats.candidates, 3u);
  EXPECT_TRUE(fails(shrunk));
  EXPECT_LT(shrunk.steps.size(), t.steps.size());
}

}  // namespace
}  // namespace prowl::trace
