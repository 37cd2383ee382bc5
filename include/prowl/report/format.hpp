// Report formats by name, for the `--report FORMAT:FILE` flag. Each format is one file under
// src/report/ (json for now); adding one means adding its name to report_format_names() and its
// writer to write_report(). Stateless, safe to call from any thread.
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
  std::string path;
};

// The formats write_report() knows, in the order help texts list them.
const std::vector<std::string>& report_format_names();

// Parses "FORMAT:FILE", splitting at the first ':' so that FILE may contain colons. An invalid
// Status when the colon, the format or the file is missing, or the format is unknown (the message
// lists the known ones).
Result<ReportSpec> parse_report_spec(std::string_view text);

// Writes the report in the spec's format. An environment Status when the file cannot be written.
// REQUIRES: spec.format is one of report_format_names().
Status write_report(const ReportSpec& spec, const RunReport& report);

}  // namespace prowl
