#include "prowl/modelfile/spec.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace prowl::modelfile {

bool StatusSet::contains(int status) const {
  return std::find(codes.begin(), codes.end(), status) != codes.end() ||
         std::find(classes.begin(), classes.end(), status / 100) != classes.end();
}

std::string_view header_value_problem(std::string_view value) {
  if (value.find_first_of("\r\n") != std::string_view::npos) return "a line break";
  if (value.find('\0') != std::string_view::npos) return "a NUL character";
  return {};
}

std::string StatusSet::str() const {
  if (empty()) return "none";
  std::vector<std::string> parts;
  for (int c : codes) parts.push_back(std::to_string(c));
  for (int c : classes) parts.push_back(fmt::format("{}xx", c));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace prowl::modelfile
