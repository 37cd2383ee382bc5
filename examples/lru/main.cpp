// The LRU example as a program (examples/lru/lru.hpp). Besides the run_main flags it takes
// --evict-late, which seeds a bug; `lru --help` lists all.
#include "lru/lru.hpp"
#include "prowl/cli/run_main.hpp"

int main(int argc, char** argv) {
  prowl::MainSettings settings;
  settings.description =
      "Explores a textbook LRU cache (a list and a map of iterators into it; capacity 2, keys\n"
      "0..3, values 0..1) without copying it. --evict-late 1 seeds a bug in eviction.";
  int bug = 0;
  prowl::CommandLine command_line(std::move(settings));
  command_line.add_int_flag("--evict-late", "1: eviction waits for one entry too many (a bug)",
                            &bug, 0, 1);
  if (auto code = command_line.parse(argc, argv)) return *code;
  return command_line.run(examples::make_lru_model(bug == 1));
}
