#include "prowl_runner.hpp"

#include <malloc.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <type_traits>

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

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

prowl::Result<ProwlResult> run_prowl_bfs(const prowl::Model& model, std::uint32_t threads) {
  using Clock = std::chrono::steady_clock;
  malloc_trim(0);
  ProwlResult r;
  r.threads = threads;
  r.peak_reset = reset_peak_rss();
  const std::uint64_t rss_before = proc_status_bytes("VmRSS");
  prowl::Bfs bfs;
  prowl::Options options;
  options.threads = threads;
  prowl::Explorer explorer(model, bfs, options);
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  auto report = explorer.run();
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.cpu_seconds = process_cpu_seconds() - cpu_start;
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

prowl::Result<ProwlResult> run_prowl_bfs_forked(const prowl::Model& model, std::uint32_t threads) {
  static_assert(std::is_trivially_copyable_v<ProwlResult>);  // sent through the pipe as bytes
  int fds[2];
  if (pipe(fds) != 0) return prowl::Status::environment("pipe() failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return prowl::Status::environment("fork() failed");
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      const prowl::Result<ProwlResult> r = run_prowl_bfs(model, threads);
      out = r ? std::string(1, 'R') + std::string(reinterpret_cast<const char*>(&*r), sizeof(*r))
              : "E" + r.status().message();
    } catch (const std::exception& e) {
      out = std::string("E") + e.what();
    }
    for (std::size_t at = 0; at < out.size();) {
      const ssize_t n = write(fds[1], out.data() + at, out.size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(1);
      at += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string in;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return prowl::Status::environment("waitpid() failed");
  }
  if (!in.empty() && in[0] == 'E') return prowl::Status::environment(in.substr(1));
  if (in.size() != 1 + sizeof(ProwlResult) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return prowl::Status::environment("the child process running prowl failed");
  }
  ProwlResult r;
  std::memcpy(&r, in.data() + 1, sizeof r);
  return r;
}

}  // namespace bench
