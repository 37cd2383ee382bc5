#include "spin_runner.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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
  double cpu_seconds = 0;  // user + system
  std::uint64_t max_rss_bytes = 0;
};

// Runs argv[0] (looked up in PATH unless it has a slash) in `dir` and waits for it.
prowl::Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                         const fs::path& dir) {
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
    if (chdir(dir.c_str()) != 0) _exit(126);
    execvp(args[0], args.data());
    _exit(127);
  }
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
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.max_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  result.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
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
  const auto memory = number("total actual memory usage", false, nullptr);
  if (!errors || !states || !transitions || !seconds || !memory) {
    return prowl::Status::internal("could not read pan's report:\n" + out);
  }
  if (*errors != 0 || out.find("max search depth too small") != std::string::npos) {
    return prowl::Status::internal("pan reported errors or a truncated search:\n" + out);
  }
  r.states = *states;
  r.transitions = *transitions;
  r.atomic_steps = number("atomic steps", false, nullptr).value_or(-1);
  r.seconds = *seconds;
  r.memory_mib = *memory;
  r.hash_table_mib = number("memory used for hash table", false, nullptr).value_or(0);
  return r;
}

prowl::Result<fs::path> build_pan(const PanJob& job, const SpinTools& tools) {
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
  std::vector<std::string> cc{tools.cc.string(), "-O2", "-DSAFETY", "-DBFS"};
  if (job.noreduce) cc.push_back("-DNOREDUCE");
  for (const char* arg : {"-o", "pan", "pan.c"}) cc.push_back(arg);
  auto compiled = run_command(cc, dir);
  if (!compiled) return compiled.status();
  if (compiled->exit_code != 0) {
    return prowl::Status::internal("compiling pan.c failed:\n" + compiled->output);
  }
  return dir;
}

prowl::Result<SpinResult> run_pan(const PanJob& job, const fs::path& dir) {
  auto ran = run_command(
      {"./pan", fmt::format("-m{}", job.depth_bound), fmt::format("-w{}", job.hash_log2)}, dir);
  if (!ran) return ran.status();
  if (ran->exit_code != 0) return prowl::Status::internal("pan failed:\n" + ran->output);
  auto r = parse_pan_output(ran->output);
  if (!r) return r;
  r->wall_seconds = ran->wall_seconds;
  r->cpu_seconds = ran->cpu_seconds;
  r->max_rss_bytes = ran->max_rss_bytes;
  return r;
}

}  // namespace bench
