// Graph::TablePart: states entered by parts, one after another and at once on threads (this file
// is also in the ThreadSanitizer build, where a part that wrote a slot of another part's range
// would be a data race), are all found again, and so are the known states entered again after
// the table grew.
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/explore/graph.hpp"

namespace prowl {
namespace {

// Fingerprints whose first slots crowd both sides of every boundary between `parts` parts (the
// last ones of each part, and the first ones of the next) and the end of the table, so that
// probes run past their part's slots. n of them, the first the initial state's.
std::vector<Fingerprint> crowded(std::size_t n, unsigned parts) {
  std::vector<Fingerprint> fps;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t k = 1 + i % parts;  // boundary k: the first fingerprint of part k
    const std::uint64_t first = ((k << 32) + parts - 1) / parts;
    const std::uint64_t top = (i / parts) % 2 == 0 ? first - 1 : first % (std::uint64_t{1} << 32);
    fps.push_back({(top << 32) | (i * 0x9e3779b9u & 0xffffffffu), i});
  }
  return fps;
}

// Enters states [first, end) of fps by `parts` parts, each on a thread of its own when
// `at_once`, then the states each part kept aside.
void enter_by_parts(Graph& g, const std::vector<Fingerprint>& fps, StateId first, StateId end,
                    std::size_t again, unsigned parts, bool at_once) {
  std::vector<Graph::TablePart> each;
  each.reserve(parts);
  for (unsigned k = 0; k < parts; ++k) each.emplace_back(g, k, parts);
  auto fill = [&](unsigned k) {
    Graph::TablePart& part = each[k];
    if (again > 0) part.enter_old(static_cast<StateId>(again));
    for (StateId s = first; s < end; ++s) {
      if (part.owns(fps[s])) part.enter(s, fps[s]);
    }
    part.finish();
  };
  if (at_once) {
    std::vector<std::thread> threads;
    for (unsigned k = 0; k < parts; ++k) threads.emplace_back(fill, k);
    for (std::thread& t : threads) t.join();
  } else {
    for (unsigned k = 0; k < parts; ++k) fill(k);
  }
  for (Graph::TablePart& part : each) part.enter_aside();
}

// Two levels: the first fits in the initial 1024 slots; the second makes the table grow (to 2,560
// slots for 1,500 states, not a power of two), so the known states are entered again by the parts.
void two_levels(unsigned parts, bool at_once) {
  constexpr StateId kFirst = 300;
  constexpr StateId kAll = 1500;
  Graph g(2);
  const std::vector<Fingerprint> fps = crowded(kAll, parts);
  g.add(fps[0], kNoState, kNoAction);
  ASSERT_EQ(g.append_level(kFirst, 1), 0u) << "1024 slots hold 301 states";
  for (StateId s = 1; s <= kFirst; ++s) g.set_state(s, fps[s], 0, s % 2);
  enter_by_parts(g, fps, 1, kFirst + 1, 0, parts, at_once);
  for (StateId s = 0; s <= kFirst; ++s) ASSERT_EQ(g.find(fps[s]), s) << parts << " parts";
  EXPECT_EQ(g.find({0x7fffffffull << 32, 7}), kNoState);

  const std::size_t again = g.append_level(kAll - kFirst - 1, 2);
  ASSERT_EQ(again, kFirst + 1u) << "the second level makes the table grow";
  for (StateId s = kFirst + 1; s < kAll; ++s) g.set_state(s, fps[s], s - kFirst, 1);
  enter_by_parts(g, fps, kFirst + 1, kAll, again, parts, at_once);
  for (StateId s = 0; s < kAll; ++s) ASSERT_EQ(g.find(fps[s]), s) << parts << " parts";
  EXPECT_EQ(g.parent(kFirst + 1), 1u);
  EXPECT_EQ(g.parent_action(kFirst + 1), 1u);
  EXPECT_EQ(g.depth(kAll - 1), 2u);
  EXPECT_EQ(g.depth(kFirst), 1u);
}

TEST(GraphParts, EntersLevelsByPartsOneAfterAnother) {
  for (unsigned parts : {1u, 2u, 3u, 4u}) two_levels(parts, false);
}

TEST(GraphParts, EntersLevelsByPartsOnThreadsAtOnce) {
  for (unsigned parts : {2u, 3u, 4u}) two_levels(parts, true);
}

}  // namespace
}  // namespace prowl
