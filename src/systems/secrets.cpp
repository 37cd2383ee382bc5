#include "secrets.hpp"

#include <algorithm>

namespace prowl::detail {

std::vector<std::string> longest_first(std::vector<std::string> secrets) {
  secrets.erase(std::remove(secrets.begin(), secrets.end(), std::string()), secrets.end());
  std::sort(secrets.begin(), secrets.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  secrets.erase(std::unique(secrets.begin(), secrets.end()), secrets.end());
  return secrets;
}

std::string redact_secrets(std::string_view text, const std::vector<std::string>& secrets) {
  if (secrets.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto match = std::find_if(secrets.begin(), secrets.end(), [&](const std::string& s) {
      return !s.empty() && text.compare(i, s.size(), s) == 0;
    });
    if (match != secrets.end()) {
      out += kRedacted;
      i += match->size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace prowl::detail
