// Interrupts: how a signal (Ctrl-C, a CI job's timeout, a closed terminal) asks a run to stop, and
// how the run learns of it. Nothing is done inside the signal handler but counting: the run polls
// interrupts() at its own safe points (between steps, between replays) and stops there, so that it
// can still restore the systems under test, stop the services and write its reports.
//
//   1st SIGINT, SIGTERM or SIGHUP   stop picking; the step in flight finishes (or is abandoned, and
//                                   then not counted); findings are confirmed while the grace
//                                   period lasts; systems restored; reports written; exit 128+sig
//   2nd                             the same, without (the rest of) the confirmation
//   3rd                             the process ends at once: every registered child process group
//                                   is killed and the process exits with 128 + the first signal;
//                                   nothing is restored (the next run recovers the databases)
//
// Child process groups (services) register here so that the third signal, which cannot run any
// cleanup code, still takes them along. Everything here is async-signal-safe where the handler
// touches it (lock-free atomics only) and thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string_view>

namespace prowl {

// Installs the handlers for SIGINT, SIGTERM and SIGHUP, once per process (later calls do nothing),
// and ignores SIGPIPE (a write to a closed pipe fails instead of ending the process before it
// restores anything). Until a program calls it, signals keep their default effect.
void install_interrupt_handlers();

// How many of those signals arrived since the process started (or since clear_interrupts()).
int interrupts();
// The first one's number, 0 when none arrived.
int interrupt_signal();
// signal_exit_code(interrupt_signal()) (prowl/core/exit_code.hpp): 130 for SIGINT, 143 for
// SIGTERM, 129 for SIGHUP.
// REQUIRES: interrupts() > 0.
int interrupt_exit_code();
// "SIGINT", "SIGTERM", "SIGHUP", "SIGKILL", or "signal" for any other.
std::string_view signal_name(int sig);

// As if `sig` had arrived: counted like a real signal, without the handler (tests, and programs
// that want to stop a run from another thread). The third one does not end the process.
void request_interrupt(int sig);
// Forgets every interrupt so far (tests; a program that runs several commands in turn).
void clear_interrupts();

// Runs `work` on a thread of its own and waits for it. Once `should_stop()` (polled every 20 ms,
// on the calling thread) turns true, `work` has `grace` to return. True when it returned; false
// when it did not: it then still runs, on a detached thread, and the caller must end the process
// (std::_Exit) without touching anything `work` uses. For work inside a library call that may not
// honour its own interrupt soon enough (a Z3 tactic; prowl reach). An exception `work` throws is
// rethrown here.
bool run_with_grace(std::function<void()> work, const std::function<bool()>& should_stop,
                    std::chrono::milliseconds grace);

// Registers a child's process group, killed with SIGKILL on the third signal; returns a slot for
// unregister_child_group(), or -1 when all 64 slots are taken (the child then is not killed on a
// forced exit, but is still stopped normally and dies with its parent: PR_SET_PDEATHSIG).
int register_child_group(pid_t pgid);
void unregister_child_group(int slot);

}  // namespace prowl
