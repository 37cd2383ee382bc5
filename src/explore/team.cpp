#include "team.hpp"

namespace prowl::detail {

Team::Team(unsigned members)
    : members_(members < 1 ? 1 : members), start_(members_), done_(members_), errors_(members_) {
  threads_.reserve(members_ - 1);
  for (unsigned m = 1; m < members_; ++m) threads_.emplace_back([this, m] { serve(m); });
}

Team::~Team() {
  job_ = nullptr;
  start_.arrive_and_wait();  // every member wakes, sees no job, and leaves
  for (std::thread& t : threads_) t.join();
}

void Team::serve(unsigned member) {
  for (;;) {
    start_.arrive_and_wait();
    if (job_ == nullptr) return;
    call(member);
    done_.arrive_and_wait();
  }
}

void Team::call(unsigned member) {
  try {
    (*job_)(member);
  } catch (...) {
    errors_[member] = std::current_exception();
  }
}

void Team::run(const Job& job) {
  job_ = &job;
  start_.arrive_and_wait();
  call(0);
  done_.arrive_and_wait();
  job_ = nullptr;
  for (std::exception_ptr& e : errors_) {
    if (e) std::rethrow_exception(std::exchange(e, nullptr));
  }
}

}  // namespace prowl::detail
