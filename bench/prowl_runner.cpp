#include "prowl_runner.hpp"

#include <malloc.h>
#include <time.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"

namespace bench {

namespace {

// A "Vm...:   123 kB" field of /proc/self/status, in bytes (0 when absent).
std::uint64_t proc_status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::strtoull(line.c_str() + field.size() + 1, nullptr, 10) * 1024;
    }
  }
  return 0;
}

// Resets VmHWM to the current RSS. False when the kernel refuses.
bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

prowl::Result<ProwlResult> run_prowl_bfs(const prowl::Model& model) {
  using Clock = std::chrono::steady_clock;
  malloc_trim(0);
  ProwlResult r;
  r.peak_reset = reset_peak_rss();
  const std::uint64_t rss_before = proc_status_bytes("VmRSS");
  prowl::Bfs bfs;
  prowl::Explorer explorer(model, bfs);
  const auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  auto report = explorer.run();
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.cpu_seconds = thread_cpu_seconds() - cpu_start;
  const std::uint64_t after = proc_status_bytes(r.peak_reset ? "VmHWM" : "VmRSS");
  if (!report) return report.status();
  r.memory_bytes = after > rss_before ? after - rss_before : 0;
  r.states = report->stats.states;
  r.transitions = report->stats.transitions;
  r.graph_bytes = report->stats.graph_bytes;
  r.findings = report->findings.size();
  r.termination = report->termination;
  return r;
}

}  // namespace bench
