#include "mpi_runner.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace bench {

prowl::Result<MpiResult> run_prowl_mpi(const std::string& mpirun, const std::string& bench_bfs,
                                       const std::string& model, unsigned ranks) {
  // Open MPI refuses to start as root unless told that it is meant.
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  const std::string report =
      (std::filesystem::temp_directory_path() / fmt::format("spin_compare_mpi_{}.json", ::getpid()))
          .string();
  const std::string command = fmt::format(
      "'{}' --oversubscribe -np {} '{}' --model {} --mpi --quiet --report json:'{}' "
      ">/dev/null 2>&1",
      mpirun, ranks, bench_bfs, model, report);
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
    return prowl::Status::environment(fmt::format("'{}' failed (status {})", command, status));
  }
  std::ifstream in(report);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::filesystem::remove(report);
  if (j.is_discarded() || !j.contains("stats")) {
    return prowl::Status::environment(fmt::format("'{}' wrote no JSON report", command));
  }
  MpiResult r;
  r.ranks = ranks;
  r.states = j["stats"]["states"].get<std::uint64_t>();
  r.transitions = j["stats"]["transitions"].get<std::uint64_t>();
  r.seconds = j["stats"]["seconds"].get<double>();
  r.findings = j["findings"].size();
  r.termination = j["termination"].get<std::string>();
  return r;
}

}  // namespace bench
