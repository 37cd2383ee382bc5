// Team: every member runs each job once, the caller sees what they wrote, and an exception in a
// member comes back from run().
#include "explore/team.hpp"

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace prowl::detail {
namespace {

TEST(Team, EveryMemberRunsEveryJobOnceOnItsOwnThread) {
  Team team(3, /*cpus=*/64);  // long spins
  ASSERT_EQ(team.size(), 3u);
  std::vector<int> runs(3, 0);
  std::vector<std::thread::id> ids(3);
  for (int job = 0; job < 100; ++job) {
    team.run([&](unsigned m) {
      ++runs[m];  // each member writes only its own element; run() publishes them
      ids[m] = std::this_thread::get_id();
    });
  }
  EXPECT_EQ(runs, (std::vector<int>{100, 100, 100}));
  EXPECT_EQ(ids[0], std::this_thread::get_id());
  EXPECT_NE(ids[1], ids[0]);
  EXPECT_NE(ids[2], ids[0]);
  EXPECT_NE(ids[2], ids[1]);
}

TEST(Team, MembersShareWorkThroughAnAtomicCounter) {
  Team team(4, /*cpus=*/2);  // more members than CPUs: short spins
  std::vector<int> done(1000, 0);
  std::atomic<std::size_t> next{0};
  team.run([&](unsigned) {
    for (std::size_t i; (i = next++) < done.size();) ++done[i];
  });
  for (int d : done) ASSERT_EQ(d, 1);
}

TEST(Team, AMembersExceptionComesBackFromRun) {
  Team team(2, /*cpus=*/2);
  EXPECT_THROW(team.run([](unsigned m) {
    if (m == 1) throw std::runtime_error("member 1 failed");
  }),
               std::runtime_error);
  // The team still works afterwards.
  std::atomic<int> calls{0};
  team.run([&](unsigned) { ++calls; });
  EXPECT_EQ(calls.load(), 2);
}

TEST(Team, ASecondPhaseRunsOnEveryMemberAfterTheFirstOnAll) {
  Team team(3, /*cpus=*/1);
  std::vector<int> first(3, 0);
  std::vector<int> seen(3, -1);
  for (int job = 1; job <= 50; ++job) {
    team.run([&](unsigned m) { first[m] = job * 10 + static_cast<int>(m); },
             [&](unsigned m) { seen[m] = first[(m + 1) % 3]; });
    ASSERT_EQ(seen, (std::vector<int>{job * 10 + 1, job * 10 + 2, job * 10})) << "job " << job;
  }
}

TEST(Team, AFirstPhaseThatThrowsSkipsTheSecondAndLeavesNoMemberWaiting) {
  Team team(3, /*cpus=*/3);
  for (unsigned thrower : {0u, 2u}) {
    std::atomic<int> second{0};
    EXPECT_THROW(team.run(
                     [&](unsigned m) {
                       if (m == thrower) throw std::runtime_error("the first phase failed");
                     },
                     [&](unsigned) { ++second; }),
                 std::runtime_error);
    EXPECT_EQ(second.load(), 0) << "member " << thrower << " threw";
  }
  std::atomic<int> calls{0};
  team.run([&](unsigned) { ++calls; }, [&](unsigned) { ++calls; });
  EXPECT_EQ(calls.load(), 6);
}

// At each spin length, none included (every wait then yields and sleeps).
class SpinBarrierTest : public ::testing::TestWithParam<int> {};

TEST_P(SpinBarrierTest, NoMemberPassesBeforeEveryMemberArrived) {
  constexpr unsigned kMembers = 3;
  constexpr int kRounds = 2000;
  SpinBarrier barrier(kMembers, GetParam());
  std::atomic<int> arrived{0};
  std::atomic<int> early{0};
  std::vector<std::thread> threads;
  for (unsigned m = 0; m < kMembers; ++m) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        ++arrived;
        barrier.arrive_and_wait();
        // Every member of this round has arrived; none of the next round has passed this
        // barrier's next use yet, so at most this round's and the next's arrivals are counted.
        const int seen = arrived.load();
        if (seen < static_cast<int>(kMembers) * (r + 1)) ++early;
        barrier.arrive_and_wait();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(early.load(), 0);
  EXPECT_EQ(arrived.load(), static_cast<int>(kMembers) * kRounds);
}

INSTANTIATE_TEST_SUITE_P(Spins, SpinBarrierTest,
                         ::testing::Values(0, Team::kShortSpins, Team::kLongSpins));

TEST(Team, OneMemberIsTheCallerAlone) {
  Team team(1, /*cpus=*/1);
  std::thread::id id;
  team.run([&](unsigned m) {
    EXPECT_EQ(m, 0u);
    id = std::this_thread::get_id();
  });
  EXPECT_EQ(id, std::this_thread::get_id());
}

}  // namespace
}  // namespace prowl::detail
