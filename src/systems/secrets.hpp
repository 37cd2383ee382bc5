// Redaction of secret values (passwords, tokens) in text that prowl shows: messages, a service's
// output, a step's URL and bodies. Shared by ProcessSystem and HttpClient. Pure functions,
// thread-safe. Internal to src/systems.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace prowl::detail {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// The secrets to redact, longest first (so that a secret containing another is replaced whole),
// without empty or repeated values.
std::vector<std::string> longest_first(std::vector<std::string> secrets);

// `text` with every occurrence of a secret replaced by "[REDACTED]", in one pass from left to
// right: at each position the first secret of the list that matches there is replaced (pass
// longest_first()'s list, so the longest wins). The text a replacement inserts is not searched.
std::string redact_secrets(std::string_view text, const std::vector<std::string>& secrets);

}  // namespace prowl::detail
