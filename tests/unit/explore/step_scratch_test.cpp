// StepScratch: each step is handed on one step late, in order, from a copy that no later step
// has overwritten; a step that did not run hands on the one before it.
#include "explore/step_scratch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/core/ids.hpp"

namespace prowl::detail {
namespace {

struct Handed {
  std::string bytes;
  StateId source;
  ActionId action;
  bool operator==(const Handed&) const = default;
};

// What done() was given, with the bytes read when it was called.
struct Recorder {
  std::size_t size;
  std::vector<Handed> got;
  void operator()(const unsigned char* bytes, const Pair& step) {
    got.push_back(
        {std::string(reinterpret_cast<const char*>(bytes), size), step.state, step.action});
  }
};

TEST(StepScratch, HandsEachStepOnOneStepLateInTheOrderTheyRan) {
  const unsigned char src[4] = {'a', 'a', 'a', 'a'};
  StepScratch<Pair> scratch(4);
  Recorder done{4, {}};
  for (ActionId a = 0; a < 4; ++a) {
    unsigned char* at = scratch.fresh(src);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(at), 4), "aaaa");
    at[a] = static_cast<unsigned char>('0' + a);  // the step: a narrow store, as an action's
    scratch.hold(at, {7, a}, done);
    ASSERT_EQ(done.got.size(), a) << "step " << a << " is held, the ones before it handed on";
  }
  scratch.release(done);
  const std::vector<Handed> want = {{"0aaa", 7, 0}, {"a1aa", 7, 1}, {"aa2a", 7, 2}, {"aaa3", 7, 3}};
  EXPECT_EQ(done.got, want);
  scratch.release(done);  // nothing held: nothing more
  EXPECT_EQ(done.got.size(), 4u);
}

TEST(StepScratch, TheNextStepRunsOnTheOtherCopyWhileOneIsHeld) {
  const unsigned char first[2] = {'x', 'y'};
  const unsigned char second[2] = {'p', 'q'};
  StepScratch<Pair> scratch(2);
  Recorder done{2, {}};
  unsigned char* a = scratch.fresh(first);
  a[0] = 'X';
  scratch.hold(a, {1, 10}, done);
  unsigned char* b = scratch.fresh(second);
  EXPECT_NE(a, b);
  b[1] = 'Q';
  scratch.hold(b, {2, 20}, done);
  ASSERT_EQ(done.got.size(), 1u);
  EXPECT_EQ(done.got[0], (Handed{"Xy", 1, 10}));  // the second step's copy left it as it was
  unsigned char* c = scratch.fresh(first);
  EXPECT_EQ(c, a) << "the copies alternate";
  scratch.hold(c, {3, 30}, done);
  scratch.release(done);
  const std::vector<Handed> want = {{"Xy", 1, 10}, {"pQ", 2, 20}, {"xy", 3, 30}};
  EXPECT_EQ(done.got, want);
}

TEST(StepScratch, AStepThatDidNotRunHandsOnTheHeldOneAndIsNotHandedOn) {
  const unsigned char src[3] = {'s', 't', 'u'};
  StepScratch<Pair> scratch(3);
  Recorder done{3, {}};
  unsigned char* a = scratch.fresh(src);
  a[2] = 'U';
  scratch.hold(a, {4, 0}, done);
  (void)scratch.fresh(src);  // step (4, 1) threw: released, not held
  scratch.release(done);
  ASSERT_EQ(done.got.size(), 1u);
  EXPECT_EQ(done.got[0], (Handed{"stU", 4, 0}));
  unsigned char* c = scratch.fresh(src);
  c[0] = 'S';
  scratch.hold(c, {4, 2}, done);
  scratch.release(done);
  const std::vector<Handed> want = {{"stU", 4, 0}, {"Stu", 4, 2}};
  EXPECT_EQ(done.got, want);
}

TEST(StepScratch, CopiesAreAlignedForAnyObject) {
  const std::vector<unsigned char> src(200, 1);
  for (std::size_t size : {1u, 7u, 8u, 63u, 64u, 65u, 200u}) {
    StepScratch<Pair> scratch(size);
    for (int i = 0; i < 2; ++i) {
      const unsigned char* at = scratch.fresh(src.data());
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(at) % 64, 0u) << size;
    }
  }
}

}  // namespace
}  // namespace prowl::detail
