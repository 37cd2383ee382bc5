// ProcessSystem with share_cpu: the service and the thread that started it on one CPU, and that
// thread's CPUs given back at the end.
#include <sched.h>

#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "prowl/systems/process.hpp"

namespace prowl {
namespace {

using namespace std::chrono_literals;

// The CPUs a thread (0: the calling one) or a process may run on.
std::set<int> cpus_of(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(pid, sizeof set, &set), 0);
  std::set<int> out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) out.insert(cpu);
  }
  return out;
}

ProcessOptions sleeper(bool share_cpu) {
  ProcessOptions o;
  // Ready once it listens on {port}; stays until stopped.
  o.argv = {"python3", "-c",
            "import socket, sys, time\n"
            "s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n"
            "time.sleep(60)\n",
            "{port}"};
  o.ready_timeout = 15s;
  o.stop_timeout = 3s;
  o.share_cpu = share_cpu;
  return o;
}

TEST(ProcessSystemShareCpu, RunsTheServiceOnTheStartingThreadsCpuAndGivesTheCpusBackAtEnd) {
  const std::set<int> all = cpus_of(0);
  if (all.size() < 2) GTEST_SKIP() << "needs a thread allowed on two CPUs or more";
  // On a thread of its own, so that the test runner's thread is never pinned.
  std::thread([&] {
    ProcessSystem p("svc", sleeper(true));
    ASSERT_TRUE(p.begin()) << p.check_alive().message();
    const std::set<int> pinned = cpus_of(0);
    ASSERT_EQ(pinned.size(), 1u);
    EXPECT_TRUE(all.count(*pinned.begin()));
    EXPECT_EQ(cpus_of(p.pid()), pinned);
    // A restart stays on the same CPU.
    ASSERT_TRUE(p.reset()) << p.check_alive().message();
    EXPECT_EQ(cpus_of(p.pid()), pinned);
    EXPECT_EQ(cpus_of(0), pinned);
    ASSERT_TRUE(p.end());
    EXPECT_EQ(cpus_of(0), all);
  }).join();
}

TEST(ProcessSystemShareCpu, LeavesEveryCpuToBothWithoutIt) {
  const std::set<int> all = cpus_of(0);
  std::thread([&] {
    ProcessSystem p("svc", sleeper(false));
    ASSERT_TRUE(p.begin()) << p.check_alive().message();
    EXPECT_EQ(cpus_of(0), all);
    EXPECT_EQ(cpus_of(p.pid()), all);
    ASSERT_TRUE(p.end());
  }).join();
}

}  // namespace
}  // namespace prowl
