#include "prowl/modelfile/spec.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace prowl::modelfile {

bool StatusSet::contains(int status) const {
  return std::find(codes.begin(), codes.end(), status) != codes.end() ||
         std::find(classes.begin(), classes.end(), status / 100) != classes.end();
}

std::string StatusSet::str() const {
  if (empty()) return "none";
  std::vector<std::string> parts;
  for (int c : codes) parts.push_back(std::to_string(c));
  for (int c : classes) parts.push_back(fmt::format("{}xx", c));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace prowl::modelfile
