// prowl::gtest: a model explored inside a TEST passes when nothing is found and fails with the
// console report when something is.
#include "prowl/gtest.hpp"

#include <stdlib.h>

#include <cstdint>
#include <string>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/object_model.hpp"

namespace prowl {
namespace {

struct Stack {
  std::int32_t size = 0;
};

// Push while below 3 and pop while above 0; the invariant believes the stack never fills.
ObjectModel<Stack> stack_model() {
  ObjectModel<Stack> model("stack", Stack{});
  model.action("push").when([](const Stack& s) { return s.size < 3; }).run([](Stack& s) {
    ++s.size;
  });
  model.action("pop").when([](const Stack& s) { return s.size > 0; }).run([](Stack& s) {
    --s.size;
  });
  model.invariant("never_full").check([](const Stack& s) { return s.size < 3; });
  return model;
}

// PROWL_SEED for one test, restored after it.
class Seed {
 public:
  explicit Seed(const char* value) {
    if (const char* old = getenv("PROWL_SEED")) old_ = old, had_ = true;
    value ? setenv("PROWL_SEED", value, 1) : unsetenv("PROWL_SEED");
  }
  ~Seed() { had_ ? setenv("PROWL_SEED", old_.c_str(), 1) : unsetenv("PROWL_SEED"); }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(ProwlGtest, PassesWhenNothingIsFound) {
  const Seed none(nullptr);
  PROWL_EXPECT_NO_FINDINGS(examples::make_counters_model(2, 3));
  const ::testing::AssertionResult r = gtest::no_findings(examples::make_counters_model(2, 3));
  EXPECT_TRUE(r);
  EXPECT_EQ(std::string(r.message()).rfind("counters: no findings; 9 states, 24 transitions", 0),
            0u)
      << r.message();
}

TEST(ProwlGtest, FailsWithTheConsoleReportAndHowToRerun) {
  const Seed none(nullptr);
  gtest::Settings settings;
  settings.options.seed = 7;
  const ::testing::AssertionResult r = gtest::no_findings(stack_model(), settings);
  ASSERT_FALSE(r);
  const std::string text = r.message();
  EXPECT_EQ(text.rfind("prowl found 1 finding exploring 'stack' with bfs (rerun this exploration "
                       "with PROWL_SEED=7):\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("never_full"), std::string::npos) << text;
  EXPECT_NE(text.find("1. push"), std::string::npos) << text;
  EXPECT_NE(text.find("3. push"), std::string::npos) << text;
  EXPECT_NE(text.find("stack: 1 finding;"), std::string::npos) << text;
  // And through the macro, as a failure of the test that uses it.
  EXPECT_NONFATAL_FAILURE(PROWL_EXPECT_NO_FINDINGS(stack_model(), settings),
                          "prowl found 1 finding exploring 'stack'");
}

TEST(ProwlGtest, TakesTheSeedFromProwlSeedAndRefusesABadOne) {
  gtest::Settings settings;
  settings.strategy = "random";
  settings.options.seed = 7;
  {
    const Seed seed("123");
    EXPECT_EQ(*gtest::seed_of(settings), 123u);
    const ::testing::AssertionResult r = gtest::no_findings(stack_model(), settings);
    EXPECT_NE(std::string(r.message())
                  .find("with random (rerun this exploration with "
                        "PROWL_SEED=123)"),
              std::string::npos)
        << r.message();
  }
  {
    const Seed none(nullptr);
    EXPECT_EQ(*gtest::seed_of(settings), 7u);
  }
  const Seed bad("12x");
  const ::testing::AssertionResult r = gtest::no_findings(stack_model(), settings);
  EXPECT_FALSE(r);
  EXPECT_EQ(std::string(r.message()),
            "prowl could not explore 'stack': PROWL_SEED='12x' is not a seed: give a whole number "
            "from 0 to 18446744073709551615, or unset it to use the test's own");
}

TEST(ProwlGtest, NamesABadStrategyAndCanRequireTheWholeSpace) {
  const Seed none(nullptr);
  gtest::Settings settings;
  settings.strategy = "bfs:depth=3";
  const ::testing::AssertionResult bad = gtest::no_findings(stack_model(), settings);
  EXPECT_FALSE(bad);
  EXPECT_EQ(std::string(bad.message()).rfind("prowl could not explore 'stack': ", 0), 0u);
  settings.strategy = "bfs";
  settings.options.max_steps = 5;
  settings.require_exhausted = true;
  const ::testing::AssertionResult cut =
      gtest::no_findings(examples::make_counters_model(2, 3), settings);
  EXPECT_FALSE(cut);
  EXPECT_EQ(std::string(cut.message())
                .rfind("prowl found nothing, but a limit ended the run "
                       "before it explored everything (counters: no "
                       "findings;",
                       0),
            0u)
      << cut.message();
  settings.require_exhausted = false;
  EXPECT_TRUE(gtest::no_findings(examples::make_counters_model(2, 3), settings));
}

}  // namespace
}  // namespace prowl
