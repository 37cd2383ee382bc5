// A fuzz campaign as a RunReport, so that every report format (console, JSON, JUnit, SARIF,
// Markdown; `--report FORMAT:FILE` of `PROGRAM fuzz`) renders a campaign from the same data as an
// explorer run. Each bucket is one finding, and so one bug (report/groups.hpp), named by its
// signature:
//
//   bucket kind   finding kind     severity   why
//   finding       action_error     high       an oracle in the action fired (it returned an error)
//   timeout       action_error     high       the action did not return within --run-timeout
//   crash         service_crashed  critical   the process running the library died in the action
//   stuck         invariant        low        a model error: the machine's own rule that some
//                                             transition is always enabled does not hold
//
// A finding's steps are the bucket's kept trace (OUT/NNN-KIND/trace), the last one failing; its
// message is what failed in the session's first run of the bucket; its state says how often the
// bucket was hit and where its files are. Buckets are not replayed, so no finding is confirmed.
// The figures: stats.steps are the calls made, stats.transitions those that returned,
// stats.restores the runs (each starts from a fresh target), stats.states the machine's states
// entered; the coverage is per action (enabled: picked; executed: attempted; ok: succeeded;
// errors: failing runs; rejected: the rest). Strategy "fuzz", restore mode reset, termination
// max_steps when --runs was reached, time_limit, or interrupted. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "prowl/explore/report.hpp"
#include "prowl/fsm/fuzzer.hpp"
#include "prowl/trace/trace.hpp"

namespace prowl::fsm {

// What campaign_report() turns into a RunReport.
struct Campaign {
  std::string model;      // the machine's name
  FuzzOptions options{};  // as the session ran: its seed, run and time limits
  FuzzSummary summary{};  // its buckets, in the order they were first hit
  // Each bucket's kept trace, in the order of summary.buckets (empty steps when not known).
  std::vector<trace::Trace> traces{};
  std::vector<ActionCoverage> coverage{};  // campaign_coverage()
  std::uint64_t states_entered = 0;        // the machine's states entered at least once
  std::vector<std::string> warnings{};
};

RunReport campaign_report(const Campaign& campaign);

// Per action of the machine, its counts in `stats` (shared by every run of the session) and the
// failing runs of the summary's buckets.
std::vector<ActionCoverage> campaign_coverage(const MachineCore& machine, const Stats& stats,
                                              const FuzzSummary& summary);

// How many of the machine's states `stats` saw entered.
std::uint64_t states_entered(const MachineCore& machine, const Stats& stats);

// Reads each bucket's kept trace (DIR/trace) into campaign.traces; a trace that cannot be read
// stays empty and is named in campaign.warnings.
void read_bucket_traces(Campaign& campaign);

}  // namespace prowl::fsm
