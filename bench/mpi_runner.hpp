// Runs the search over several processes the way a user does: `mpirun -np K bench_bfs --model M
// --mpi` (bench/models/bench_bfs.cpp), reading its figures from the JSON report rank 0 writes.
// For spin_compare's MPI lines.
#pragma once

#include <cstdint>
#include <string>

#include "prowl/core/status.hpp"

namespace bench {

struct MpiResult {
  unsigned ranks = 0;
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint64_t findings = 0;
  double seconds = 0;  // the report's: the exploration, MPI's start-up not included
  std::string termination;
};

// One run of model `model` (a bench_bfs --model name) on `ranks` processes of this machine
// (oversubscribed beyond its cores). `mpirun` and `bench_bfs` are paths.
prowl::Result<MpiResult> run_prowl_mpi(const std::string& mpirun, const std::string& bench_bfs,
                                       const std::string& model, unsigned ranks);

}  // namespace bench
