// Uses the installed library's upper parts: reads a model file (prowl::modelfile, whose worlds
// are prowl::systems) and explores a two-counter model through the command line (prowl::cli), which
// prints its report: `full --report json:-` shows 9 states.
#include <array>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "prowl/cli/run_main.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/modelfile/loader.hpp"

namespace {

constexpr std::string_view kModelFile = R"(name: tiny
base_url: http://127.0.0.1:8080
reset: {method: POST, path: /reset, ok: 204}
actions:
  - {name: ping, method: GET, path: /ping, ok: 200}
  - {name: clear, method: DELETE, path: /items, ok: 204}
)";

}  // namespace

int main(int argc, char** argv) {
  auto spec = prowl::modelfile::parse_model(kModelFile, "tiny.yaml", ".");
  if (!spec) {
    std::fprintf(stderr, "full: %s\n", spec.status().message().c_str());
    return 3;
  }
  std::printf("full: model file '%s' has %zu actions\n", spec->name.c_str(), spec->actions.size());
  prowl::ObjectModel<std::array<std::uint8_t, 2>> model("full", {});
  for (int i = 0; i < 2; ++i) {
    model.action("inc_" + std::to_string(i))
        .when([i](const std::array<std::uint8_t, 2>& c) { return c[i] < 2; })
        .run([i](std::array<std::uint8_t, 2>& c) { ++c[i]; });
  }
  return prowl::run_main(model, argc, argv, {.program = "full"});
}
