#include "prowl/report/format.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "prowl/report/json.hpp"

namespace prowl {

const std::vector<std::string>& report_format_names() {
  static const std::vector<std::string> names = {"json"};
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

Status write_report(const ReportSpec& spec, const RunReport& report) {
  PROWL_CHECK(spec.format == "json", fmt::format("unknown report format '{}'", spec.format));
  return write_json_report(report, spec.path);
}

}  // namespace prowl
