// `prowl demo`: explores the bundled shop service (examples/shop_api) through real HTTP: prowl
// starts shop_api on a loopback port with a SQLite file in a fresh temporary directory, explores
// it breadth-first by the model examples/shop_api/shop.yaml, restoring the database file between
// branches, and reports the seeded bugs with their shortest reproductions.
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "prowl/cli/run_main.hpp"

namespace prowl::app {

namespace {

namespace fs = std::filesystem;

// The shop service's binary: where the build put it, else next to this program (installed).
fs::path shop_api_binary() {
  std::error_code ec;
#ifdef PROWL_SHOP_API_BINARY
  if (fs::exists(PROWL_SHOP_API_BINARY, ec)) return PROWL_SHOP_API_BINARY;
#endif
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("shop_api") : self.parent_path() / "shop_api";
}

// Removes the demo's temporary directory however the demo returns.
struct TempDir {
  fs::path path;
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

int demo_command(int argc, char** argv) {
  MainSettings settings;
  settings.program = "prowl demo";
  settings.description =
      "Explores the bundled shop service (examples/shop_api) through real HTTP: prowl starts it\n"
      "on a loopback port with a SQLite database in a fresh temporary directory, explores it\n"
      "breadth-first (up to 4 requests deep unless --max-depth says otherwise), restores the\n"
      "database file between branches, and reports each seeded bug with its shortest sequence of\n"
      "requests. It writes a JSON report to prowl-demo-report.json in the current directory\n"
      "(unless --report is given). The model is examples/shop_api/shop.yaml.";
  settings.default_strategy = "bfs";
  settings.default_reports = {"json:prowl-demo-report.json"};

  std::vector<char*> args(argv, argv + argc);
  std::string depth = "--max-depth=4";
  bool has_depth = false;
  for (int i = 1; i < argc; ++i) {
    has_depth = has_depth || std::string_view(argv[i]).starts_with("--max-depth");
  }
  if (!has_depth) args.insert(args.begin() + 1, depth.data());

  CommandLine command_line(std::move(settings));
  if (std::optional<int> code = command_line.parse(static_cast<int>(args.size()), args.data())) {
    return *code;
  }
  const fs::path binary = shop_api_binary();
  std::error_code ec;
  if (!fs::exists(binary, ec)) {
    std::cerr << "prowl demo: the shop service's binary is missing (" << binary.string()
              << "); build it with `cmake --build build --target shop_api`\n";
    return kExitEnvironment;
  }
  std::string dir_template = (fs::temp_directory_path(ec) / "prowl-demo-XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) {
    std::cerr << "prowl demo: cannot create a temporary directory: " << std::strerror(errno)
              << '\n';
    return kExitEnvironment;
  }
  TempDir dir{dir_template};
  ::setenv("SHOP_API", binary.c_str(), 1);
  ::setenv("SHOP_DB", (dir.path / "shop.db").c_str(), 1);
  // Replaying a demo trace needs SHOP_API and SHOP_DB set as above.
  return run_model_file(command_line, PROWL_SHOP_MODEL);
}

}  // namespace prowl::app
