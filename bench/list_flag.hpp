// A bench's comma-separated flag value ("maze6,er-app") as its items, in order; an empty item
// where two commas meet or the text ends with one.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace bench {

inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

}  // namespace bench
