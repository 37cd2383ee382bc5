// ProcessSystem's lifecycle: starting the child (fork, exec), waiting until it is ready, stopping
// and reaping it, and the capabilities built on restarts. The ports' checks are in
// process_ports.cpp, the output and the messages in process_output.cpp.
#include "prowl/systems/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "listeners.hpp"
#include "process_child.hpp"
#include "process_detail.hpp"
#include "secrets.hpp"

extern char** environ;

namespace prowl {

using detail::Clock;
using detail::errno_text;
using detail::Fd;

void ProcessSystem::Child::append(std::string& stream, const char* data, std::size_t n) {
  std::lock_guard<std::mutex> lock(mu);
  stream.append(data, n);
  // Trimmed in halves so that a chatty service does not move the buffer on every read.
  if (stream.size() > 2 * limit) stream.erase(0, stream.size() - limit);
}

void ProcessSystem::Child::drain(int out_fd, int err_fd, int wake_read) {
  pollfd fds[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {wake_read, POLLIN, 0}};
  std::string* streams[2] = {&out, &err};
  char buf[8192];
  bool woken = false;
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (!woken) {
      int rc = ::poll(fds, 3, -1);
      if (rc < 0 && errno != EINTR) break;
      if (fds[2].revents != 0) {
        woken = true;
        ::fcntl(fds[0].fd, F_SETFL, O_NONBLOCK);
        ::fcntl(fds[1].fd, F_SETFL, O_NONBLOCK);
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (!woken && fds[i].revents == 0)) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        append(*streams[i], buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
      } else if (woken && errno == EAGAIN) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
      }
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd >= 0) ::close(fds[i].fd);
  }
  ::close(wake_read);
}

bool ProcessSystem::Child::exited() {
  if (reaped) return true;
  siginfo_t info{};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc != 0 && errno == EINTR);
  return rc != 0 || info.si_pid == pid;
}

bool ProcessSystem::Child::exiting() const {
  if (reaped) return false;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": flags is the 7th field after
  // the command, which ends at the last ')'.
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return false;
  // The flags of the group leader's thread. (A service whose main thread ended with pthread_exit
  // while other threads serve would look exiting too; such services are rare, and the thread
  // count cannot tell them apart: a killed service's threads end one by one.)
  unsigned long flags = 0;
  if (std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1) return false;
  constexpr unsigned long kPfExiting = 0x00000004;
  return (flags & kPfExiting) != 0;
}

void ProcessSystem::Child::reap() {
  if (reaped) return;
  ::kill(-pid, SIGKILL);
  int status = 0;
  pid_t rc;
  do {
    rc = ::waitpid(pid, &status, 0);
  } while (rc < 0 && errno == EINTR);
  wait_status = status;
  reaped = true;
  unregister_child_group(slot);
  slot = -1;
  finish_output();
}

void ProcessSystem::Child::finish_output() {
  // Closing the write end wakes the drainer (POLLHUP); writing could raise SIGPIPE.
  if (wake_write >= 0) {
    ::close(wake_write);
    wake_write = -1;
  }
  if (drainer.joinable()) drainer.join();
}

ProcessSystem::ProcessSystem(std::string name, ProcessOptions options)
    : System(std::move(name)),
      options_(std::move(options)),
      secrets_(detail::longest_first(options_.secrets)),
      port_(options_.port) {}

ProcessSystem::~ProcessSystem() {
  stop();
  unpin();
}

void ProcessSystem::pin() {
  if (!options_.share_cpu || pinned_thread_ != 0) return;
  cpu_set_t before;
  if (::sched_getaffinity(0, sizeof before, &before) != 0) return;
  const int cpu = ::sched_getcpu();
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &before)) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  // pid 0: the calling thread only, not the rest of prowl.
  if (::sched_setaffinity(0, sizeof one, &one) != 0) return;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&before);
  saved_affinity_.assign(bytes, bytes + sizeof before);
  pinned_thread_ = static_cast<pid_t>(::gettid());
}

void ProcessSystem::unpin() {
  // Only the thread that was pinned can be given its CPUs back.
  if (pinned_thread_ == 0 || pinned_thread_ != static_cast<pid_t>(::gettid())) return;
  cpu_set_t before;
  std::memcpy(&before, saved_affinity_.data(), sizeof before);
  ::sched_setaffinity(0, sizeof before, &before);
  pinned_thread_ = 0;
}

Capabilities ProcessSystem::capabilities() const {
  Capabilities c;
  c.reset = true;
  c.snapshot = c.stack = c.portable = options_.stateless;
  return c;
}

Status ProcessSystem::revive() {
  if (check_alive()) return Status::ok();
  // It died by itself, and no failed step asked died(): keep what ended it for the run to report.
  if (child_ && child_->unexpected && !child_->reported) unreported_death_ = died();
  return start();
}

Result<SnapshotHandle> ProcessSystem::save() {
  PROWL_CHECK(options_.stateless, "ProcessSystem::save() on a service that keeps state");
  return SnapshotHandle{0};
}

Status ProcessSystem::restore(SnapshotHandle /*handle*/) {
  PROWL_CHECK(options_.stateless, "ProcessSystem::restore() on a service that keeps state");
  return revive();
}

Result<SystemImagePtr> ProcessSystem::capture() {
  PROWL_CHECK(options_.stateless, "ProcessSystem::capture() on a service that keeps state");
  return SystemImagePtr();
}

Status ProcessSystem::load(const SystemImagePtr& /*image*/) {
  PROWL_CHECK(options_.stateless, "ProcessSystem::load() on a service that keeps state");
  return revive();
}

Status ProcessSystem::push() {
  PROWL_CHECK(options_.stateless, "ProcessSystem::push() on a service that keeps state");
  return Status::ok();
}

Status ProcessSystem::rollback(std::size_t /*depth*/) {
  PROWL_CHECK(options_.stateless, "ProcessSystem::rollback() on a service that keeps state");
  return revive();
}

Status ProcessSystem::observe(Hasher& hasher) const {
  if (Status st = check_alive(); !st) return st;
  hasher.add(std::string_view("process"));
  return Status::ok();
}

Status ProcessSystem::begin() {
  if (options_.argv.empty()) {
    return Status::invalid(fmt::format("process system '{}' has an empty command line", name()));
  }
  stop();  // a second begin() must not orphan the running child
  if (port_ == 0) {
    // A port free on 127.0.0.1 may still be listened on at another address ([::1], a LAN
    // address); the ports' check would then refuse the start, so such a port is not taken.
    constexpr int kAttempts = 20;
    for (int attempt = 0; attempt < kAttempts && port_ == 0; ++attempt) {
      auto port = pick_free_port();
      if (!port) return port.status();
      if (detail::listening_inodes(*port).empty() || attempt + 1 == kAttempts) port_ = *port;
    }
  }
  command_.clear();
  std::vector<std::string> shown;
  for (const auto& arg : options_.argv) {
    command_.push_back(detail::substitute(arg, port_, options_));
    // Redacted before show_command() elides a long argument, so that no cut leaves a part of a
    // secret.
    shown.push_back(redact(detail::substitute(arg, port_, options_, /*show_dsn=*/false)));
  }
  shown_command_ = detail::show_command(shown);
  if (Status st = check_ports_free(); !st) return st;
  pin();
  return start();
}

Status ProcessSystem::end() {
  stop();
  unpin();
  return Status::ok();
}

Status ProcessSystem::reset() {
  // A service that died by itself while idle (a restore in reset mode is a restart): keep what
  // ended it for the run to report, as revive() does.
  if (child_ && !child_->reported && (child_->reaped ? child_->unexpected : child_->exited())) {
    unreported_death_ = died();
  }
  stop();
  return start();
}

pid_t ProcessSystem::pid() const { return child_ && !child_->reaped ? child_->pid : -1; }

Status ProcessSystem::check_alive() const {
  if (!child_) {
    return Status::environment(redact(fmt::format("service '{}' has not been started", name())));
  }
  Child& c = *child_;
  if (!c.reaped && !c.exited()) return Status::ok();
  if (!c.reaped) {
    c.reap();
    c.unexpected = true;
  }
  return Status::environment(
      failure(fmt::format("{} with {}", c.unexpected ? "died" : "is not running, it stopped",
                          detail::show_wait_status(c.wait_status))));
}

Status ProcessSystem::start() {
  if (Status st = launch(); !st) return st;
  if (Status st = wait_ready(); !st) return st;
  return check_ports_owned();
}

namespace {

// The PATH the child will have: prowl's, unless the service's environment sets one.
std::string child_path(const ProcessOptions& options, int port) {
  std::string path_dirs = "/usr/local/bin:/usr/bin:/bin";
  if (const char* path = std::getenv("PATH"); path != nullptr) path_dirs = path;
  for (const auto& [key, value] : options.env) {
    if (key == "PATH") path_dirs = detail::substitute(value, port, options);
  }
  return path_dirs;
}

// The child's environment as KEY=VALUE: prowl's, with the service's variables in place of those
// of the same name.
std::vector<std::string> child_environment(const ProcessOptions& options, int port) {
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = std::any_of(options.env.begin(), options.env.end(),
                                [&](const auto& kv) { return kv.first == key; });
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [key, value] : options.env) {
    env_strings.push_back(key + "=" + detail::substitute(value, port, options));
  }
  return env_strings;
}

// What execve takes: a pointer to each of `strings` (which must outlive it), then nullptr.
std::vector<char*> exec_array(std::vector<std::string>& strings) {
  std::vector<char*> array;
  for (auto& s : strings) array.push_back(s.data());
  array.push_back(nullptr);
  return array;
}

// The descriptors between prowl and a child it starts: the child's output, the exec pipe (closed
// by a successful exec), the drainer's wake-up pipe, and /dev/null for the child's input. Those
// still held are closed when it goes.
struct ChildPipes {
  Fd out_r, out_w, err_r, err_w, exec_r, exec_w, wake_r, wake_w, null_in;

  // Opens them all; on a failure, what failed ("pipe: REASON").
  std::string open_all() {
    if (!open_pipe(out_r, out_w) || !open_pipe(err_r, err_w) || !open_pipe(exec_r, exec_w) ||
        !open_pipe(wake_r, wake_w)) {
      return "pipe: " + errno_text(errno);
    }
    null_in.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (null_in.get() < 0) return "/dev/null: " + errno_text(errno);
    return {};
  }

  // Closes the parent's copies of the child's ends, so that the pipes end when the child does.
  void close_child_ends() {
    out_w.reset();
    err_w.reset();
    exec_w.reset();
    null_in.reset();
  }

  static bool open_pipe(Fd& read_end, Fd& write_end) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
    return true;
  }
};

// The child, between fork and exec: its own process group, default signal handling, stdin from
// /dev/null. Only async-signal-safe calls (other threads may hold the allocator's locks). It dies
// with the thread that started it, should prowl end without stopping it (killed, aborted); prowl
// may have died already, before the request took effect. Tells a failure to the exec pipe.
[[noreturn]] void exec_child(pid_t parent, const ChildPipes& pipes, const char* dir,
                             const char* exe, char* const* argv, char* const* envp) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::setpgid(0, 0);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGHUP, SIG_DFL);
  ::dup2(pipes.null_in.get(), 0);
  ::dup2(pipes.out_w.get(), 1);
  ::dup2(pipes.err_w.get(), 2);
  int report[2] = {0, 0};  // {stage, errno}: 1 = chdir, 2 = execve
  if (dir != nullptr && ::chdir(dir) != 0) {
    report[0] = 1;
  } else {
    ::execve(exe, argv, envp);
    report[0] = 2;
  }
  report[1] = errno;
  [[maybe_unused]] ssize_t n = ::write(pipes.exec_w.get(), report, sizeof report);
  ::_exit(127);
}

// Waits for the child's exec: true with {stage, errno} in `report` when it failed, false once the
// exec pipe closes (a successful exec).
bool exec_failed(int exec_read, int (&report)[2]) {
  ssize_t n;
  do {
    n = ::read(exec_read, report, sizeof report);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof report);
}

}  // namespace

Status ProcessSystem::launch() {
  child_.reset();  // the previous child is reaped; its output is replaced by the new child's

  // The program is found before anything is started, and with the PATH the child will have.
  auto exe =
      detail::find_executable(command_[0], options_.working_dir, child_path(options_, port_));
  if (!exe) return Status::environment(cannot_start(exe.status().message()));

  // Everything the child needs is prepared here: between fork and exec only async-signal-safe
  // calls are allowed.
  std::vector<char*> argv = exec_array(command_);
  std::vector<std::string> env_strings = child_environment(options_, port_);
  std::vector<char*> envp = exec_array(env_strings);
  const char* dir = options_.working_dir.empty() ? nullptr : options_.working_dir.c_str();
  ChildPipes pipes;
  if (std::string failed = pipes.open_all(); !failed.empty()) {
    return Status::environment(cannot_start(failed));
  }

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return Status::environment(cannot_start("fork: " + errno_text(errno)));
  if (pid == 0) exec_child(parent, pipes, dir, exe->c_str(), argv.data(), envp.data());

  // Also set from the parent, so the group exists before anyone signals it (EACCES once the
  // child has exec'ed, which means it already did it itself).
  ::setpgid(pid, pid);
  child_ = std::make_unique<Child>();
  Child& c = *child_;
  c.pid = pid;
  c.slot = register_child_group(pid);
  c.limit = options_.output_limit;
  pipes.close_child_ends();

  int report[2] = {0, 0};
  const bool failed = exec_failed(pipes.exec_r.get(), report);
  c.wake_write = pipes.wake_w.release();
  int out_fd = pipes.out_r.release(), err_fd = pipes.err_r.release();
  int wake_fd = pipes.wake_r.release();
  c.drainer = std::thread([&c, out_fd, err_fd, wake_fd] { c.drain(out_fd, err_fd, wake_fd); });

  if (failed) {
    c.reap();
    std::string what = report[0] == 1 ? fmt::format("chdir to '{}'", options_.working_dir)
                                      : fmt::format("execve of '{}'", *exe);
    return Status::environment(
        failure(fmt::format("cannot be started: {}: {}", what, errno_text(report[1]))));
  }
  return Status::ok();
}

Status ProcessSystem::wait_ready() {
  Child& c = *child_;
  const detail::InterruptWatch watch;
  const auto deadline = Clock::now() + options_.ready_timeout;
  const bool http = !options_.health_path.empty();
  const int ready_port = options_.ready_port != 0 ? options_.ready_port : port_;
  std::string waiting_for =
      http ? fmt::format("GET http://127.0.0.1:{}{} to answer 2xx", port_, options_.health_path)
           : fmt::format("127.0.0.1:{} to accept connections", ready_port);
  std::string last_error;
  Clock::duration pause = std::chrono::microseconds(500);
  for (;;) {
    if (watch.fired()) {
      stop();
      return Status::environment(
          failure(fmt::format("interrupted by {} while waiting for the service to become ready",
                              signal_name(interrupt_signal()))));
    }
    if (c.exited()) {
      c.reap();
      c.unexpected = true;
      return Status::environment(
          failure("exited during startup with " + detail::show_wait_status(c.wait_status)));
    }
    const auto now = Clock::now();
    if (now >= deadline) break;
    const auto attempt_deadline = std::min(deadline, now + std::chrono::seconds(1));
    if (http) {
      auto answer = detail::http_get_until(port_, options_.health_path, attempt_deadline, &watch);
      if (answer && answer->status >= 200 && answer->status < 300) return Status::ok();
      last_error = answer ? fmt::format("last answer: status {}", answer->status)
                          : "last attempt: " + answer.status().message();
    } else {
      auto fd = detail::connect_loopback(ready_port, attempt_deadline, &watch);
      if (fd) {
        ::close(*fd);
        return Status::ok();
      }
      last_error = "last attempt: " + fd.status().message();
    }
    // A service is usually up within a few milliseconds: poll often at first, then every 20 ms
    // (in slices short enough to notice a signal).
    const auto sleep_until = std::min<Clock::time_point>(deadline, Clock::now() + pause);
    while (!watch.fired() && Clock::now() < sleep_until) {
      std::this_thread::sleep_for(
          std::min<Clock::duration>(detail::kInterruptPoll, sleep_until - Clock::now()));
    }
    pause = std::min<Clock::duration>(pause * 2, std::chrono::milliseconds(20));
  }
  stop();
  return Status::environment(
      failure(fmt::format("did not become ready within {} ms (waiting for {}; {})",
                          options_.ready_timeout.count(), waiting_for, last_error)));
}

void ProcessSystem::stop() {
  if (!child_ || child_->reaped) return;
  Child& c = *child_;
  if (!c.exited()) {
    ::kill(-c.pid, SIGTERM);
    const auto deadline = Clock::now() + options_.stop_timeout;
    // Most services exit within a millisecond or two of SIGTERM.
    Clock::duration pause = std::chrono::microseconds(200);
    while (!c.exited() && Clock::now() < deadline) {
      std::this_thread::sleep_for(pause);
      pause = std::min<Clock::duration>(pause * 2, std::chrono::milliseconds(5));
    }
  }
  c.reap();  // SIGKILLs whatever is left of the group
}

}  // namespace prowl
