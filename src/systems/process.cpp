#include "prowl/systems/process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "prowl/core/interrupt.hpp"

extern char** environ;

namespace prowl {
namespace {

using Clock = std::chrono::steady_clock;

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

int millis_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, left.count()));
}

std::string errno_text(int err) { return std::strerror(err); }

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// Waits until fd is ready for `events` or the deadline passes. False on timeout or error.
bool wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, millis_until(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return false;
  }
}

// A connected non-blocking socket to 127.0.0.1:port, or an error message.
Result<int> connect_loopback(int port, Clock::time_point deadline) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return Status::environment("socket: " + errno_text(errno));
  sockaddr_in addr = loopback(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) return Status::environment(errno_text(errno));
    if (!wait_fd(fd.get(), POLLOUT, deadline)) return Status::environment("connect timed out");
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Status::environment(errno_text(err));
  }
  return fd.release();
}

std::string substitute(std::string text, int port, const ProcessOptions& options) {
  const std::pair<std::string_view, std::string> values[] = {
      {"{port}", std::to_string(port)}, {"{db}", options.db}, {"{dsn}", options.dsn}};
  for (const auto& [key, value] : values) {
    for (std::size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

// The command for messages: arguments joined by spaces, long ones (inline scripts) elided.
std::string show_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    if (arg.size() > 60) {
      out += arg.substr(0, 57) + "...";
    } else {
      out += arg;
    }
  }
  return out;
}

std::string show_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exit code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)));
  }
  return fmt::format("wait status {}", status);
}

// argv[0] as execve needs it: unchanged if it holds a '/', else the first executable in PATH.
Result<std::string> resolve_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return Status::environment(fmt::format("'{}' not found in PATH", name));
}

std::string last_bytes(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

}  // namespace

// One started child: its pid, how it ended, and its captured output. The drainer thread appends
// to out/err under mu; everything else is touched only by the thread driving the ProcessSystem.
struct ProcessSystem::Child {
  pid_t pid = -1;
  int slot = -1;            // register_child_group()'s, or -1
  bool reaped = false;      // waitpid has collected the exit status
  bool unexpected = false;  // exited while it should have been running
  int wait_status = 0;
  int wake_write = -1;  // closed to tell the drainer the child is gone
  std::thread drainer;

  std::size_t limit = 0;
  mutable std::mutex mu;
  std::string out;
  std::string err;

  ~Child() { finish_output(); }

  void append(std::string& stream, const char* data, std::size_t n) {
    std::lock_guard<std::mutex> lock(mu);
    stream.append(data, n);
    // Trimmed in halves so that a chatty service does not move the buffer on every read.
    if (stream.size() > 2 * limit) stream.erase(0, stream.size() - limit);
  }

  // Reads both pipes until both are closed, or until woken: then reads what is left and stops
  // (a grandchild outside the process group could otherwise keep a pipe open for ever).
  void drain(int out_fd, int err_fd, int wake_read) {
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

  // True once the child has exited (reaped or not).
  bool exited() {
    if (reaped) return true;
    siginfo_t info{};
    int rc;
    do {
      rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    } while (rc != 0 && errno == EINTR);
    return rc != 0 || info.si_pid == pid;
  }

  // Kills what is left of the process group (the leader is a zombie or dying, so the group id is
  // still its own), collects the exit status and stops the drainer. REQUIRES: exited() or killed.
  void reap() {
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

  void finish_output() {
    // Closing the write end wakes the drainer (POLLHUP); writing could raise SIGPIPE.
    if (wake_write >= 0) {
      ::close(wake_write);
      wake_write = -1;
    }
    if (drainer.joinable()) drainer.join();
  }
};

ProcessSystem::ProcessSystem(std::string name, ProcessOptions options)
    : System(std::move(name)), options_(std::move(options)), port_(options_.port) {}

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
  if (Status st = start(); !st) return st;
  return wait_ready();
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
    auto port = pick_free_port();
    if (!port) return port.status();
    port_ = *port;
  }
  command_.clear();
  for (const auto& arg : options_.argv) command_.push_back(substitute(arg, port_, options_));
  pin();
  if (Status st = start(); !st) return st;
  return wait_ready();
}

Status ProcessSystem::end() {
  stop();
  unpin();
  return Status::ok();
}

Status ProcessSystem::reset() {
  stop();
  if (Status st = start(); !st) return st;
  return wait_ready();
}

pid_t ProcessSystem::pid() const { return child_ && !child_->reaped ? child_->pid : -1; }

std::string ProcessSystem::stdout_tail() const {
  if (!child_) return {};
  std::lock_guard<std::mutex> lock(child_->mu);
  return last_bytes(child_->out, options_.output_limit);
}

std::string ProcessSystem::stderr_tail() const {
  if (!child_) return {};
  std::lock_guard<std::mutex> lock(child_->mu);
  return last_bytes(child_->err, options_.output_limit);
}

std::string ProcessSystem::output_tail(std::size_t max_bytes_per_stream) const {
  std::string err = last_bytes(stderr_tail(), max_bytes_per_stream);
  std::string out = last_bytes(stdout_tail(), max_bytes_per_stream);
  if (err.empty() && out.empty()) return "(the service wrote nothing to stdout or stderr)";
  auto trimmed = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s.empty() ? std::string("(nothing)") : s;
  };
  return "stderr:\n" + trimmed(std::move(err)) + "\nstdout:\n" + trimmed(std::move(out));
}

std::string ProcessSystem::failure(std::string_view reason) const {
  return fmt::format("service '{}' (`{}`) {}\n{}", name(), show_command(command_), reason,
                     output_tail());
}

Status ProcessSystem::check_alive() const {
  if (!child_) {
    return Status::environment(fmt::format("service '{}' has not been started", name()));
  }
  Child& c = *child_;
  if (!c.reaped && !c.exited()) return Status::ok();
  if (!c.reaped) {
    c.reap();
    c.unexpected = true;
  }
  return Status::environment(
      failure(fmt::format("{} with {}", c.unexpected ? "died" : "is not running, it stopped",
                          show_wait_status(c.wait_status))));
}

Status ProcessSystem::start() {
  child_.reset();  // the previous child is reaped; its output is replaced by the new child's
  auto exe = resolve_executable(command_[0]);
  if (!exe) return Status::environment(failure("cannot be started: " + exe.status().message()));

  // Everything the child needs is prepared here: between fork and exec only async-signal-safe
  // calls are allowed (other threads may hold the allocator's locks).
  std::vector<char*> argv;
  for (auto& arg : command_) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = std::any_of(options_.env.begin(), options_.env.end(),
                                [&](const auto& kv) { return kv.first == key; });
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [key, value] : options_.env) {
    env_strings.push_back(key + "=" + substitute(value, port_, options_));
  }
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  const char* dir = options_.working_dir.empty() ? nullptr : options_.working_dir.c_str();

  int out_pipe[2], err_pipe[2], exec_pipe[2], wake_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    return Status::environment(failure("cannot be started: pipe: " + errno_text(errno)));
  }
  Fd out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    return Status::environment(failure("cannot be started: pipe: " + errno_text(errno)));
  }
  Fd err_r(err_pipe[0]), err_w(err_pipe[1]);
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    return Status::environment(failure("cannot be started: pipe: " + errno_text(errno)));
  }
  Fd exec_r(exec_pipe[0]), exec_w(exec_pipe[1]);
  if (::pipe2(wake_pipe, O_CLOEXEC) != 0) {
    return Status::environment(failure("cannot be started: pipe: " + errno_text(errno)));
  }
  Fd wake_r(wake_pipe[0]), wake_w(wake_pipe[1]);
  Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null_in.get() < 0) {
    return Status::environment(failure("cannot be started: /dev/null: " + errno_text(errno)));
  }

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return Status::environment(failure("cannot be started: fork: " + errno_text(errno)));
  if (pid == 0) {
    // The child: its own process group, default signal handling, stdin from /dev/null. It dies
    // with the thread that started it, should prowl end without stopping it (killed, aborted);
    // prowl may have died already, before the request took effect.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::setpgid(0, 0);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::dup2(null_in.get(), 0);
    ::dup2(out_w.get(), 1);
    ::dup2(err_w.get(), 2);
    int report[2] = {0, 0};  // {stage, errno}: 1 = chdir, 2 = execve
    if (dir != nullptr && ::chdir(dir) != 0) {
      report[0] = 1;
    } else {
      ::execve(exe->c_str(), argv.data(), envp.data());
      report[0] = 2;
    }
    report[1] = errno;
    [[maybe_unused]] ssize_t n = ::write(exec_w.get(), report, sizeof report);
    ::_exit(127);
  }

  // Also set from the parent, so the group exists before anyone signals it (EACCES once the
  // child has exec'ed, which means it already did it itself).
  ::setpgid(pid, pid);
  child_ = std::make_unique<Child>();
  Child& c = *child_;
  c.pid = pid;
  c.slot = register_child_group(pid);
  c.limit = options_.output_limit;
  out_w.reset();
  err_w.reset();
  exec_w.reset();
  null_in.reset();

  // The exec pipe closes on a successful exec; otherwise it carries the failing stage and errno.
  int report[2] = {0, 0};
  ssize_t n;
  do {
    n = ::read(exec_r.get(), report, sizeof report);
  } while (n < 0 && errno == EINTR);

  c.wake_write = wake_w.release();
  int out_fd = out_r.release(), err_fd = err_r.release(), wake_fd = wake_r.release();
  c.drainer = std::thread([&c, out_fd, err_fd, wake_fd] { c.drain(out_fd, err_fd, wake_fd); });

  if (n == static_cast<ssize_t>(sizeof report)) {
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
  const auto deadline = Clock::now() + options_.ready_timeout;
  const bool http = !options_.health_path.empty();
  const int ready_port = options_.ready_port != 0 ? options_.ready_port : port_;
  std::string waiting_for =
      http ? fmt::format("GET http://127.0.0.1:{}{} to answer 2xx", port_, options_.health_path)
           : fmt::format("127.0.0.1:{} to accept connections", ready_port);
  std::string last_error;
  Clock::duration pause = std::chrono::microseconds(500);
  for (;;) {
    if (c.exited()) {
      c.reap();
      return Status::environment(
          failure("exited during startup with " + show_wait_status(c.wait_status)));
    }
    const auto now = Clock::now();
    if (now >= deadline) break;
    const auto attempt_deadline = std::min(deadline, now + std::chrono::seconds(1));
    if (http) {
      auto answer =
          http_get(port_, options_.health_path,
                   std::chrono::duration_cast<std::chrono::milliseconds>(attempt_deadline - now));
      if (answer && answer->status >= 200 && answer->status < 300) return Status::ok();
      last_error = answer ? fmt::format("last answer: status {}", answer->status)
                          : "last attempt: " + answer.status().message();
    } else {
      auto fd = connect_loopback(ready_port, attempt_deadline);
      if (fd) {
        ::close(*fd);
        return Status::ok();
      }
      last_error = "last attempt: " + fd.status().message();
    }
    // A service is usually up within a few milliseconds: poll often at first, then every 20 ms.
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - Clock::now()));
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

Result<ProbeResponse> http_get(int port, std::string_view path, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string url = fmt::format("http://127.0.0.1:{}{}", port, path);
  auto fail = [&](std::string_view why) {
    return Status::environment(fmt::format("GET {}: {}", url, why));
  };
  auto connected = connect_loopback(port, deadline);
  if (!connected) return fail(connected.status().message());
  Fd fd(*connected);

  const std::string request = fmt::format("GET {} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
  std::size_t sent = 0;
  while (sent < request.size()) {
    if (!wait_fd(fd.get(), POLLOUT, deadline)) return fail("timed out sending the request");
    ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EINTR && errno != EAGAIN) return fail(errno_text(errno));
    if (n > 0) sent += static_cast<std::size_t>(n);
  }

  constexpr std::size_t kMaxResponse = 1 << 20;
  std::string response;
  char buf[4096];
  for (;;) {
    if (!wait_fd(fd.get(), POLLIN, deadline)) return fail("timed out reading the response");
    ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ECONNRESET && !response.empty()) break;
      return fail(errno_text(errno));
    }
    response.append(buf, static_cast<std::size_t>(n));
    if (response.size() > kMaxResponse) return fail("response larger than 1 MiB");
  }

  // "HTTP/1.x NNN reason"
  if (response.rfind("HTTP/", 0) != 0) return fail("the answer is not HTTP");
  std::size_t space = response.find(' ');
  if (space == std::string::npos || space + 4 > response.size()) {
    return fail("malformed status line");
  }
  ProbeResponse answer;
  for (std::size_t i = space + 1; i < space + 4; ++i) {
    if (response[i] < '0' || response[i] > '9') return fail("malformed status line");
    answer.status = answer.status * 10 + (response[i] - '0');
  }
  std::size_t body = response.find("\r\n\r\n");
  if (body != std::string::npos) answer.body = response.substr(body + 4);
  return answer;
}

Result<int> pick_free_port() {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0)
    return Status::environment("cannot pick a free port: socket: " + errno_text(errno));
  sockaddr_in addr = loopback(0);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return Status::environment("cannot pick a free port: bind 127.0.0.1:0: " + errno_text(errno));
  }
  socklen_t len = sizeof addr;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Status::environment("cannot pick a free port: getsockname: " + errno_text(errno));
  }
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace prowl
