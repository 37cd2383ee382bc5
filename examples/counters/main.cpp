// The counters example as a program: K counters in 0..N-1, N^K states, no bugs. Besides the
// run_main flags (see prowl/cli/run_main.hpp) it takes --k and --n; `counters --help` lists all.
#include "counters.hpp"
#include "prowl/cli/run_main.hpp"

int main(int argc, char** argv) {
  prowl::MainSettings settings;
  settings.description =
      "Explores K independent counters with values 0..N-1 (inc_i, reset_i): exactly N^K states,\n"
      "and an invariant that always holds, so the whole space is explored.";
  int k = 3;
  int n = 4;
  prowl::CommandLine command_line(std::move(settings));
  command_line.add_int_flag("--k", "number of counters", &k, 1, 8);
  command_line.add_int_flag("--n", "values per counter", &n, 1, 255);
  if (auto code = command_line.parse(argc, argv)) return *code;
  return command_line.run(examples::make_counters_model(k, n));
}
