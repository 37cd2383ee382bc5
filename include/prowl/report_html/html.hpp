// The HTML report (`--report html:FILE`): one self-contained page to open in a browser or attach
// to a CI job. The run's figures; each bug (report/groups.hpp) with its shortest path's steps
// (action, outcome, detail, and the HTTP request and answer when the step sent one), the failing
// state and its other paths; the explored state graph as inline SVG laid out by Graphviz's dot
// layout (the view of report/graph_view.hpp: the findings' paths highlighted, under a node
// budget); the coverage table and the warnings.
//
// The page loads nothing and runs nothing: its styles and the SVG are inline, and its Content
// Security Policy (default-src 'none'; style-src 'unsafe-inline'; img-src data:) forbids scripts
// and every fetch. Everything the system under test or the model wrote is escaped (escape.hpp:
// control characters, bidi overrides and bytes that are not UTF-8) and then HTML-escaped
// (& < > " '), and reaches Graphviz as DOT quoted strings (report/dot.hpp), so no value can
// become markup. This part links Graphviz (libgvc); prowl::explore does not, so programs that
// never write HTML do not either: register_html_report() makes `html` a report format.
// Thread-safe (Graphviz runs under a process-wide lock).
#pragma once

#include <string>

#include "prowl/core/status.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/report/graph_view.hpp"

namespace prowl {

struct HtmlOptions {
  GraphViewOptions graph{};
};

std::string to_html(const RunReport& report, const HtmlOptions& options = {});

// Writes to_html(report) to `path`. An environment Status naming the file when it cannot.
Status write_html_report(const RunReport& report, const std::string& path);

// Adds `html` to the report formats (report/format.hpp), as a format that needs the run's graph.
// Not thread-safe, like register_report_format(); registering again does nothing.
void register_html_report();

}  // namespace prowl
