#include <iostream>
#include <string_view>

#include "commands.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/version.hpp"

namespace prowl::app {

int version_command(int argc, char** argv) {
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::cout << "Usage: prowl version\nPrints prowl's version.\n";
    return kExitOk;
  }
  if (argc > 1) {
    std::cerr << "prowl version: takes no arguments\n";
    return kExitUsage;
  }
  std::cout << "prowl " << version() << '\n';
  return kExitOk;
}

}  // namespace prowl::app
