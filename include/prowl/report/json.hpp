// JSON report: a RunReport as a versioned JSON document, the source for every other machine
// format. The schema is documented field by field in docs/json-report.md; within one version,
// fields are only ever added. Stateless functions, safe to call from any thread.
#pragma once

#include <string>
#include <string_view>

#include "prowl/core/status.hpp"
#include "prowl/explore/report.hpp"

namespace prowl {

// The value of the document's "version" field.
inline constexpr std::string_view kJsonReportVersion = "1";

// The report as a JSON document, indented by two spaces, ending in a newline. Fields appear in
// the order docs/json-report.md lists them.
std::string to_json(const RunReport& report);

// Reads a document to_json() wrote (this version's, or an earlier one of the same version) back
// into a RunReport; its groups are worked out again from the findings. An invalid Status when it
// is not JSON ("not JSON: parse error at line 3, column 5: ...") or a field is missing or not of
// its type, naming the field by its path ("findings[2].steps[0].seed: expected a seed as a
// decimal string, found \"x\"").
Result<RunReport> parse_json_report(std::string_view text);

// Writes to_json(report) to `path`, replacing the file. An environment Status, naming the file,
// when it cannot be written.
Status write_json_report(const RunReport& report, const std::string& path);

}  // namespace prowl
