// Ctrl-C and SIGTERM during `prowl train` and a run_main program's `train`: training stops between
// two updates, says so, exits 128 + the signal, and leaves the output file as it was (a policy
// from an earlier run is kept, not replaced by a half-trained one).
#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "reliability.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `short_run` (it writes `policy`), then `long_run` on the same file, signals it after 1.5 s,
// and checks that it stopped between updates and left the first run's policy as it was.
void expect_stopped_keeping_the_old_policy(const std::vector<std::string>& short_run,
                                           const std::vector<std::string>& long_run,
                                           const ScratchDir& dir, const std::string& policy,
                                           int sig) {
  ProcessRun first(short_run, dir.path(), dir.path());
  ASSERT_EQ(first.code(60s), 0) << first.err();
  const std::string before = contents(policy);
  ASSERT_NE(before.find("episodes=32\n"), std::string::npos) << before;
  ProcessRun run(long_run, dir.path(), dir.path());
  std::this_thread::sleep_for(1500ms);
  run.signal(sig);
  EXPECT_EQ(run.code(20s), signal_exit_code(sig)) << run.err();
  const std::size_t at = run.out().find("interrupted after ");
  ASSERT_NE(at, std::string::npos) << run.out();
  EXPECT_GT(std::stol(run.out().substr(at + 18)), 0) << run.out();  // it was training
  EXPECT_NE(run.out().find(" updates: " + policy + " not written\n"), std::string::npos)
      << run.out();
  EXPECT_EQ(contents(policy), before);
}

class TrainSignal : public ::testing::TestWithParam<int> {};

TEST_P(TrainSignal, StopsBetweenUpdatesAndKeepsTheOldPolicy) {
  ScratchDir dir("prowl-train-signal");
  const std::string policy = dir.file("maze.policy");
  // Two million episodes: far more than a second's worth.
  expect_stopped_keeping_the_old_policy(
      {kProwl, "train", "--env", "maze6", "--episodes", "32", "-o", policy},
      {kProwl, "train", "--env", "maze6", "--episodes", "2000000", "--seed", "2", "-o", policy},
      dir, policy, GetParam());
}

TEST_P(TrainSignal, StopsAProgramsTrainingOnItsModelAndKeepsTheOldPolicy) {
  ScratchDir dir("prowl-program-train-signal");
  const std::string policy = dir.file("counters.policy");
  const std::string counters = COUNTERS_BIN;
  expect_stopped_keeping_the_old_policy(
      {counters, "train", "--k", "2", "--n", "3", "--episodes", "32", "-o", policy},
      {counters, "train", "--k", "3", "--n", "4", "--episodes", "2000000", "--seed", "2", "-o",
       policy},
      dir, policy, GetParam());
}

INSTANTIATE_TEST_SUITE_P(IntAndTerm, TrainSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return info.param == SIGINT ? "SIGINT" : "SIGTERM";
                         });

}  // namespace
}  // namespace prowl::testing
