// Team: a fixed group of threads that run one job at a time, for the threaded breadth-first
// search (levels.cpp). The calling thread is member 0; members 1..n-1 are threads of their own,
// started once and parked between jobs. run(job) calls job(member) on every member at once and
// returns when all have returned, so everything a member wrote is visible to the caller after it
// and everything the caller wrote before it is visible to every member. A job's exception (from
// any member) is rethrown by run(). Private to the explorer. run() is not reentrant.
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
class SpinBarrier {
 public:
  explicit SpinBarrier(unsigned members) : members_(members) {}
  void arrive_and_wait();

 private:
  const unsigned members_;
  alignas(64) std::atomic<unsigned> arrived_{0};
  alignas(64) std::atomic<unsigned> generation_{0};
};

class Team {
 public:
  using Job = std::function<void(unsigned member)>;

  explicit Team(unsigned members);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  unsigned size() const { return members_; }
  void run(const Job& job);
  // Inside a job: waits until every member has called it (as many times), so that a job can have
  // phases without returning to the caller between them.
  void sync() { mid_.arrive_and_wait(); }

 private:
  void serve(unsigned member);
  void call(unsigned member);

  unsigned members_;
  SpinBarrier start_;
  SpinBarrier mid_;
  SpinBarrier done_;
  const Job* job_ = nullptr;  // nullptr while parked at the end: the members leave
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

}  // namespace prowl::detail
