// Two counters in 0..2 explored inside a TEST: 9 states, nothing found.
#include <array>
#include <cstdint>
#include <string>

#include "prowl/explore/object_model.hpp"
#include "prowl/gtest.hpp"

TEST(Installed, ExploresTwoCounters) {
  prowl::ObjectModel<std::array<std::uint8_t, 2>> model("gtest_user", {});
  for (int i = 0; i < 2; ++i) {
    model.action("inc_" + std::to_string(i))
        .when([i](const std::array<std::uint8_t, 2>& c) { return c[i] < 2; })
        .run([i](std::array<std::uint8_t, 2>& c) { ++c[i]; });
  }
  prowl::gtest::Settings settings;
  settings.require_exhausted = true;
  PROWL_EXPECT_NO_FINDINGS(model, settings);
}
