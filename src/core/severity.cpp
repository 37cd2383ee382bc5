#include "prowl/core/severity.hpp"

namespace prowl {

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::kCritical:
      return "critical";
    case Severity::kHigh:
      return "high";
    case Severity::kMedium:
      return "medium";
    case Severity::kLow:
      return "low";
  }
  return "high";
}

std::optional<Severity> parse_severity(std::string_view text) {
  for (Severity s : {Severity::kCritical, Severity::kHigh, Severity::kMedium, Severity::kLow}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

}  // namespace prowl
