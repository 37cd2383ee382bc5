// Report formats by name, for the `--report FORMAT:FILE` flag. Each format is one file under
// src/report/ (json, junit, markdown); adding one means adding its name to report_format_names()
// and its writer to write_report(). Stateless, safe to call from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/explore/report.hpp"

namespace prowl {

// Where to write which format of report.
struct ReportSpec {
  std::string format;  // one of report_format_names()
  std::string path;    // "-": standard output
  bool to_stdout() const { return path == "-"; }
};

// The formats write_report() knows, in the order help texts list them.
const std::vector<std::string>& report_format_names();

// Parses "FORMAT:FILE", splitting at the first ':' so that FILE may contain colons. An invalid
// Status when the colon, the format or the file is missing, or the format is unknown (the message
// lists the known ones).
Result<ReportSpec> parse_report_spec(std::string_view text);

// Checks, before a run, that the report can be written where the spec says: creates the file's
// directory when missing, and refuses a directory or a file that cannot be opened for writing
// (an invalid Status naming it, exit code 2), so that a bad path does not cost a whole run. Leaves
// no file behind that was not there.
Status check_report_destination(const ReportSpec& spec);

// Writes the report in the spec's format, to standard output for the path "-". An environment
// Status when the file cannot be written. REQUIRES: spec.format is one of report_format_names().
Status write_report(const ReportSpec& spec, const RunReport& report);

}  // namespace prowl
