// Running a function in a forked child, so that a crash, an abort or a hang of the code under test
// cannot take the caller down. The child runs in its own process group, which is killed as a whole
// on timeout; the child is always reaped (no zombies). POSIX only. Call from a single-threaded
// process (fork copies only the calling thread).
#pragma once

#include <functional>
#include <string>

#include "prowl/core/status.hpp"

namespace prowl::fsm {

struct Isolated {
  enum class End { kExited, kSignaled, kTimedOut, kInterrupted };
  End end = End::kExited;
  int exit_code = 0;    // kExited
  int signal = 0;       // kSignaled
  std::string payload;  // what the function returned (empty unless it returned normally)
  double seconds = 0;
};

struct IsolateOptions {
  double timeout_seconds = 10;
  // Where the child's stdout and stderr go: a descriptor (not closed), else a file (truncated),
  // else inherited.
  int output_fd = -1;
  std::string output_path;
  // Polled while waiting: when it returns true the child is killed and the end is kInterrupted.
  std::function<bool()> interrupted;
};

// Forks; the child runs `fn`, sends its result back through a pipe (up to 64 KiB) and exits with
// code 0 without running atexit handlers. Environment failures (fork, pipe, the output file) are
// a failed Status.
Result<Isolated> run_isolated(const std::function<std::string()>& fn,
                              const IsolateOptions& options);

// "SIGSEGV", "SIGABRT", ... or "signal N".
std::string signal_name(int signal);

}  // namespace prowl::fsm
