// What the threaded and the spread searches are tested with (threads_test.cpp, ranks_test.cpp):
// the grid model, and the check that two runs counted the same.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <utility>

#include <gtest/gtest.h>

#include "prowl/explore/object_model.hpp"
#include "prowl/explore/report.hpp"

namespace prowl::testing_models {

struct Grid {
  std::uint8_t x = 0;
  std::uint8_t y = 0;
  std::uint8_t z = 0;
  std::uint8_t spoiled = 0;
};

// Many states violate `sum_small`, reached by several last actions (inc_x, inc_y, swap onto a
// state already violating does not count); `glitch` changes the state and then throws, breaking
// `clean`; `x5z2` fails in states reached late, by many equally short paths.
inline ObjectModel<Grid> grid_model() {
  ObjectModel<Grid> m("grid", Grid{});
  m.action("inc_x").when([](const Grid& g) { return g.x < 7; }).run([](Grid& g) { ++g.x; });
  m.action("inc_y").when([](const Grid& g) { return g.y < 7; }).run([](Grid& g) { ++g.y; });
  m.action("inc_z").when([](const Grid& g) { return g.z < 3; }).run([](Grid& g) { ++g.z; });
  m.action("reset_x").when([](const Grid& g) { return g.x > 0; }).run([](Grid& g) { g.x = 0; });
  m.action("swap").run([](Grid& g) { std::swap(g.x, g.y); });
  m.action("glitch").when([](const Grid& g) { return g.x == 3; }).run([](Grid& g) {
    if (g.y == 2) {
      g.spoiled = 1;
      throw std::runtime_error("glitch at y=2");
    }
  });
  m.invariant("sum_small").check([](const Grid& g) { return g.x + g.y < 12; });
  m.invariant("x5z2").severity(Severity::kCritical).check([](const Grid& g) {
    return !(g.x == 5 && g.z == 2);
  });
  m.invariant("clean").check([](const Grid& g) { return g.spoiled == 0; });
  return m;
}

// The same termination, states, transitions, steps, depth and per-action coverage.
inline void expect_same_counts(const RunReport& want, const RunReport& got) {
  EXPECT_EQ(got.termination, want.termination);
  EXPECT_EQ(got.stats.states, want.stats.states);
  EXPECT_EQ(got.stats.transitions, want.stats.transitions);
  EXPECT_EQ(got.stats.steps, want.stats.steps);
  EXPECT_EQ(got.stats.max_depth, want.stats.max_depth);
  ASSERT_EQ(got.coverage.size(), want.coverage.size());
  for (std::size_t a = 0; a < want.coverage.size(); ++a) {
    SCOPED_TRACE(want.coverage[a].name);
    EXPECT_EQ(got.coverage[a].enabled, want.coverage[a].enabled);
    EXPECT_EQ(got.coverage[a].executed, want.coverage[a].executed);
    EXPECT_EQ(got.coverage[a].ok, want.coverage[a].ok);
    EXPECT_EQ(got.coverage[a].errors, want.coverage[a].errors);
  }
}

}  // namespace prowl::testing_models
