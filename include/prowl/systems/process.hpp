// ProcessSystem: a black-box service that prowl starts from a command line, waits for, and
// restarts to bring back to its initial state (capability: reset only). With the RestorePlanner
// this lets every strategy explore any service that can be restarted: each restore is a restart
// followed by a replay of the path.
//
// Lifecycle: begin() starts the service and waits until it is ready (an HTTP health path answers
// 2xx, or a TCP port accepts connections); reset() stops and restarts it; end() stops it. Stopping
// sends SIGTERM to the service's process group, then SIGKILL after the stop timeout, and always
// reaps the child, so no zombie and no orphan of the group is left. The destructor stops a
// service that is still running.
//
// Output: the child's stdout and stderr go to pipes drained by one background thread per running
// child into in-memory buffers that keep the last `output_limit` bytes of each stream (the start
// of a long log is dropped, the tail that explains a failure is kept). The buffers hold the output
// of the current, or most recent, child only.
//
// Failures the environment causes (the command cannot be run, the service exits during startup,
// never becomes ready, dies between steps) are Status::environment values whose message names the
// command, the reason (timeout, exit code or signal) and the tail of the captured output.
//
// Signals: each running child's process group is registered with register_child_group()
// (prowl/core/interrupt.hpp), so a forced exit (the third Ctrl-C) kills it. A prowl that ends
// without stopping its services (SIGKILL, an abort) takes them along: each child asks the kernel
// for SIGKILL when the thread that started it exits (PR_SET_PDEATHSIG). So begin() and reset()
// belong on a thread that outlives the service, as the explorer's workers do.
//
// Ownership: a ProcessSystem owns its child process and the drainer thread. It is driven from one
// thread (like every System); the accessors for the captured output may be called from any thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/fingerprint.hpp"
#include "prowl/core/status.hpp"
#include "prowl/world/system.hpp"

namespace prowl {

struct ProcessOptions {
  // The command line. Each argument may contain the placeholders {port}, {db} and {dsn}, replaced
  // by the values below before the service starts (also in the values of `env`). Any other text
  // in braces is left as it is. argv[0] without a '/' is searched in PATH.
  std::vector<std::string> argv;
  // The value of {port}. 0: a free loopback TCP port is chosen at begin() (by binding
  // 127.0.0.1:0 and reading the port back) and kept for every restart.
  int port = 0;
  std::string db;   // the value of {db}
  std::string dsn;  // the value of {dsn}
  // Where the service runs; empty: the current directory.
  std::string working_dir;
  // Variables added to (or replacing those of) the inherited environment.
  std::vector<std::pair<std::string, std::string>> env;

  // Readiness. If health_path is not empty, the service is ready when
  // GET http://127.0.0.1:{port}{health_path} answers with a 2xx status. Otherwise it is ready when
  // a TCP connection to 127.0.0.1:ready_port succeeds (0: the port of {port}).
  std::string health_path;
  int ready_port = 0;
  std::chrono::milliseconds ready_timeout{10000};
  // How long the service may take to exit after SIGTERM before it gets SIGKILL.
  std::chrono::milliseconds stop_timeout{5000};
  // Bytes kept of the end of each of stdout and stderr.
  std::size_t output_limit = 64 * 1024;
  // True when the service keeps no state of its own between requests: everything it remembers
  // lives in databases that other systems save and restore. Then the process does not limit the
  // world to reset mode: save, restore, push and rollback do nothing but restart a service that
  // has died, and reset restarts it. False (the default): every restore restarts the service.
  bool stateless = false;
  // True: the service runs on the CPU that the thread calling begin() runs on, and that thread
  // stays on it until end(). prowl and the service hand each request back and forth and never run
  // at the same time; a handoff within one CPU costs far less than waking a process on another
  // (on a virtual machine, a cross-CPU wakeup is an interrupt through the hypervisor). Only for a
  // service that does its work inside requests: pinned to one CPU, it cannot use more. Best
  // effort: if the CPU cannot be chosen or set, nothing is pinned.
  bool share_cpu = false;
};

class ProcessSystem final : public System {
 public:
  ProcessSystem(std::string name, ProcessOptions options);
  ~ProcessSystem() override;

  Capabilities capabilities() const override;
  // Adds a constant: the service's observable state comes from other systems (HTTP, SQL). Fails
  // with Status::environment if the service has died.
  Status observe(Hasher& hasher) const override;

  // Starts the service and waits until it is ready.
  Status begin() override;
  // Stops the service.
  Status end() override;
  // Stops the service and starts it again; waits until it is ready.
  Status reset() override;
  // Stateless services only: nothing to save; restoring restarts the service if it has died.
  Result<SnapshotHandle> save() override;
  Status restore(SnapshotHandle handle) override;
  void release(SnapshotHandle /*handle*/) override {}
  // Stateless services only, the same way: copies of the service (for other workers) share
  // nothing, so an image holds nothing.
  Result<SystemImagePtr> capture() override;
  Status load(const SystemImagePtr& image) override;
  Status push() override;
  Status rollback(std::size_t depth) override;

  // Ok while the service runs; Status::environment (reason and output tail) once it has exited.
  // The service is reaped as soon as its exit is seen, hence the mutable state behind const.
  Status check_alive() const;

  // The value of {port} (after begin() when it is chosen at run time).
  int port() const { return port_; }
  // The pid of the running child, or -1. The child leads its own process group (pgid == pid).
  pid_t pid() const;
  // The command line after placeholder substitution (empty before begin()).
  const std::vector<std::string>& command() const { return command_; }
  // The end of what the current (or most recent) child wrote to stdout / stderr.
  std::string stdout_tail() const;
  std::string stderr_tail() const;
  // Both tails, labelled, for messages: "stderr:\n...\nstdout:\n...".
  std::string output_tail(std::size_t max_bytes_per_stream = 4096) const;

 private:
  struct Child;

  Status start();
  // SIGTERM, then SIGKILL after the stop timeout; reaps. No-op if nothing runs.
  void stop();
  Status wait_ready();
  // Starts the service again if it has exited.
  Status revive();
  std::string failure(std::string_view reason) const;

  // share_cpu: pins the calling thread to the CPU it runs on (the child inherits it at fork);
  // unpin() gives that thread back the CPUs it had.
  void pin();
  void unpin();

  ProcessOptions options_;
  int port_ = 0;
  std::vector<unsigned char> saved_affinity_;  // the pinned thread's CPU set before pin()
  pid_t pinned_thread_ = 0;
  std::vector<std::string> command_;
  std::unique_ptr<Child> child_;
};

// The answer to a minimal HTTP GET.
struct ProbeResponse {
  int status = 0;
  std::string body;
};

// GET path from 127.0.0.1:port with HTTP/1.0 over a plain TCP socket, reading until the server
// closes the connection (at most 1 MiB). Fails with Status::environment if the connection fails,
// the timeout (for the whole exchange) passes, or the answer is not HTTP.
Result<ProbeResponse> http_get(int port, std::string_view path,
                               std::chrono::milliseconds timeout = std::chrono::seconds(5));

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0 and read it back).
Result<int> pick_free_port();

}  // namespace prowl
