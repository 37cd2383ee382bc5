#include "team.hpp"

namespace prowl::detail {

namespace {

// Tells the CPU this thread is spinning.
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// A waiting member spins (Team::kShortSpins: about 20 to 50 microseconds), then yields its CPU a
// few times (to a member that has not arrived yet, when there are more members than CPUs), then
// sleeps.
constexpr int kYields = 16;

int spins_for(unsigned members, unsigned cpus) {
  return members <= cpus ? Team::kLongSpins : Team::kShortSpins;
}

}  // namespace

void SpinBarrier::arrive_and_wait() {
  const unsigned generation = generation_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == members_) {
    // The last to arrive opens the barrier for this generation and resets it for the next.
    arrived_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    return;
  }
  for (int i = 0; i < spins_; ++i) {
    if (generation_.load(std::memory_order_acquire) != generation) return;
    relax();
  }
  for (int i = 0; i < kYields; ++i) {
    if (generation_.load(std::memory_order_acquire) != generation) return;
    std::this_thread::yield();
  }
  while (generation_.load(std::memory_order_acquire) == generation) {
    generation_.wait(generation, std::memory_order_acquire);
  }
}

Team::Team(unsigned members, unsigned cpus)
    : members_(members < 1 ? 1 : members),
      start_(members_, spins_for(members_, cpus)),
      mid_(members_, spins_for(members_, cpus)),
      done_(members_, spins_for(members_, cpus)),
      errors_(members_) {
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
    work(member);
    done_.arrive_and_wait();
  }
}

void Team::work(unsigned member) {
  call(*job_, member);
  if (then_ == nullptr) return;
  mid_.arrive_and_wait();  // reached even after a throw: the others wait for every member here
  if (!failed_.load(std::memory_order_relaxed)) call(*then_, member);
}

void Team::call(const Job& job, unsigned member) {
  try {
    job(member);
  } catch (...) {
    errors_[member] = std::current_exception();
    failed_.store(true, std::memory_order_relaxed);
  }
}

void Team::run(const Job& job, const Job* then) {
  job_ = &job;
  then_ = then;
  failed_.store(false, std::memory_order_relaxed);
  start_.arrive_and_wait();
  work(0);
  done_.arrive_and_wait();
  job_ = nullptr;
  then_ = nullptr;
  std::exception_ptr first;
  for (std::exception_ptr& e : errors_) {
    if (e && !first) first = e;
    e = nullptr;  // the others are dropped: the next run() starts clean
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace prowl::detail
