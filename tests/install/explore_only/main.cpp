// Explores a two-counter model through the installed explorer alone; exit 0 when BFS finds 9
// states.
#include <array>
#include <cstdint>
#include <cstdio>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/bfs.hpp"

int main() {
  prowl::ObjectModel<std::array<std::uint8_t, 2>> model("explore_only", {});
  for (int i = 0; i < 2; ++i) {
    model.action("inc_" + std::to_string(i))
        .when([i](const std::array<std::uint8_t, 2>& c) { return c[i] < 2; })
        .run([i](std::array<std::uint8_t, 2>& c) { ++c[i]; });
  }
  prowl::Bfs bfs;
  auto report = prowl::explore(model, bfs);
  if (!report) return report.status().exit_code();
  std::printf("explore_only: %llu states\n", static_cast<unsigned long long>(report->stats.states));
  return report->stats.states == 9 ? 0 : 1;
}
