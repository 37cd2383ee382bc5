// Explorer findings as traces (docs/trace-format.md, "Explorer findings as traces"): a Finding
// becomes a trace::Trace of kind "explore" whose steps are "SEED ACTION" (explorer actions take no
// arguments and return no handles), each after a comment with the outcome and detail it had when
// it was found; and a trace read back becomes the steps a Replayer runs. The header names the
// model and records the failure (finding=KIND:NAME), its severity, and the run's seed and
// strategy. For example (the header is one line in the file):
//
//   prowl-trace 1 refund kind=explore finding=invariant:refund_at_most_once severity=critical
//     seed=42 strategy=bfs
//   # ok: order 0
//   16686089448734911991 create_order
//   # ok: order 0
//   287608347659713415 refund
//   # ok: order 0
//   16025794337427511928 refund
//   # fails after step 3: order 0 was refunded 20 for a price of 10
//
// Pure functions over plain data; reading and writing files is the caller's business.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/explore/finding.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl {

// The value of the `kind` option of an explorer trace.
inline constexpr std::string_view kExploreTraceKind = "explore";

// The word a trace uses for a kind of finding: "invariant", "action_error", "nondeterminism" or
// "service_crashed".
std::string_view trace_kind_name(FindingKind kind);

// Which failure a trace records, as its `finding` option writes it: KIND:NAME, e.g.
// "invariant:refund_at_most_once" or "action_error:explode".
struct FailureId {
  FindingKind kind = FindingKind::kInvariant;
  std::string name;  // the invariant's or the failing action's name (a crash: the system's)

  std::string to_string() const;
  friend bool operator==(const FailureId&, const FailureId&) = default;
};

// The header of a finding's trace: the report's model, then kind=explore, finding=KIND:NAME,
// severity, seed and strategy, in that order. Callers add their own options with set_option()
// (run_main adds the program's own flags, `prowl explore` the model-file).
trace::Header finding_trace_header(const RunReport& report, const Finding& finding);

// The finding's trace under `header`: one step "SEED ACTION" per step of the finding, each after a
// one-line comment "OUTCOME: DETAIL" (cut to about 120 bytes), then a trailing comment saying
// where it fails and the finding's message (its first line, cut likewise).
trace::Trace finding_to_trace(const Finding& finding, trace::Header header);
// finding_to_trace(finding, finding_trace_header(report, finding)).
trace::Trace finding_to_trace(const RunReport& report, const Finding& finding);

// The file name of a report's `number`th finding (1-based, as the console numbers them):
// "NNN-KIND-NAME.trace", e.g. "001-invariant-refund_at_most_once.trace"; characters of the name
// other than letters, digits, '_', '-' and '.' become '_'.
std::string finding_trace_file_name(std::size_t number, const Finding& finding);

// The steps of an explorer trace for the Replayer (seed and action; no outcome or detail). Fails
// with an invalid Status "SOURCE:LINE: ..." when the trace is of another kind (a `kind` option
// other than "explore") or of another model than `model` (both reported on line 1, the header),
// or when a step has arguments or a return line or names an action the model does not have.
Result<std::vector<TraceStep>> trace_to_steps(const trace::Trace& trace, const Model& model,
                                              std::string_view source);

// The failure the trace records in its `finding` option; nullopt when it has none (a hand-written
// trace). A malformed option is an invalid Status "SOURCE:1: ...".
Result<std::optional<FailureId>> recorded_failure(const trace::Trace& trace,
                                                  std::string_view source);

}  // namespace prowl
