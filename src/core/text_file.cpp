#include "prowl/core/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace prowl {

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::invalid(path + ": cannot read the " + std::string(what) + ": " +
                           std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace prowl
