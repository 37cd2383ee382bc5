#include "prowl/fsm/isolate.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "prowl/core/exit_code.hpp"

namespace prowl::fsm {
namespace {

constexpr std::size_t kMaxPayload = 64 * 1024;

void write_all(int fd, const std::string& data) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Output buffered in this process would otherwise be written twice, once by each process after a
// fork, or lost when the child ends with _exit.
void flush_all_output() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

// A descriptor that becomes readable when the child exits (Linux 5.3+), or -1.
int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

[[noreturn]] void run_child(const std::function<std::string()>& fn, int result_fd, int out_fd) {
  ::setpgid(0, 0);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  if (out_fd >= 0) {
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(out_fd, STDERR_FILENO);
    ::close(out_fd);
    // Line by line, so what the code printed before a crash is not lost in a buffer. (glibc
    // ignores _IOLBF without a buffer once the stream has allocated its own.)
    static char line_buffer[BUFSIZ];
    std::setvbuf(stdout, line_buffer, _IOLBF, sizeof line_buffer);
  }
  int code = 0;
  std::string payload;
  try {
    payload = fn();
  } catch (const std::exception& e) {
    std::cerr << "prowl: the isolated function threw: " << e.what() << std::endl;
    code = kExitInternal;
  } catch (...) {
    code = kExitInternal;
  }
  if (payload.size() > kMaxPayload) payload.resize(kMaxPayload);
  write_all(result_fd, payload);
  flush_all_output();
  ::_exit(code);
}

// Where the child's output goes: a duplicate of options.output_fd, the output file opened, or -1
// (inherited). Closes the result pipe `fds` when the file cannot be opened.
Result<int> open_output(const IsolateOptions& options, const int fds[2]) {
  if (options.output_fd >= 0) return ::fcntl(options.output_fd, F_DUPFD_CLOEXEC, 0);
  if (options.output_path.empty()) return -1;
  const int out_fd =
      ::open(options.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Status::environment(fmt::format("{}: cannot write the run's output: {}",
                                           options.output_path, std::strerror(err)));
  }
  return out_fd;
}

// The parent's side of a forked child: reads its result from the pipe while waiting for it to
// exit, to be interrupted or to run out of time, and reaps it in every case.
class ChildWatch {
 public:
  ChildWatch(pid_t pid, int pipe_fd, std::chrono::steady_clock::time_point start)
      : pid_(pid), pipe_fd_(pipe_fd), pidfd_(open_pidfd(pid)), start_(start) {}

  void wait(const IsolateOptions& options) {
    while (!reaped_) {
      if (reap_if_exited()) break;
      if (options.interrupted && options.interrupted()) {
        kill_child(Isolated::End::kInterrupted);
        break;
      }
      const double left = options.timeout_seconds - elapsed();
      if (options.timeout_seconds > 0 && left <= 0) {
        kill_child(Isolated::End::kTimedOut);
        break;
      }
      int wait_ms = pidfd_ >= 0 ? 100 : 2;
      if (options.timeout_seconds > 0) {
        wait_ms = std::min(wait_ms, static_cast<int>(left * 1000) + 1);
      }
      wait_for_output_or_exit(wait_ms);
    }
  }

  // Reads what is left of the result, closes the descriptors and says how the child ended.
  // REQUIRES: wait() returned.
  Isolated finish() {
    if (pipe_open_) drain();
    ::close(pipe_fd_);
    if (pidfd_ >= 0) ::close(pidfd_);
    result_.seconds = elapsed();
    if (result_.end == Isolated::End::kExited) {
      if (WIFSIGNALED(status_)) {
        result_.end = Isolated::End::kSignaled;
        result_.signal = WTERMSIG(status_);
      } else if (WIFEXITED(status_)) {
        result_.exit_code = WEXITSTATUS(status_);
      }
    }
    if (result_.end != Isolated::End::kExited) result_.payload.clear();
    return std::move(result_);
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  // WNOWAIT leaves the exited child a zombie, so its pid (and process group id) cannot be reused
  // before the rest of its group is killed.
  bool reap_if_exited() {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid != pid_) {
      return false;
    }
    ::kill(-pid_, SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    return true;
  }

  void kill_child(Isolated::End end) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    result_.end = end;
  }

  // The child's exit is seen on the pidfd; without one, waitid is polled at a short interval.
  void wait_for_output_or_exit(int wait_ms) {
    pollfd polls[2];
    nfds_t count = 0;
    if (pipe_open_) polls[count++] = {pipe_fd_, POLLIN, 0};
    if (pidfd_ >= 0) polls[count++] = {pidfd_, POLLIN, 0};
    if (count == 0) {
      ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
      return;
    }
    const int ready = ::poll(polls, count, wait_ms);
    if (ready > 0 && pipe_open_) drain();
  }

  void drain() {
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(pipe_fd_, buffer, sizeof buffer);
      if (n > 0) {
        if (result_.payload.size() < kMaxPayload) {
          result_.payload.append(buffer, static_cast<std::size_t>(n));
        }
        continue;
      }
      if (n == 0) pipe_open_ = false;
      return;  // EOF, EAGAIN or an error
    }
  }

  const pid_t pid_;
  const int pipe_fd_;
  const int pidfd_;
  const std::chrono::steady_clock::time_point start_;
  Isolated result_;
  int status_ = 0;
  bool reaped_ = false;
  bool pipe_open_ = true;
};

}  // namespace

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGSYS:
      return "SIGSYS";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return fmt::format("signal {}", signal);
  }
}

Result<Isolated> run_isolated(const std::function<std::string()>& fn,
                              const IsolateOptions& options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return Status::environment(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  const Result<int> out_fd = open_output(options, fds);
  if (!out_fd) return out_fd.status();
  flush_all_output();
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    if (*out_fd >= 0) ::close(*out_fd);
    return Status::environment(fmt::format("cannot fork: {}", std::strerror(err)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fn, fds[1], *out_fd);
  }
  ::setpgid(pid, pid);  // also in the parent, so a kill below cannot race the child's own call
  ::close(fds[1]);
  if (*out_fd >= 0) ::close(*out_fd);
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  ChildWatch child(pid, fds[0], start);
  child.wait(options);
  return child.finish();
}

}  // namespace prowl::fsm
