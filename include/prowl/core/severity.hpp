// Severity of an invariant: how bad it is when it fails.
#pragma once

#include <optional>
#include <string_view>

namespace prowl {

enum class Severity { kCritical, kHigh, kMedium, kLow };

std::string_view to_string(Severity severity);
// Parses "critical", "high", "medium" or "low".
std::optional<Severity> parse_severity(std::string_view text);

}  // namespace prowl
