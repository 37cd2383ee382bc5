// prowl::mpi: the breadth-first search of an in-memory model over several processes and
// machines, on MPI (Open MPI; docs/scale.md "Many machines"). A program started K times by an MPI
// launcher (`mpirun -np K PROGRAM --mpi`) makes one MpiRanks in each process and passes it as
// Options::ranks; the processes then split the states between them by fingerprint and explore
// them together (src/explore/ranks.cpp), and each returns the same report.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/explore/ranks.hpp"

namespace prowl::mpi {

// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun): a launcher sets
// its rank in the environment (OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK).
bool launched();

// The ranks of MPI_COMM_WORLD. Made once per process (MPI is initialized once), by the thread
// that uses it. MPI errors return instead of ending the program; a rank that dies or stops
// answering ends the collective operation under way with an environment Status that names it,
// on the ranks that see it.
class MpiRanks final : public Ranks {
 public:
  // Initializes MPI and learns every rank's host and process. REQUIRES launched().
  static Result<std::unique_ptr<MpiRanks>> start();
  // Finalizes MPI once the search completed; after a rank died, leaves it (finalizing would wait
  // for the dead one); otherwise ends the whole job with end()'s exit code (MPI_Abort).
  ~MpiRanks() override;
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  unsigned rank() const override { return rank_; }
  unsigned size() const override { return size_; }
  Status start_exchange(std::span<Buffer> out, std::span<Buffer> in) override;
  Status finish_exchange() override;
  void progress() override;
  Status sum(std::span<std::uint64_t> values) override;
  Status max(std::span<std::uint64_t> values) override;
  Status broadcast(Buffer& data, unsigned root) override;
  void completed() override;
  bool broken() const override;
  void end(int exit_code) override;

  // The host a rank runs on, as it names itself.
  const std::string& host(unsigned rank) const { return hosts_[rank]; }

  struct Impl;

 private:
  MpiRanks();
  std::unique_ptr<Impl> impl_;
  unsigned rank_ = 0;
  unsigned size_ = 1;
  std::vector<std::string> hosts_;
};

}  // namespace prowl::mpi
