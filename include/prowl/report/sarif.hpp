// The SARIF 2.1.0 report (`--report sarif:FILE`), for code-scanning tools (GitHub code scanning,
// IDE viewers): one run whose rules are the model's invariants and the kinds of findings that
// name no invariant (action_error/ACTION, nondeterminism, service_crashed), and one result per
// finding (per path), its steps as a code flow. Each result names its bug (report/groups.hpp) in
// its message and carries it as partialFingerprints["prowlBug/v1"], so every path of one bug is
// one alert. An invariant's result is located at the line that declares it (a model file's, or
// the C++ call's); anything else at the model, as a logical location. The schema's field-by-field
// description is in docs/reports.md. Pure functions, thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "prowl/core/status.hpp"
#include "prowl/explore/report.hpp"

namespace prowl {

// The value of the document's "$schema": the OASIS schema the document conforms to.
inline constexpr std::string_view kSarifSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

// The report as a SARIF log, indented by two spaces, ending in a newline. Source files under
// `base_dir` (absolute) are written relative to it, with the uriBaseId "SRCROOT" that the run's
// originalUriBaseIds maps to `base_dir`; relative paths are taken as relative to it already;
// other absolute paths are written as file:// URIs.
std::string to_sarif_with_base(const RunReport& report, const std::filesystem::path& base_dir);

// to_sarif_with_base(report, the current working directory). Not overloaded, so that format
// tables can take its address.
std::string to_sarif(const RunReport& report);

// Writes to_sarif(report) to `path`. An environment Status naming the file when it cannot.
Status write_sarif_report(const RunReport& report, const std::string& path);

}  // namespace prowl
