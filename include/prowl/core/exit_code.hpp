// Exit codes: the one table every prowl program follows (the prowl tool, programs built on
// run_main or fuzz_main, the benchmarks), so that a script or a CI job can tell findings from a
// broken setup without reading the output:
//
//   0      no findings                        kExitOk
//   1      findings                           kExitFindings
//   2      bad usage, options or model,       kExitUsage
//          or a malformed trace
//   3      environment failure                kExitEnvironment
//   4      inconclusive: a proof that ended   kExitInconclusive
//          at its depth cap or time limit, or
//          where the solver answered unknown
//   70     internal error: a broken           kExitInternal
//          precondition in prowl (LogicError) or an unexpected exception; a bug to report
//   128+N  interrupted by signal N, after     signal_exit_code(N); interrupt_exit_code()
//          restoring the systems and          (prowl/core/interrupt.hpp) for the signal that
//          writing the reports                arrived: 130 SIGINT, 143 SIGTERM, 129 SIGHUP
//
// Status::exit_code() maps a failed Status onto this table. The signal codes are the ones shells
// report for a process a signal killed, so a wrapper script sees the same either way.
#pragma once

namespace prowl {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitEnvironment = 3;
inline constexpr int kExitInconclusive = 4;
inline constexpr int kExitInternal = 70;  // EX_SOFTWARE of sysexits.h
inline constexpr int kExitSignalBase = 128;

// The exit code of a run the signal `sig` interrupted. Async-signal-safe.
constexpr int signal_exit_code(int sig) { return kExitSignalBase + sig; }

}  // namespace prowl
