#include "spin_runner.hpp"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

namespace bench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct CommandResult {
  int exit_code = -1;  // -1 when the process died from a signal
  std::string output;  // stdout and stderr, interleaved
  double wall_seconds = 0;
  double cpu_seconds = 0;  // user + system, of the process and what it left in its group
  std::uint64_t max_rss_bytes = 0;
};

// Adds a process's CPU time and peak RSS, from wait4(), to `result`.
void add_usage(const struct rusage& usage, CommandResult& result) {
  result.max_rss_bytes =
      std::max(result.max_rss_bytes, static_cast<std::uint64_t>(usage.ru_maxrss) * 1024);
  result.cpu_seconds += static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                        1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// Runs argv[0] (looked up in PATH unless it has a slash) in `dir`, in a process group of its own,
// and waits for it and for every process of the group it leaves behind.
prowl::Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                         const fs::path& dir) {
  // Orphans below this process become its children, not init's, so that they can be waited for.
  static const int subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (subreaper != 0) return prowl::Status::environment("prctl(PR_SET_CHILD_SUBREAPER) failed");
  int fds[2];
  if (pipe(fds) != 0) return prowl::Status::environment("pipe() failed");
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) return prowl::Status::environment("fork() failed");
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    setpgid(0, 0);
    if (chdir(dir.c_str()) != 0) _exit(126);
    execvp(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);  // as the child does: whichever runs first
  close(fds[1]);
  CommandResult result;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid) return prowl::Status::environment("wait4() failed");
  add_usage(usage, result);
  // By the time pan itself has been waited for, the workers it left (BFS_PAR) are this process's
  // children: they were reparented when it exited.
  for (int ignored = 0;;) {
    if (wait4(-pid, &ignored, 0, &usage) > 0) {
      add_usage(usage, result);
    } else if (errno != EINTR) {
      break;
    }
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The first whitespace-separated token of the line of `text` that contains `marker`, or the token
// right after the marker when `after` is set.
std::optional<std::string> token_near(const std::string& text, const std::string& marker,
                                      bool after) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto at = line.find(marker);
    if (at == std::string::npos) continue;
    std::istringstream words(after ? line.substr(at + marker.size()) : line);
    std::string token;
    if (words >> token) return token;
  }
  return std::nullopt;
}

// `spin -a` for the job in work_dir/<name>, then `cc -O2 -DSAFETY <search> [-DNOREDUCE] -o
// <binary> pan.c` there. Returns that directory.
prowl::Result<fs::path> generate_and_compile(const PanJob& job, const SpinTools& tools,
                                             const char* search, const char* binary) {
  const fs::path dir = tools.work_dir / job.name;
  fs::create_directories(dir);
  std::vector<std::string> spin{tools.spin.string()};
  spin.insert(spin.end(), job.defines.begin(), job.defines.end());
  spin.push_back("-a");
  spin.push_back((tools.model_dir / job.pml).string());
  auto generated = run_command(spin, dir);
  if (!generated) return generated.status();
  if (generated->exit_code != 0 || !fs::exists(dir / "pan.c")) {
    return prowl::Status::internal("spin -a failed:\n" + generated->output);
  }
  std::vector<std::string> cc{tools.cc.string(), "-O2", "-DSAFETY", search};
  if (job.noreduce) cc.push_back("-DNOREDUCE");
  for (const char* arg : {"-o", binary, "pan.c"}) cc.push_back(arg);
  auto compiled = run_command(cc, dir);
  if (!compiled) return compiled.status();
  if (compiled->exit_code != 0) {
    return prowl::Status::internal("compiling pan.c failed:\n" + compiled->output);
  }
  return dir;
}

// Runs a pan in `dir` and reads its report.
prowl::Result<SpinResult> run_and_read(const std::vector<std::string>& argv, const fs::path& dir) {
  auto ran = run_command(argv, dir);
  if (!ran) return ran.status();
  if (ran->exit_code != 0) return prowl::Status::internal("pan failed:\n" + ran->output);
  auto r = parse_pan_output(ran->output);
  if (!r) return r;
  r->wall_seconds = ran->wall_seconds;
  r->cpu_seconds = ran->cpu_seconds;
  r->max_rss_bytes = ran->max_rss_bytes;
  return r;
}

}  // namespace

std::optional<fs::path> find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), X_OK) == 0) return fs::path(program);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

prowl::Result<SpinResult> parse_pan_output(const std::string& out) {
  SpinResult r;
  auto number = [&](const std::string& marker, bool after,
                    std::string* text) -> std::optional<double> {
    auto token = token_near(out, marker, after);
    if (!token) return std::nullopt;
    if (text) *text = *token;
    return std::strtod(token->c_str(), nullptr);
  };
  const auto errors = number("errors:", true, nullptr);
  const auto states = number("states, stored", false, &r.states_text);
  const auto transitions = number("transitions (= stored+matched)", false, &r.transitions_text);
  const auto seconds = number("pan: elapsed time", true, nullptr);
  const auto shared = number("total shared memory usage", false, nullptr);  // BFS_PAR
  const auto memory =
      shared ? std::optional<double>(
                   *shared + number("total non-shared memory usage", false, nullptr).value_or(0))
             : number("total actual memory usage", false, nullptr);
  if (!errors || !states || !transitions || !seconds || !memory) {
    return prowl::Status::internal("could not read pan's report:\n" + out);
  }
  // BFS_PAR goes on when its table or queues are full, dropping states, and says so.
  bool failed = *errors != 0;
  for (const char* truncated :
       {"max search depth too small", "states lost", "losing states", "hash table is full"}) {
    failed = failed || out.find(truncated) != std::string::npos;
  }
  if (failed) return prowl::Status::internal("pan reported errors or a truncated search:\n" + out);
  r.states = *states;
  r.transitions = *transitions;
  r.atomic_steps = number("atomic steps", false, nullptr).value_or(-1);
  r.seconds = *seconds;
  r.memory_mib = *memory;
  r.hash_table_mib = number("memory used for hash table", false, nullptr).value_or(0);
  r.cores = static_cast<int>(number("Multi-Core (using", true, nullptr).value_or(1));
  r.hash_compact = out.find("Hash-Compact") != std::string::npos;
  return r;
}

prowl::Result<fs::path> build_pan(const PanJob& job, const SpinTools& tools) {
  return generate_and_compile(job, tools, "-DBFS", "pan");
}

prowl::Result<fs::path> build_pan_par(const PanJob& job, const SpinTools& tools) {
  return generate_and_compile(job, tools, "-DBFS_PAR", "pan_par");
}

prowl::Result<SpinResult> run_pan(const PanJob& job, const fs::path& dir) {
  return run_and_read(
      {"./pan", fmt::format("-m{}", job.depth_bound), fmt::format("-w{}", job.hash_log2)}, dir);
}

prowl::Result<SpinResult> run_pan_par(const PanJob& job, const fs::path& dir, int cores) {
  return run_and_read({"./pan_par", fmt::format("-m{}", job.depth_bound),
                       fmt::format("-w{}", job.hash_log2), fmt::format("-u{}", cores)},
                      dir);
}

}  // namespace bench
