// Writing a rendered report to its file, for every format's write_*_report(), and what the
// formats write alike.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "prowl/core/status.hpp"

namespace prowl::detail {

// Writes `text` to `path`, replacing it. An environment Status naming the format and the file when
// it cannot ("cannot write JUnit report 'x.xml': Permission denied").
inline Status write_report_file(const std::string& path, const std::string& text,
                                std::string_view format) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file << text;
  if (file) file.close();
  if (!file) {
    return Status::environment(
        fmt::format("cannot write {} report '{}': {}", format, path, std::strerror(errno)));
  }
  return Status::ok();
}

// A seed as the JSON and SARIF reports write it. Seeds are 64-bit: decimal strings, so that
// parsers that read numbers as doubles (JavaScript, for one) do not round them.
inline std::string seed_text(std::uint64_t seed) { return std::to_string(seed); }

}  // namespace prowl::detail
