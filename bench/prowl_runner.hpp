// Runs prowl's breadth-first exploration of a model and measures it: wall and CPU time of
// Explorer::run(), and the growth of this process's peak RSS during the run. The peak is reset
// first by writing "5" to /proc/self/clear_refs (after malloc_trim() hands free heap back), so the
// growth is VmHWM after the run minus VmRSS before it; when the kernel refuses the reset, the VmRSS
// difference is used and `peak_reset` is false. The CPU time is the process's
// (CLOCK_PROCESS_CPUTIME_ID), so that with several exploring threads it counts all of them. Not
// thread-safe: it measures the whole process.
#pragma once

#include <cstddef>
#include <cstdint>

#include "prowl/explore/model.hpp"
#include "prowl/explore/options.hpp"

namespace bench {

struct ProwlResult {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint32_t threads = 1;       // Options::threads asked for
  double seconds = 0;              // wall time of Explorer::run()
  double cpu_seconds = 0;          // this process's CPU time during the run, every thread's
  std::uint64_t memory_bytes = 0;  // peak RSS growth (or RSS delta, see peak_reset)
  bool peak_reset = false;         // VmHWM could be reset: memory_bytes is peak growth
  std::size_t graph_bytes = 0;     // what the graph's tables report holding
  std::size_t findings = 0;
  prowl::Termination termination = prowl::Termination::kExhausted;
};

// Explores `model` with prowl::Bfs and Options::threads = `threads` (0: every CPU; one thread
// until the threaded engine applies to the model).
prowl::Result<ProwlResult> run_prowl_bfs(const prowl::Model& model, std::uint32_t threads = 1);

// run_prowl_bfs() in a child process forked for it: the run starts from this process's heap as it
// is, not one an earlier run has grown and freed, so the order of runs does not move their
// figures. A failure in the child comes back as its message.
prowl::Result<ProwlResult> run_prowl_bfs_forked(const prowl::Model& model, std::uint32_t threads);

}  // namespace bench
