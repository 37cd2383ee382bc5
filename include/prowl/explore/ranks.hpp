// Ranks: the processes of one breadth-first search spread over several processes (and machines),
// as the explorer sees them (Options::ranks, docs/scale.md "Many machines"). Each process, a
// rank, owns the states whose fingerprints hash to it: it keeps their fingerprints, parents and
// depths, and expands them; every successor goes to its owner, which decides whether it is new.
// The explorer needs only the few collective operations below; prowl::mpi implements them on MPI
// (MpiRanks), and tests implement them on threads. Every operation is collective: every rank
// calls it, in the same order. A failed Status (a rank that died, a broken connection) ends the
// search with that Status on the ranks that see it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "prowl/core/status.hpp"

namespace prowl {

class Ranks {
 public:
  using Buffer = std::vector<unsigned char>;

  virtual ~Ranks() = default;

  // This process's rank, 0 .. size() - 1, and the number of ranks.
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;

  // Starts sending out[k] to rank k, for every k (out[rank()] included: it may be moved to
  // in[rank()]), and receiving what rank k sends this one into in[k], resized to fit. out and in
  // hold size() buffers and stay as they are until finish_exchange(); at most one exchange is
  // under way.
  virtual Status start_exchange(std::span<Buffer> out, std::span<Buffer> in) = 0;
  virtual Status finish_exchange() = 0;
  // Lets an exchange under way move on while this rank does other work (a transport that moves
  // data only when asked to, as MPI does for large messages); called often between
  // start_exchange() and finish_exchange().
  virtual void progress() {}

  // Every rank's values added up, or their maximum, element by element, in place.
  virtual Status sum(std::span<std::uint64_t> values) = 0;
  virtual Status max(std::span<std::uint64_t> values) = 0;

  // Rank `root`'s data, on every rank (resized to fit).
  virtual Status broadcast(Buffer& data, unsigned root) = 0;

  // The explorer says that the search ended on this rank having made every collective operation
  // the others make (or none, refused as every rank refuses it): the processes can end together.
  virtual void completed() {}
  // Whether a rank died or stopped answering: the search ended with a Status that says so, and a
  // signal that came after (a launcher stops every rank when one dies) did not interrupt it.
  virtual bool broken() const { return false; }
  // The program says that this process is about to end with `exit_code`. A rank whose search did
  // not complete (an error of its own, half-way) must not leave the others waiting for it:
  // MpiRanks ends the whole job then, with that exit code (MPI_Abort).
  virtual void end(int /*exit_code*/) {}
};

}  // namespace prowl
