#include "prowl/core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "prowl/core/exit_code.hpp"

namespace prowl {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kMaxGroups = 64;

std::atomic<int> g_count{0};
std::atomic<int> g_first{0};
std::atomic<bool> g_installed{false};
std::atomic<pid_t> g_groups[kMaxGroups];
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<pid_t>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

// Counts the signal; returns how many have arrived, this one included.
int count(int sig) {
  int expected = 0;
  g_first.compare_exchange_strong(expected, sig);
  return g_count.fetch_add(1) + 1;
}

void on_signal(int sig) {
  const int saved_errno = errno;
  if (count(sig) >= 3) {
    for (auto& slot : g_groups) {
      const pid_t pgid = slot.load();
      if (pgid > 0) ::kill(-pgid, SIGKILL);
    }
    static constexpr char kMessage[] =
        "\nprowl: third signal: stopping now without restoring; the next run recovers the "
        "databases\n";
    [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    ::_exit(signal_exit_code(g_first.load()));
  }
  errno = saved_errno;
}

}  // namespace

void install_interrupt_handlers() {
  if (g_installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_handler = on_signal;
  ::sigemptyset(&action.sa_mask);
  // Interrupted system calls resume: the run stops at its own safe points, not in the middle of a
  // read or a write.
  action.sa_flags = SA_RESTART;
  for (int sig : kSignals) ::sigaction(sig, &action, nullptr);
  // A report written to a pipe whose reader has gone (`prowl explore ... --report json:- | head`)
  // fails with EPIPE instead of killing prowl before it restores the systems. (Services prowl
  // starts get the default back before they exec.)
  ::signal(SIGPIPE, SIG_IGN);
}

int interrupts() { return g_count.load(std::memory_order_relaxed); }

int interrupt_signal() { return g_first.load(); }

int interrupt_exit_code() { return signal_exit_code(g_first.load()); }

std::string_view signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGKILL:
      return "SIGKILL";
    default:
      return "signal";
  }
}

void request_interrupt(int sig) { count(sig); }

void clear_interrupts() {
  g_count.store(0);
  g_first.store(0);
}

bool run_with_grace(std::function<void()> work, const std::function<bool()>& should_stop,
                    std::chrono::milliseconds grace) {
  // Shared with the thread, which may outlive this call.
  struct Shared {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    std::exception_ptr failure;
  };
  auto shared = std::make_shared<Shared>();
  std::thread thread([shared, work = std::move(work)] {
    std::exception_ptr failure;
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(shared->mutex);
    shared->failure = failure;
    shared->done = true;
    shared->finished.notify_all();
  });
  std::optional<std::chrono::steady_clock::time_point> asked;
  std::unique_lock lock(shared->mutex);
  while (!shared->done) {
    shared->finished.wait_for(lock, std::chrono::milliseconds(20));
    if (shared->done) break;
    const auto now = std::chrono::steady_clock::now();
    if (!asked && should_stop()) asked = now;
    if (asked && now - *asked >= grace) {
      thread.detach();
      return false;
    }
  }
  lock.unlock();
  thread.join();
  if (shared->failure) std::rethrow_exception(shared->failure);
  return true;
}

int register_child_group(pid_t pgid) {
  for (int i = 0; i < kMaxGroups; ++i) {
    pid_t expected = 0;
    if (g_groups[i].compare_exchange_strong(expected, pgid)) return i;
  }
  return -1;
}

void unregister_child_group(int slot) {
  if (slot >= 0 && slot < kMaxGroups) g_groups[slot].store(0);
}

}  // namespace prowl
