// How a forked run sends its RunResult back to the parent, and how the parent turns the way the
// child ended into one. Private to src/fsm.
#pragma once

#include <signal.h>

#include <string>

#include "prowl/fsm/isolate.hpp"
#include "prowl/fsm/runner.hpp"

namespace prowl::fsm::detail {

std::string encode_run(const RunResult& result);
// The RunResult of an isolated run: the decoded payload when the child exited normally,
// otherwise a crash (signal, or an exit without a result) or a timeout.
RunResult classify_isolated(const Isolated& isolated, double timeout_seconds);

// A crash's message gets the last non-empty line the run printed (what a library says before it
// aborts), so fuzz buckets, replay and shrink agree on the signature.
void add_output_to_crash(RunResult& result, const std::string& output);

// While alive, SIGINT and SIGTERM (Ctrl-C) only set a flag, which the waits for a child poll
// (handlers without SA_RESTART, so waits return early); the previous handlers come back after.
// The child runs in its own process group, so the terminal's Ctrl-C reaches only the parent,
// which kills the child. One at a time.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static bool stopped();
  // The signal that stopped the run (SIGINT or SIGTERM); 0 while none came.
  static int signal();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// An in-memory file for a run's trace and output: written by the child line by line, it survives
// the child's crash, and costs no disk I/O. Not thread-safe.
class MemoryFile {
 public:
  MemoryFile();
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  // Empties the file and rewinds it.
  void reset();
  std::string contents() const;

 private:
  int fd_;
};

}  // namespace prowl::fsm::detail
