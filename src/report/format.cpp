#include "prowl/report/format.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <system_error>

#include <fmt/format.h>

#include "prowl/report/dot.hpp"
#include "prowl/report/json.hpp"
#include "prowl/report/junit.hpp"
#include "prowl/report/markdown.hpp"
#include "prowl/report/sarif.hpp"
#include "report_file.hpp"

namespace prowl {

namespace {

// The built-in formats, then those parts above this one registered (in their order).
std::vector<ReportFormat>& formats() {
  static std::vector<ReportFormat> all = {
      {.name = "json", .label = "JSON", .render = to_json},
      {.name = "junit", .label = "JUnit", .render = to_junit},
      {.name = "sarif", .label = "SARIF", .render = to_sarif},
      {.name = "markdown", .label = "Markdown", .render = to_markdown},
      {.name = "dot",
       .label = "DOT",
       .render = [](const RunReport& r) { return to_dot(r); },
       .needs_graph = true}};
  return all;
}

std::vector<std::string>& listed_formats() {
  static std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const ReportFormat& f : formats()) v.emplace_back(f.name);
    return v;
  }();
  return all;
}

}  // namespace

std::span<const ReportFormat> report_formats() { return formats(); }

void register_report_format(const ReportFormat& format) {
  PROWL_CHECK(format.render != nullptr, "register_report_format: a format without a renderer");
  for (const ReportFormat& known : formats()) {
    if (known.name == format.name) {
      PROWL_CHECK(known.render == format.render,
                  "register_report_format: two report formats named alike");
      return;
    }
  }
  std::vector<std::string>& listed =
      listed_formats();  // built before the format is added to formats()
  formats().push_back(format);
  listed.emplace_back(format.name);
}

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& f : formats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool reports_need_graph(const std::vector<ReportSpec>& specs) {
  return std::any_of(specs.begin(), specs.end(), [](const ReportSpec& spec) {
    const ReportFormat* f = find_report_format(spec.format);
    return f != nullptr && f->needs_graph;
  });
}

const std::vector<std::string>& report_format_names() { return listed_formats(); }

Result<ReportSpec> parse_report_spec(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return Status::invalid(
        fmt::format("report '{}' is not FORMAT:FILE (for example json:out.json)", text));
  }
  ReportSpec spec{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
  const auto& names = report_format_names();
  if (std::find(names.begin(), names.end(), spec.format) == names.end()) {
    return Status::invalid(fmt::format("unknown report format '{}' in '{}'; choose one of: {}",
                                       spec.format, text, fmt::join(names, ", ")));
  }
  if (spec.path.empty()) {
    return Status::invalid(fmt::format("report '{}' names no file after the ':'", text));
  }
  return spec;
}

Status check_report_destination(const ReportSpec& spec) {
  namespace fs = std::filesystem;
  if (spec.to_stdout()) return Status::ok();
  const fs::path path(spec.path);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return Status::invalid(fmt::format(
        "report '{}:{}': '{}' is a directory; give a file name, such as {}", spec.format, spec.path,
        spec.path, (path / ("report." + spec.format)).string()));
  }
  if (const fs::path parent = path.parent_path(); !parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec || !fs::is_directory(parent)) {
      return Status::invalid(fmt::format("report '{}:{}': cannot create the directory '{}': {}",
                                         spec.format, spec.path, parent.string(),
                                         ec ? ec.message() : "a file of that name is in the way"));
    }
  }
  // Created here only when nothing, not even a symbolic link, is at the path (O_EXCL follows no
  // link), and then removed again: the report is written when the run ends.
  int fd = ::open(spec.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  const bool created = fd >= 0;
  if (fd < 0 && errno == EEXIST) {
    fd = ::open(spec.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);  // a file, or a link to one
    // A link to a file that is not there yet: the report will create it, as it would have.
    if (fd < 0 && errno == ENOENT) return Status::ok();
  }
  if (fd < 0) {
    return Status::invalid(fmt::format("report '{}:{}': cannot write '{}': {}", spec.format,
                                       spec.path, spec.path, std::strerror(errno)));
  }
  ::close(fd);
  if (created) ::unlink(spec.path.c_str());
  return Status::ok();
}

Status write_report(const ReportSpec& spec, const RunReport& report) {
  const ReportFormat* w = find_report_format(spec.format);
  PROWL_CHECK(w != nullptr, fmt::format("unknown report format '{}'", spec.format));
  if (spec.to_stdout()) {
    std::cout << w->render(report) << std::flush;
    if (!std::cout) {
      return Status::environment(
          fmt::format("cannot write the {} report to standard output", w->label));
    }
    return Status::ok();
  }
  return detail::write_report_file(spec.path, w->render(report), w->label);
}

}  // namespace prowl
