// --mpi: this process as one rank of an MPI job (prowl::mpi, where prowl was built with MPI).
#include <fmt/format.h>

#include "command_line_impl.hpp"
#ifdef PROWL_HAVE_MPI
#include "prowl/mpi/mpi.hpp"
#endif

namespace prowl::detail {

Result<std::unique_ptr<Ranks>> start_ranks(const std::string& program) {
#ifdef PROWL_HAVE_MPI
  if (!mpi::launched()) {
    return Status::invalid(fmt::format(
        "--mpi: this process was not started by an MPI launcher; start every process with one, "
        "as in: mpirun -np 4 {} --mpi",
        program));
  }
  auto ranks = mpi::MpiRanks::start();
  if (!ranks) return ranks.status();
  return std::unique_ptr<Ranks>(std::move(*ranks));
#else
  return Status::invalid(fmt::format(
      "--mpi: {} was built without MPI; install Open MPI (libopenmpi-dev) and build prowl again",
      program));
#endif
}

}  // namespace prowl::detail
