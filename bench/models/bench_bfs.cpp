// bench_bfs: the SPIN comparison's models as a run_main program, for what spin_compare cannot do in
// its own process: the search over several processes (`mpirun -np 2 bench_bfs --model counters
// --mpi`, spin_compare's MPI lines). --model names one of spin_compare's models: counters (1e6
// states), counters_1e7, orders, orders_1.6e7 or philo; the run_main flags do the rest.
#include <string>

#include <fmt/format.h>

#include "models/models.hpp"
#include "prowl/cli/run_main.hpp"

int main(int argc, char** argv) {
  prowl::MainSettings settings;
  settings.description = "Explores one of the models of the SPIN comparison (bench/spin/*.pml).";
  std::string name = "counters";
  prowl::CommandLine command_line(std::move(settings));
  command_line.add_string_flag("--model", "NAME",
                               "counters, counters_1e7, orders, orders_1.6e7 or philo "
                               "(default counters)",
                               &name);
  if (auto code = command_line.parse(argc, argv)) return *code;
  if (name == "counters" || name == "counters_1e7") {
    return command_line.run(bench::make_counters_model({name == "counters" ? 6 : 7, 10}));
  }
  if (name == "orders" || name == "orders_1.6e7") {
    return command_line.run(bench::make_orders_model({name == "orders" ? 4 : 5, 3, 8, 3}));
  }
  if (name == "philo") return command_line.run(bench::make_philo_model({12}));
  fmt::print(stderr,
             "bench_bfs: --model {}: no such model; write counters, counters_1e7, orders, "
             "orders_1.6e7 or philo\n",
             name);
  return prowl::kExitUsage;
}
