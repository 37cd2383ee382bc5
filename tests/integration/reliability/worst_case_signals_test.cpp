// Ctrl-C and SIGTERM during `prowl worst-case`: the search stops between two runs of the
// program, reports the sizes it searched (the one under way as interrupted, the rest not run),
// writes the JSON and the witness traces, and exits 128 + the signal.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "reliability.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;

class WorstCaseSignal : public ::testing::TestWithParam<int> {};

TEST_P(WorstCaseSignal, StopsBetweenRunsAndWritesWhatItFound) {
  const int sig = GetParam();
  ScratchDir dir("prowl-wc-signal");
  // insertion_sort at n = 10 has 3,628,800 paths: far more than a second's worth.
  ProcessRun run({kProwl, "worst-case", "insertion_sort", "--n", "3,10,11", "--json",
                  dir.file("r.json"), "--trace-dir", dir.file("traces")},
                 dir.path(), dir.path());
  std::this_thread::sleep_for(1500ms);
  run.signal(sig);
  EXPECT_EQ(run.code(20s), signal_exit_code(sig)) << run.err();
  EXPECT_NE(run.out().find("n=10: longest "), std::string::npos) << run.out();
  EXPECT_NE(run.out().find(", interrupted\n"), std::string::npos) << run.out();
  EXPECT_NE(run.out().find("n=11: not run (interrupted)"), std::string::npos) << run.out();
  const auto report = read_json(dir.file("r.json"));
  EXPECT_EQ(report["interrupted_by"], sig == SIGINT ? "SIGINT" : "SIGTERM");
  ASSERT_EQ(report["results"].size(), 2u);
  EXPECT_EQ(report["results"][0]["end"], "complete");
  EXPECT_EQ(report["results"][0]["paths"], 6);
  EXPECT_EQ(report["results"][1]["end"], "interrupted");
  EXPECT_TRUE(std::filesystem::exists(dir.file("traces/insertion_sort-n3.trace")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("traces/insertion_sort-n10.trace")));
}

INSTANTIATE_TEST_SUITE_P(IntAndTerm, WorstCaseSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return info.param == SIGINT ? "SIGINT" : "SIGTERM";
                         });

}  // namespace
}  // namespace prowl::testing
