#include "prowl/core/interrupt.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "prowl/core/exit_code.hpp"

namespace prowl {
namespace {

class Interrupts : public ::testing::Test {
 protected:
  void SetUp() override { clear_interrupts(); }
  void TearDown() override { clear_interrupts(); }
};

TEST_F(Interrupts, CountsSignalsAndRemembersTheFirst) {
  EXPECT_EQ(interrupts(), 0);
  EXPECT_EQ(interrupt_signal(), 0);
  request_interrupt(SIGTERM);
  request_interrupt(SIGINT);
  EXPECT_EQ(interrupts(), 2);
  EXPECT_EQ(interrupt_signal(), SIGTERM);
  EXPECT_EQ(interrupt_exit_code(), signal_exit_code(SIGTERM));
  clear_interrupts();
  EXPECT_EQ(interrupts(), 0);
}

TEST_F(Interrupts, NamesTheSignals) {
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGHUP), "SIGHUP");
  EXPECT_EQ(signal_name(SIGUSR1), "signal");
}

// In a forked child: the handlers count real signals; the third kills the registered process
// groups and ends the process with 128 + the first signal. This process is made a subreaper, so
// the stand-in service, orphaned when the child exits, is reparented here and its end can be seen.
TEST_F(Interrupts, TheThirdSignalKillsRegisteredGroupsAndExits) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  // Undone on the way out: a later test in this process whose grandchildren were reparented here
  // would find them among its own children (Isolate's did, when all tests ran in one process).
  struct NoSubreaper {
    ~NoSubreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  } undo;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const pid_t service = ::fork();
    if (service == 0) {
      ::setpgid(0, 0);
      for (;;) ::pause();
    }
    ::setpgid(service, service);
    install_interrupt_handlers();
    if (register_child_group(service) < 0) ::_exit(10);
    if (::write(fds[1], &service, sizeof service) != sizeof service) ::_exit(13);
    ::raise(SIGHUP);
    ::raise(SIGINT);
    if (interrupts() != 2 || interrupt_signal() != SIGHUP) ::_exit(11);
    ::raise(SIGTERM);  // does not return
    ::_exit(12);
  }
  ::close(fds[1]);
  pid_t service = 0;
  ASSERT_EQ(::read(fds[0], &service, sizeof service), static_cast<ssize_t>(sizeof service));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), signal_exit_code(SIGHUP));
  ASSERT_EQ(::waitpid(service, &status, 0), service);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST_F(Interrupts, GroupSlotsAreReused) {
  const int a = register_child_group(999999);
  ASSERT_GE(a, 0);
  unregister_child_group(a);
  EXPECT_EQ(register_child_group(999998), a);
  unregister_child_group(a);
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

using std::chrono::milliseconds;

TEST(RunWithGrace, WorkThatReturnsIsWaitedFor) {
  int value = 0;
  EXPECT_TRUE(run_with_grace([&value] { value = 7; }, [] { return false; }, milliseconds(50)));
  EXPECT_EQ(value, 7);
}

TEST(RunWithGrace, WorkThatHonoursTheStopWithinTheGraceReturns) {
  auto stop = std::make_shared<std::atomic<bool>>(false);
  std::atomic<int> polls{0};
  const bool returned = run_with_grace(
      [stop] {
        while (!stop->load()) std::this_thread::sleep_for(milliseconds(1));
      },
      [&] {
        // Asked to stop at the third poll; the work sees it at once.
        if (++polls == 3) stop->store(true);
        return polls >= 3;
      },
      milliseconds(5000));
  EXPECT_TRUE(returned);
  EXPECT_GE(polls.load(), 3);
}

TEST(RunWithGrace, WorkThatIgnoresTheStopIsLeftAfterTheGrace) {
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const auto start = std::chrono::steady_clock::now();
  const bool returned = run_with_grace(
      [release, finished] {
        while (!release->load()) std::this_thread::sleep_for(milliseconds(1));
        finished->store(true);
      },
      [] { return true; }, milliseconds(100));
  EXPECT_FALSE(returned);
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(100));
  EXPECT_FALSE(finished->load());  // still running, detached
  release->store(true);            // let it end before the test process does
  while (!finished->load()) std::this_thread::sleep_for(milliseconds(1));
}

TEST(RunWithGrace, AnExceptionOfTheWorkIsRethrown) {
  EXPECT_THROW(run_with_grace([] { throw std::runtime_error("boom"); }, [] { return false; },
                              milliseconds(50)),
               std::runtime_error);
}

}  // namespace
}  // namespace prowl
