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

// Writes to_json(report) to `path`, replacing the file. An environment Status, naming the file,
// when it cannot be written.
Status write_json_report(const RunReport& report, const std::string& path);

}  // namespace prowl
