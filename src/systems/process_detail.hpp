// Internals of ProcessSystem shared by its files: file descriptors and deadlines, waits that a
// signal ends (process_probe.cpp), and the command line: placeholders, how it is shown, where its
// program is, how a child ended (command_line.cpp). Pure functions or values owned by the caller;
// thread-safe. Internal to src/systems.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/interrupt.hpp"
#include "prowl/core/status.hpp"
#include "prowl/systems/process.hpp"

namespace prowl::detail {

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
  void reset(int fd = -1);

 private:
  int fd_;
};

// Milliseconds from now to the deadline, 0 once it has passed.
int millis_until(Clock::time_point deadline);
std::string errno_text(int err);

// A wait that a signal ends: fired() once interrupts() has grown since the watch was made, so a
// wait that began after a signal is not ended by that same signal.
class InterruptWatch {
 public:
  InterruptWatch() : at_start_(interrupts()) {}
  bool fired() const { return interrupts() != at_start_; }

 private:
  int at_start_;
};

// How often a wait looks at its InterruptWatch.
inline constexpr std::chrono::milliseconds kInterruptPoll{10};

// Waits until fd is ready for `events`. False on timeout, on error, and when `watch` (if any)
// fires.
bool wait_fd(int fd, short events, Clock::time_point deadline,
             const InterruptWatch* watch = nullptr);

// A connected non-blocking socket to 127.0.0.1:port, or Status::environment with the reason.
Result<int> connect_loopback(int port, Clock::time_point deadline,
                             const InterruptWatch* watch = nullptr);

// http_get() with a deadline, that gives up ("interrupted") when `watch` fires.
Result<ProbeResponse> http_get_until(int port, std::string_view path, Clock::time_point deadline,
                                     const InterruptWatch* watch);

// `text` with {port}, {db} and {dsn} replaced by their values; with show_dsn false, {dsn} stays
// as it is (for messages: a DSN may hold a password).
std::string substitute(std::string text, int port, const ProcessOptions& options,
                       bool show_dsn = true);

// The command for messages: arguments joined by spaces, long ones (inline scripts) elided.
std::string show_command(const std::vector<std::string>& argv);

// A wait status for check_alive()'s and startup messages: "exit code 3", "signal 9 (Killed)".
std::string show_wait_status(int status);

// died()'s text for a child that ended with `status` after writing `stderr_text` (redacted
// already): see ProcessSystem::died().
std::string describe_death(int status, std::string_view stderr_text);

// What the child, once in `working_dir`, gives execve for argv[0] (`name`): an absolute path as
// it is (execve says what is wrong with it); a relative path with a '/' as it is, once checked
// against `working_dir` (itself relative to the current directory; empty: the current
// directory); a name without '/', the first executable file in `path_dirs` (a PATH value; its
// relative entries made absolute). The error (Status::environment) is a reason for "cannot be
// started: ...":
//   './shop_api' does not exist (resolved against /home/u/shop, the service's working directory)
//   './shop_api' is not an executable file (resolved against /home/u, the current directory)
//   'shop_api' was not found in PATH (/usr/local/bin:/usr/bin:/bin)
Result<std::string> find_executable(const std::string& name, const std::string& working_dir,
                                    std::string_view path_dirs);

}  // namespace prowl::detail
