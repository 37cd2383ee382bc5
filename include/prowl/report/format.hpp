// Report formats by name, for the `--report FORMAT:FILE` flag. Each format is one file under
// src/report/ (json, junit, sarif, markdown, dot) and one entry in the registry of formats in
// format.cpp (its name, label and renderer); a part above this one adds its own with
// register_report_format() (html: prowl::report_html, which needs Graphviz). Registering is not
// thread-safe and happens before flags are parsed; everything else is safe from any thread.
#pragma once

#include <span>
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

// One report format: what `--report` calls it, what messages call it ("cannot write JSON report
// 'x'"), and its rendering of a whole report.
struct ReportFormat {
  std::string_view name;
  std::string_view label;
  std::string (*render)(const RunReport&) = nullptr;
  // The format draws the explored graph: the run must record it (Options::record_edges).
  bool needs_graph = false;
};

// Every format, in the order help texts list them: the built-in ones, then those registered. The
// span is valid until the next register_report_format().
std::span<const ReportFormat> report_formats();
// Adds a format rendered by a part above this one; its strings must outlive the program.
// Registering the same format again does nothing. Not thread-safe: call it from main's thread
// before reading the registry (run_main's CommandLine does, for the parts it links).
void register_report_format(const ReportFormat& format);
// The registry's format named `name`, or nullptr.
const ReportFormat* find_report_format(std::string_view name);
// Whether a run written to `specs` must record its graph (Options::record_edges).
bool reports_need_graph(const std::vector<ReportSpec>& specs);

// The formats write_report() knows, in the order help texts list them (report_formats()' names).
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
