// The Markdown report (`--report markdown:FILE`), for a pull-request comment: the run in a table,
// one section per bug (report/groups.hpp) with a Mermaid diagram of its shortest path, the steps,
// the other paths and the failing state, then the coverage table. Everything the system under
// test or the model wrote is shown inside code spans and fenced blocks whose fences are longer
// than any run of backticks in it, and Mermaid labels are entity-coded, so no value can turn into
// markup, a link or a diagram of its own. Pure functions, thread-safe.
#pragma once

#include <string>

#include "prowl/core/status.hpp"
#include "prowl/explore/report.hpp"

namespace prowl {

std::string to_markdown(const RunReport& report);

// Writes to_markdown(report) to `path`. An environment Status naming the file when it cannot.
Status write_markdown_report(const RunReport& report, const std::string& path);

}  // namespace prowl
