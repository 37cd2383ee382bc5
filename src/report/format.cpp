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

#include "prowl/report/json.hpp"
#include "prowl/report/junit.hpp"
#include "prowl/report/markdown.hpp"

namespace prowl {

const std::vector<std::string>& report_format_names() {
  static const std::vector<std::string> names = {"json", "junit", "markdown"};
  return names;
}

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
  const bool existed = fs::exists(path, ec);
  const int fd = ::open(spec.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) {
    return Status::invalid(fmt::format("report '{}:{}': cannot write '{}': {}", spec.format,
                                       spec.path, spec.path, std::strerror(errno)));
  }
  ::close(fd);
  if (!existed) fs::remove(path, ec);  // written when the run ends
  return Status::ok();
}

Status write_report(const ReportSpec& spec, const RunReport& report) {
  struct Writer {
    std::string_view format, label;
    std::string (*render)(const RunReport&);
    Status (*write)(const RunReport&, const std::string&);
  };
  static constexpr Writer kWriters[] = {
      {"json", "JSON", to_json, write_json_report},
      {"junit", "JUnit", to_junit, write_junit_report},
      {"markdown", "Markdown", to_markdown, write_markdown_report}};
  const auto* w = std::find_if(std::begin(kWriters), std::end(kWriters),
                               [&](const Writer& x) { return x.format == spec.format; });
  PROWL_CHECK(w != std::end(kWriters), fmt::format("unknown report format '{}'", spec.format));
  if (spec.to_stdout()) {
    std::cout << w->render(report) << std::flush;
    if (!std::cout) {
      return Status::environment(
          fmt::format("cannot write the {} report to standard output", w->label));
    }
    return Status::ok();
  }
  return w->write(report, spec.path);
}

}  // namespace prowl
