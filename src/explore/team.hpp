// Team: a fixed group of threads that run one job at a time, for the threaded breadth-first
// search (levels.cpp). The calling thread is member 0; members 1..n-1 are threads of their own,
// started once and parked between jobs. run(job) calls job(member) on every member at once and
// returns when all have returned, so everything a member wrote is visible to the caller after it
// and everything the caller wrote before it is visible to every member. A job's exception (from
// any member) is rethrown by run(). Private to the explorer. run() is not reentrant.
#pragma once

#include <barrier>
#include <exception>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

namespace prowl::detail {

class Team {
 public:
  using Job = std::function<void(unsigned member)>;

  explicit Team(unsigned members);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  unsigned size() const { return members_; }
  void run(const Job& job);

 private:
  void serve(unsigned member);
  void call(unsigned member);

  unsigned members_;
  std::barrier<> start_;
  std::barrier<> done_;
  const Job* job_ = nullptr;  // nullptr while parked at the end: the members leave
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

}  // namespace prowl::detail
