// Team: a fixed group of threads that run one job at a time, for the threaded breadth-first
// search (levels.cpp). The calling thread is member 0; members 1..n-1 are threads of their own,
// started once and parked between jobs. run(job) calls job(member) on every member at once and
// returns when all have returned, so everything a member wrote is visible to the caller after it
// and everything the caller wrote before it is visible to every member. run(job, then) has two
// phases: every member runs job, all wait until every member is done with it, then every member
// runs then (not at all when a member's job threw: no member is left waiting for one that
// failed). A job's exception (from any member) is rethrown by run(). Private to the explorer.
// run() is not reentrant.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

namespace prowl::detail {

// A barrier for the team's members that spins a while before it sleeps. A search's phases last
// from microseconds to milliseconds, and waking a sleeping thread costs an inter-processor
// interrupt (a VM exit on a virtual machine) at every phase: spinning first avoids most of them,
// and sleeping after it keeps an oversubscribed machine (more threads than CPUs) usable.
// `spins`: pause instructions before it yields (about 30 ns each).
class SpinBarrier {
 public:
  SpinBarrier(unsigned members, int spins) : members_(members), spins_(spins) {}
  void arrive_and_wait();

 private:
  const unsigned members_;
  const int spins_;
  alignas(64) std::atomic<unsigned> arrived_{0};
  alignas(64) std::atomic<unsigned> generation_{0};
};

class Team {
 public:
  using Job = std::function<void(unsigned member)>;

  // `cpus`: the CPUs the process may use. With no more members than that, a waiting member spins
  // about 8 times longer before it yields (kLongSpins: about 250 µs, the caller's work between
  // two jobs of a round); with more, kShortSpins.
  explicit Team(unsigned members, unsigned cpus);
  static constexpr int kShortSpins = 1 << 10;
  static constexpr int kLongSpins = 1 << 13;
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  unsigned size() const { return members_; }
  void run(const Job& job) { run(job, nullptr); }
  void run(const Job& job, const Job& then) { run(job, &then); }

 private:
  void run(const Job& job, const Job* then);
  void serve(unsigned member);
  // This member's part of the job (and of its second phase).
  void work(unsigned member);
  void call(const Job& job, unsigned member);

  unsigned members_;
  SpinBarrier start_;
  SpinBarrier mid_;
  SpinBarrier done_;
  const Job* job_ = nullptr;   // nullptr while parked at the end: the members leave
  const Job* then_ = nullptr;  // the second phase, or nullptr
  std::atomic<bool> failed_{false};
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

}  // namespace prowl::detail
