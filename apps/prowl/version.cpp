#include <iostream>

#include "commands.hpp"
#include "prowl/cli/run_main.hpp"
#include "prowl/cli/version.hpp"

namespace prowl::app {

int version_command(int argc, char** /*argv*/) {
  if (argc > 1) {
    std::cerr << "prowl version: takes no arguments\n";
    return kExitUsage;
  }
  std::cout << "prowl " << version() << '\n';
  return kExitOk;
}

}  // namespace prowl::app
