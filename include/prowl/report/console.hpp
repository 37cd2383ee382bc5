// Console reporting: the human-readable rendering of a RunReport, and the live progress line.
//
// write_console_report() is deterministic: the same RunReport always renders the same text, and
// only the "seconds" values depend on timing, so golden files can compare it with those masked.
// ProgressLine rewrites one line in place with '\r'; the caller decides whether the stream is a
// terminal. Neither owns the stream it writes to; neither is thread-safe.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "prowl/explore/options.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/report/groups.hpp"

namespace prowl {

struct ConsoleOptions {
  // Only the findings and the one-line summary.
  bool quiet = false;
  // ANSI colours for a terminal: each finding's severity, its "<- fails", the count of findings
  // in the summary (red, or green for none) and "warning:". Text from the system under test is
  // escaped as ever, so none of it can carry a colour of its own. See console_color().
  bool color = false;
};

// --color's choice: never, always, or auto (colour when `stream_is_terminal`, NO_COLOR is unset
// or empty and TERM is not "dumb"; https://no-color.org). An explicit always wins over NO_COLOR.
enum class ColorChoice { kNever, kAuto, kAlways };
bool console_color(ColorChoice choice, bool stream_is_terminal);

// Writes the report: a summary of the run, each finding with its numbered steps, the per-action
// coverage table, warnings (one for each action that never ran, then the report's own, without
// repeating a line), and a final one-line summary.
void write_console_report(std::ostream& out, const RunReport& report,
                          const ConsoleOptions& options = {});

// One bug as the console shows it: the group's shortest finding, numbered as the findings (and
// their trace files) are, with its steps, then the group's other paths by number. Escaped.
void write_finding_group(std::ostream& out, const RunReport& report, const FindingGroup& group,
                         const ConsoleOptions& options = {});

// How many bugs the report holds: "no findings", "3 findings", or "3 findings (12 paths)" when
// some invariant was broken (or some action failed) by more than one path (report/groups.hpp).
std::string findings_text(const RunReport& report);

// How the run ended, as a reader should take it: "exhausted (sampled: put, get draw values)"
// rather than a bare "sampled". Escaped.
std::string termination_text(const RunReport& report);

// The final line of a console report, without a newline, e.g.
// "refund: 1 finding; 7 states, 9 transitions, 12 steps in 0.004 s (exhausted, seed 42)".
std::string summary_line(const RunReport& report);

// Live progress for Options::on_progress: states, transitions, rate, findings, elapsed. It draws
// nothing until the run has lasted longer than `delay` seconds, so short runs leave no trace, and
// pads each line so that a shorter line fully covers the previous one.
class ProgressLine {
 public:
  // REQUIRES: `out` outlives this object.
  explicit ProgressLine(std::ostream& out, double delay = 1.0) : out_(out), delay_(delay) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const Progress& progress);
  // Blanks the line if one was drawn, leaving the cursor at its start.
  void finish();
  bool drawn() const { return width_ > 0; }

 private:
  std::ostream& out_;
  double delay_;
  std::size_t width_ = 0;  // length of the line on screen
};

// Progress without a terminal (a CI log): one line every `every` seconds, such as
// "progress: 1200 states, 3400 transitions, 3 findings, 10 s", as TLC logs its progress. Lines are
// never rewritten, so logs stay readable.
class ProgressLog {
 public:
  // REQUIRES: `out` outlives this object.
  explicit ProgressLog(std::ostream& out, double every = 10) : out_(out), every_(every) {}
  ProgressLog(const ProgressLog&) = delete;
  ProgressLog& operator=(const ProgressLog&) = delete;

  void update(const Progress& progress);

 private:
  std::ostream& out_;
  double every_;
  double next_ = 0;  // seconds of the next line (0: at `every`)
};

}  // namespace prowl
