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
// The port is the service's: begin() refuses a fixed port (or ready_port) on which another
// process already listens, naming that process, rather than send prowl's requests to (and change
// the data of) a developer's own copy of the service. Once a start is ready, every socket that
// listens on the port must belong to the service's process group (the kernel's socket
// diagnostics, /proc/PID/fd); a squatter that answered the readiness check while the service
// failed to bind stops the start.
//
// Output: the child's stdout and stderr go to pipes drained by one background thread per running
// child into in-memory buffers that keep the last `output_limit` bytes of each stream (the start
// of a long log is dropped, the tail that explains a failure is kept). The buffers hold the output
// of the current, or most recent, child only.
//
// Failures the environment causes (the command cannot be run, the port is taken, the service
// exits during startup, never becomes ready, dies between steps) are Status::environment values
// whose message names the service, the command, the reason (timeout, exit code or signal) and
// the tail of the captured output. A service that ended by itself says so through died().
//
// Secrets: every value of ProcessOptions::secrets is replaced by "[REDACTED]" in every message,
// output tail and died() text; the command shown in messages keeps the {dsn} placeholder instead
// of the DSN (which may hold a password).
//
// Signals: each running child's process group is registered with register_child_group()
// (prowl/core/interrupt.hpp), so a forced exit (the third Ctrl-C) kills it. Waiting for the
// service to become ready ends at the first signal that arrives during the wait. A prowl that ends
// without stopping its services (SIGKILL, an abort) takes them along: each child asks the kernel
// for SIGKILL when the thread that started it exits (PR_SET_PDEATHSIG). So begin() and reset()
// belong on a thread that outlives the service, as the explorer's workers do.
//
// Ownership: a ProcessSystem owns its child process and the drainer thread. It is driven from one
// thread (like every System); the accessors for the captured output may be called from any thread.
// Separate ProcessSystems (the workers' copies) may be driven from separate threads.
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
  // in braces is left as it is. argv[0] without a '/' is searched in PATH (the PATH of `env` if
  // it sets one); a relative argv[0] with a '/' ("./shop_api") is resolved against working_dir.
  std::vector<std::string> argv;
  // The value of {port}. 0: a free loopback TCP port is chosen at begin() (by binding
  // 127.0.0.1:0 and reading the port back) and kept for every restart. A fixed port must be free
  // at begin(): a port on which another process listens fails the start.
  int port = 0;
  std::string db;   // the value of {db}
  std::string dsn;  // the value of {dsn}
  // Where the service runs; empty: the current directory.
  std::string working_dir;
  // Variables added to (or replacing those of) the inherited environment.
  std::vector<std::pair<std::string, std::string>> env;
  // Values never shown (passwords, tokens): replaced by "[REDACTED]" in every message, output tail
  // and died() text. The service itself gets them as given (in argv, env, {dsn}).
  std::vector<std::string> secrets;

  // Readiness. If health_path is not empty, the service is ready when
  // GET http://127.0.0.1:{port}{health_path} answers with a 2xx status. Otherwise it is ready when
  // a TCP connection to 127.0.0.1:ready_port succeeds (0: the port of {port}). A ready_port is
  // checked like a fixed port: free at begin(), the service's once it is ready.
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

  // Starts the service and waits until it is ready. Fails with Status::environment, without
  // starting anything, when another process listens on a fixed port or ready_port, or when the
  // program cannot be found; and when a start's port turns out to be served by another process.
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
  // Empty while the current child runs, before begin(), and after prowl stopped it; once it ended
  // by itself (during a step or during its startup):
  //   exited with code 3                 or   was killed by signal 11 (Segmentation fault)
  //   last lines of its stderr:
  //   <up to the last 10 non-empty lines of stderr, each escaped, cut after 500 bytes>
  // or, second line, "(it wrote nothing to stderr)". Secrets redacted. A restart (begin, reset, a
  // restore that revives) clears it. Costs one waitid(WNOHANG | WNOWAIT) while the child runs;
  // reaps it once it has exited, like check_alive().
  std::string died() const override;
  // A service that died while idle between steps, which a restore found dead and restarted before
  // anything asked died(): what ended it. Taking it clears it.
  std::string take_unreported_death() override { return std::exchange(unreported_death_, {}); }

  // The value of {port} (after begin() when it is chosen at run time).
  int port() const { return port_; }
  // The pid of the running child, or -1. The child leads its own process group (pgid == pid).
  pid_t pid() const;
  // The command line after placeholder substitution (empty before begin()). It holds the real
  // values ({dsn}, secrets): not for messages.
  const std::vector<std::string>& command() const { return command_; }
  // The end of what the current (or most recent) child wrote to stdout / stderr, secrets redacted.
  std::string stdout_tail() const;
  std::string stderr_tail() const;
  // Both tails, labelled, for messages: "stderr:\n...\nstdout:\n...".
  std::string output_tail(std::size_t max_bytes_per_stream = 4096) const;

 private:
  struct Child;

  // launch(), then waits until the child is ready and checks that its ports are its own.
  Status start();
  // Finds the program and starts the child (fork, exec) with its output drained.
  Status launch();
  // SIGTERM, then SIGKILL after the stop timeout; reaps. No-op if nothing runs.
  void stop();
  Status wait_ready();
  // Starts the service again if it has exited.
  Status revive();

  // process_ports.cpp: the fixed ports are free before begin() starts anything; once ready, the
  // ports are served by the child's process group only (else the child is stopped).
  Status check_ports_free() const;
  Status check_ports_owned();
  std::vector<int> ports_to_check(bool fixed_only) const;

  // process_output.cpp. "service 'NAME' (`COMMAND`) REASON" and the output tail, redacted.
  std::string failure(std::string_view reason) const;
  // The same, without an output tail, for a start that did not get as far as running anything.
  std::string cannot_start(std::string_view reason) const;
  std::string redact(std::string_view text) const;

  // share_cpu: pins the calling thread to the CPU it runs on (the child inherits it at fork);
  // unpin() gives that thread back the CPUs it had.
  void pin();
  void unpin();

  ProcessOptions options_;
  std::vector<std::string> secrets_;  // options_.secrets, longest first
  int port_ = 0;
  std::vector<unsigned char> saved_affinity_;  // the pinned thread's CPU set before pin()
  pid_t pinned_thread_ = 0;
  std::vector<std::string> command_;
  std::string shown_command_;  // for messages: {dsn} kept as the placeholder, secrets redacted
  std::unique_ptr<Child> child_;
  std::string unreported_death_;
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
