// Ctrl-C and SIGTERM during `prowl reach`: the search stops soon after the signal, even when Z3 is
// inside a call that does not look at its interrupt for seconds, and leaves its report, its JSON
// and the traces of what it found; the exit code is 128 + the signal.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "reliability.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::unique_ptr<ProcessRun> start_reach(const ScratchDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {kProwl, "reach"});
  return std::make_unique<ProcessRun>(std::move(args), dir.path(), dir.path());
}

std::string name_of(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

class ReachSignal : public ::testing::TestWithParam<int> {};

TEST_P(ReachSignal, StopsWithinTheGraceEvenInsideALongZ3Call) {
  const int sig = GetParam();
  ScratchDir dir("prowl-reach-signal");
  auto run = start_reach(dir, {kModels + "/reach-nonlinear.yaml", "--json", dir.file("r.json")});
  std::this_thread::sleep_for(2s);  // inside qe2's first image
  const Clock::time_point sent = Clock::now();
  run->signal(sig);
  EXPECT_EQ(run->code(20s), signal_exit_code(sig)) << run->err();
  // The grace is 2 s; without it this run went on for 6 s more.
  EXPECT_LT(Clock::now() - sent, 4s);
  EXPECT_NE(run->out().find("status: interrupted at depth 0"), std::string::npos) << run->out();
  EXPECT_NE(run->out().find("interrupted by " + name_of(sig)), std::string::npos) << run->out();
  const auto report = read_json(dir.file("r.json"));
  EXPECT_EQ(report["status"], "interrupted");
  EXPECT_EQ(report["model"], "nonlinear");
  EXPECT_EQ(report["checks"][0]["verdict"], "open");
}

TEST_P(ReachSignal, KeepsWhatItFoundAndItsTrace) {
  const int sig = GetParam();
  ScratchDir dir("prowl-reach-signal");
  auto run = start_reach(dir, {kModels + "/reach-unbounded-bug.yaml", "--all", "--max-depth", "0",
                               "--trace-dir", dir.file("traces"), "--json", dir.file("r.json")});
  std::this_thread::sleep_for(1500ms);  // well past depth 2, where x_below_4 breaks
  run->signal(sig);
  EXPECT_EQ(run->code(20s), signal_exit_code(sig)) << run->err();
  const auto report = read_json(dir.file("r.json"));
  EXPECT_EQ(report["status"], "violated");
  EXPECT_NE(report["reason"].get<std::string>().find("interrupted by " + name_of(sig)),
            std::string::npos)
      << report["reason"];
  EXPECT_GT(report["depth"].get<int>(), 2);
  ASSERT_EQ(report["checks"].size(), 2u);
  EXPECT_EQ(report["checks"][0]["verdict"], "violated");
  EXPECT_EQ(report["checks"][1]["verdict"], "open");
  const std::string trace = dir.file("traces/001-invariant-x_below_4.trace");
  ASSERT_TRUE(std::filesystem::exists(trace)) << run->out();
  std::filesystem::create_directories(dir.file("replay"));
  ProcessRun replay({kProwl, "replay", trace}, dir.file("replay"), dir.path());
  EXPECT_EQ(replay.code(20s), kExitFindings) << replay.out() << replay.err();
  EXPECT_NE(replay.out().find("the failure happens: invariant:x_below_4 after step 2"),
            std::string::npos)
      << replay.out();
}

INSTANTIATE_TEST_SUITE_P(IntAndTerm, ReachSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) { return name_of(info.param); });

}  // namespace
}  // namespace prowl::testing
