#include "prowl/fsm/isolate.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "prowl/core/exit_code.hpp"
#include "prowl/fsm/fuzz_main.hpp"
#include "prowl/fsm/fuzzer.hpp"
#include "prowl/fsm/machine.hpp"

namespace prowl::fsm {
namespace {

namespace fs = std::filesystem;

// A signal's default action, whatever handler a sanitizer installed.
[[noreturn]] void die_of(int signal) {
  ::signal(signal, SIG_DFL);
  ::raise(signal);
  std::_Exit(99);
}

bool no_children_left() {
  errno = 0;
  return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

TEST(Isolate, ReturnsWhatTheChildReturnedAndCapturesItsOutput) {
  const fs::path out = fs::temp_directory_path() / ("prowl-isolate-" + std::to_string(::getpid()));
  IsolateOptions options;
  options.output_path = out.string();
  auto r = run_isolated(
      [] {
        std::printf("to stdout\n");
        std::fprintf(stderr, "to stderr\n");
        return std::string("payload\nwith lines");
      },
      options);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->end, Isolated::End::kExited);
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->payload, "payload\nwith lines");
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "to stdout\nto stderr\n");
  fs::remove(out);
  EXPECT_TRUE(no_children_left());
}

TEST(Isolate, ClassifiesASegfaultAnAbortAndAnExit) {
  IsolateOptions options;
  options.output_path = "/dev/null";
  auto segv = run_isolated([]() -> std::string { die_of(SIGSEGV); }, options);
  ASSERT_TRUE(segv);
  EXPECT_EQ(segv->end, Isolated::End::kSignaled);
  EXPECT_EQ(signal_name(segv->signal), "SIGSEGV");
  auto abrt = run_isolated([]() -> std::string { std::abort(); }, options);
  ASSERT_TRUE(abrt);
  EXPECT_EQ(abrt->end, Isolated::End::kSignaled);
  EXPECT_EQ(signal_name(abrt->signal), "SIGABRT");
  auto exited = run_isolated([]() -> std::string { std::_Exit(3); }, options);
  ASSERT_TRUE(exited);
  EXPECT_EQ(exited->end, Isolated::End::kExited);
  EXPECT_EQ(exited->exit_code, 3);
  EXPECT_EQ(exited->payload, "");
  EXPECT_TRUE(no_children_left());
}

TEST(Isolate, KillsAHangingChildAndItsProcessGroupAtTheTimeout) {
  IsolateOptions options;
  options.timeout_seconds = 0.3;
  options.output_path = "/dev/null";
  auto r = run_isolated(
      []() -> std::string {
        if (::fork() == 0) {
          for (;;) ::pause();  // a grandchild in the same process group
        }
        for (;;) ::pause();
      },
      options);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, Isolated::End::kTimedOut);
  EXPECT_GE(r->seconds, 0.3);
  EXPECT_LT(r->seconds, 5.0);
  EXPECT_TRUE(no_children_left());
}

TEST(Isolate, StopsWhenInterrupted) {
  IsolateOptions options;
  options.output_path = "/dev/null";
  int polls = 0;
  options.interrupted = [&] { return ++polls > 2; };
  auto r = run_isolated(
      []() -> std::string {
        for (;;) ::pause();
      },
      options);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, Isolated::End::kInterrupted);
  EXPECT_TRUE(no_children_left());
}

TEST(Isolate, NamesSignals) {
  EXPECT_EQ(signal_name(SIGBUS), "SIGBUS");
  EXPECT_EQ(signal_name(SIGFPE), "SIGFPE");
  EXPECT_EQ(signal_name(63), "signal 63");
}

// A target whose one action, chosen by weight, segfaults, aborts, hangs, prints and exits, or does
// nothing.
struct Nothing {};
Machine<Nothing> hazardous() {
  Machine<Nothing> m("hazards");
  auto s = m.state("s");
  auto end = m.final_state("end");
  auto act = [&](const char* name, double w, std::function<Outcome()> body) {
    auto a = m.action(name, [body](Nothing&, Handles&, Rng&, const Args&) { return body(); });
    m.transition(s, end, weight(w), a);
  };
  act("fine", 10, [] { return Outcome::ok(); });
  act("segv", 3, []() -> Outcome { die_of(SIGSEGV); });
  act("abort", 3, []() -> Outcome {
    std::fprintf(stderr, "hazard.cpp:12: check failed at 0xdeadbeef\n");
    std::abort();
  });
  act("hang", 1, []() -> Outcome {
    for (;;) ::pause();
  });
  // _Exit: a sanitizer's leak check at exit() would print and take time of its own.
  act("quit", 1, []() -> Outcome { std::_Exit(4); });
  return m;
}

TEST(Fuzzer, SurvivesSegfaultsAbortsHangsAndExitsAndBucketsEach) {
  Machine<Nothing> m = hazardous();
  ASSERT_TRUE(m.check());
  const fs::path out = fs::temp_directory_path() / ("prowl-hazards-" + std::to_string(::getpid()));
  fs::remove_all(out);
  FuzzOptions options;
  options.seed = 5;
  options.runs = 60;
  options.run_timeout = 0.3;
  options.out_dir = out.string();
  options.quiet = true;
  std::ostringstream log;
  auto summary = fuzz(m.core(), {"hazards", {}}, options, nullptr, log);
  ASSERT_TRUE(summary) << summary.status().message();
  EXPECT_EQ(summary->runs, 60u);
  EXPECT_EQ(summary->ok + summary->crashes + summary->timeouts + summary->findings, 60u);
  EXPECT_EQ(summary->findings, 0u);
  std::map<std::string, std::uint64_t> count;
  for (const Bucket& b : summary->buckets) count[b.signature] = b.count;
  ASSERT_EQ(count.size(), 4u) << format_summary(*summary);
  EXPECT_EQ(count.count("crash in segv: SIGSEGV"), 1u);
  EXPECT_EQ(count.count("crash in abort: SIGABRT: hazard.cpp:N: check failed at 0x?"), 1u);
  EXPECT_EQ(count.count("timeout in hang"), 1u);
  EXPECT_EQ(count.count("crash in quit: exit code N before the run ended"), 1u);
  EXPECT_EQ(count["timeout in hang"], summary->timeouts);
  for (const Bucket& b : summary->buckets) {
    std::ifstream trace(fs::path(b.dir) / "trace");
    std::stringstream text;
    text << trace.rdbuf();
    EXPECT_NE(text.str().find("prowl-trace 1 hazards seed="), std::string::npos) << b.dir;
    EXPECT_TRUE(fs::exists(fs::path(b.dir) / "output"));
  }
  std::ifstream abort_output(fs::path(out) / "002-crash" / "output");
  EXPECT_TRUE(no_children_left());
  fs::remove_all(out);
}

TEST(Fuzzer, Ctrl_C_EndsTheSessionAndDiscardsTheRunInFlight) {
  Machine<Nothing> m("interrupt");
  auto s = m.state("s");
  auto end = m.final_state("end");
  auto stop = m.action("stop", [](Nothing&, Handles&, Rng&, const Args&) -> Outcome {
    ::kill(::getppid(), SIGINT);  // as the terminal would on Ctrl-C
    for (;;) ::pause();
  });
  m.transition(s, end, weight(1), stop);
  ASSERT_TRUE(m.check());
  const fs::path out = fs::temp_directory_path() / ("prowl-int-" + std::to_string(::getpid()));
  FuzzOptions options;
  options.runs = 10;
  options.out_dir = out.string();
  std::ostringstream log;
  auto summary = fuzz(m.core(), {"interrupt", {}}, options, nullptr, log);
  ASSERT_TRUE(summary);
  EXPECT_TRUE(summary->interrupted);
  EXPECT_EQ(summary->runs, 0u);
  EXPECT_TRUE(summary->buckets.empty());
  EXPECT_EQ(format_summary(*summary).substr(0, 28), "interrupted after 0 runs in ");
  EXPECT_TRUE(no_children_left());
  fs::remove_all(out);
}

// The signal the replayed action sends its parent (a global: actions are plain functions).
int g_replay_signal = SIGINT;

class FuzzMainSignal : public ::testing::TestWithParam<int> {};

TEST_P(FuzzMainSignal, DuringAReplayKillsTheChildAndExits128PlusTheSignal) {
  g_replay_signal = GetParam();
  Machine<Nothing> m("interrupt");
  auto s = m.state("s");
  auto end = m.final_state("end");
  auto stop = m.action("stop", [](Nothing&, Handles&, Rng&, const Args&) -> Outcome {
    ::kill(::getppid(), g_replay_signal);  // as the terminal's Ctrl-C, or a CI job's timeout
    for (;;) ::pause();
  });
  m.transition(s, end, weight(1), stop);
  const fs::path trace = fs::temp_directory_path() / ("prowl-int-" + std::to_string(::getpid()));
  std::ofstream(trace) << "prowl-trace 1 interrupt\n1 stop\n";
  std::string program = "interrupt", command = "replay", path = trace.string();
  char* argv[] = {program.data(), command.data(), path.data(), nullptr};
  testing::internal::CaptureStdout();
  const int code = fuzz_main(m, 3, argv);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, GetParam() == SIGINT ? 130 : 143);
  EXPECT_NE(out.find("interrupted\n"), std::string::npos) << out;
  EXPECT_TRUE(no_children_left());
  fs::remove(trace);
}

INSTANTIATE_TEST_SUITE_P(Signals, FuzzMainSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return std::string(info.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

}  // namespace
}  // namespace prowl::fsm
