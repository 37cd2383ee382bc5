// ProcessSystem::Child: one started child process, how it ended, and its captured output. Shared
// by the files of ProcessSystem. The drainer thread appends to out/err under mu; everything else
// is touched only by the thread driving the ProcessSystem. Internal to src/systems.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

#include "prowl/systems/process.hpp"

namespace prowl {

struct ProcessSystem::Child {
  pid_t pid = -1;
  int slot = -1;            // register_child_group()'s, or -1
  bool reaped = false;      // waitpid has collected the exit status
  bool unexpected = false;  // ended by itself while it should have been running (or starting)
  bool reported = false;    // died() has told of it
  int wait_status = 0;
  int wake_write = -1;  // closed to tell the drainer the child is gone
  std::thread drainer;

  std::size_t limit = 0;
  mutable std::mutex mu;
  std::string out;
  std::string err;

  ~Child() { finish_output(); }

  void append(std::string& stream, const char* data, std::size_t n);

  // Reads both pipes until both are closed, or until woken: then reads what is left and stops
  // (a grandchild outside the process group could otherwise keep a pipe open for ever).
  void drain(int out_fd, int err_fd, int wake_read);

  // True once the child has exited (reaped or not). One waitid(WNOHANG | WNOWAIT) while it runs.
  bool exited();
  // True while the kernel is tearing the child down (PF_EXITING in /proc/PID/stat): it has
  // closed its sockets already (a client sees the connection reset) but is not a zombie yet.
  bool exiting() const;

  // Kills what is left of the process group (the leader is a zombie or dying, so the group id is
  // still its own), collects the exit status and stops the drainer. REQUIRES: exited() or killed.
  void reap();

  // Wakes the drainer and waits until it has read what is left.
  void finish_output();
};

}  // namespace prowl
