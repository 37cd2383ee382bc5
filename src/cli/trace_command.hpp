// The trace side of run_main: `PROGRAM replay TRACE`, `PROGRAM shrink TRACE [-o OUT]` (and
// `prowl replay` / `prowl shrink`, which are run_main programs with a fixed command), and the
// --trace-dir files of an exploration. Output goes to the given streams; files are read and
// written directly. Not thread-safe.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl::detail {

// One trace to replay or shrink.
struct TraceCommand {
  std::string program;  // names the program in messages about the environment
  std::string path;     // the trace file, as given; names it in messages about the trace
  trace::Trace trace;   // as read from `path`
  std::string output;  // shrink: where the shrunk trace goes; empty: trace::shrunk_trace_path(path)
  // shrink: set in the shrunk trace's header (the program's flags and trace options as used).
  std::vector<std::pair<std::string, std::string>> options;
};

// Replays the trace from the initial state (going on past failures, as confirming a finding
// does) and prints each step with its outcome and detail, the failures, the final state when
// the systems describe it, and whether the recorded failure happened and after which step.
// Returns the exit code: 1 when anything failed (the recorded failure or another), 0 when the
// trace ran clean, 2 when the trace does not fit the model (message "PATH:LINE: ..." on `err`),
// 3 when the environment failed.
int replay_trace_command(const Model& model, const TraceCommand& command, std::ostream& out,
                         std::ostream& err);

// Replays the trace, which must fail (the recorded failure, or any when it records none; else
// exit 2), shortens it by delta debugging while the same failure (kind and name) still happens,
// prints "steps: N -> M" and the remaining steps, and writes the shrunk trace: the original
// header with finding=, severity=, the command's options and shrunk-from=N set, and fresh
// outcome comments. Returns 1
// (the failure still is a finding), or 2 or 3 as replay_trace_command does.
int shrink_trace_command(const Model& model, const TraceCommand& command, std::ostream& out,
                         std::ostream& err);

// Creates the --trace-dir directory (and its parents) unless it exists already.
Status create_trace_dir(const std::string& dir);

// Writes each finding of the report to DIR/NNN-KIND-NAME.trace (finding_trace_file_name), with
// `extra_options` added to each header; returns the paths written, in the report's order.
Result<std::vector<std::string>> write_finding_traces(
    const RunReport& report, const std::string& dir,
    const std::vector<std::pair<std::string, std::string>>& extra_options);

}  // namespace prowl::detail
