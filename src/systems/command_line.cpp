#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "process_detail.hpp"
#include "prowl/core/escape.hpp"

namespace prowl::detail {
namespace {

constexpr std::size_t kDeathLines = 10;
constexpr std::size_t kDeathLineBytes = 500;

std::string signal_text(int sig) {
  const char* text = ::sigdescr_np(sig);
  return text != nullptr ? text : "unknown signal";
}

// Cuts `line` after max bytes, backing off to a UTF-8 character boundary, and marks the cut.
std::string cut_line(std::string_view line, std::size_t max) {
  if (line.size() <= max) return std::string(line);
  std::size_t cut = max;
  for (int back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80;
       ++back) {
    --cut;
  }
  return std::string(line.substr(0, cut)) + "...";
}

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string current_directory() {
  std::string dir(4096, '\0');
  if (::getcwd(dir.data(), dir.size()) == nullptr) return ".";
  dir.resize(std::strlen(dir.c_str()));
  return dir;
}

}  // namespace

std::string substitute(std::string text, int port, const ProcessOptions& options, bool show_dsn) {
  const std::pair<std::string_view, std::string> values[] = {
      {"{port}", std::to_string(port)}, {"{db}", options.db}, {"{dsn}", options.dsn}};
  for (const auto& [key, value] : values) {
    if (key == "{dsn}" && !show_dsn) continue;
    for (std::size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

std::string show_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    if (arg.size() > 60) {
      out += arg.substr(0, 57) + "...";
    } else {
      out += arg;
    }
  }
  return out;
}

std::string show_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exit code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("signal {} ({})", WTERMSIG(status), signal_text(WTERMSIG(status)));
  }
  return fmt::format("wait status {}", status);
}

std::string describe_death(int status, std::string_view stderr_text) {
  std::string out;
  if (WIFEXITED(status)) {
    out = fmt::format("exited with code {}", WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    out = fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                      signal_text(WTERMSIG(status)));
  } else {
    out = fmt::format("ended with wait status {}", status);
  }
  // The last lines, found from the end.
  std::vector<std::string_view> lines;
  std::string_view rest = stderr_text;
  while (!rest.empty() && lines.size() < kDeathLines) {
    const std::size_t nl = rest.rfind('\n', rest.size() - 1);
    std::string_view line = nl == std::string_view::npos ? rest : rest.substr(nl + 1);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(0, nl);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!blank(line)) lines.push_back(line);
  }
  if (lines.empty()) return out + "\n(it wrote nothing to stderr)";
  out += "\nlast lines of its stderr:";
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    out += '\n';
    out += escape_text(cut_line(*it, kDeathLineBytes));
  }
  return out;
}

Result<std::string> find_executable(const std::string& name, const std::string& working_dir,
                                    std::string_view path_dirs) {
  if (name.empty()) return Status::environment("the program name (argv[0]) is empty");
  if (name.front() == '/') return name;  // execve says what is wrong with it
  if (name.find('/') != std::string::npos) {
    // The child runs in working_dir: that is where a relative program is.
    std::string base = working_dir.empty() || working_dir.front() != '/'
                           ? current_directory() + (working_dir.empty() ? "" : "/" + working_dir)
                           : working_dir;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    const std::string where = fmt::format(
        "resolved against {}, {}", escape_text(base),
        working_dir.empty() ? "the current directory" : "the service's working directory");
    const std::string path = base + "/" + name;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT || err == ENOTDIR) {
        return Status::environment(
            fmt::format("'{}' does not exist ({})", escape_text(name), where));
      }
      return Status::environment(fmt::format("'{}' cannot be reached: {} ({})", escape_text(name),
                                             errno_text(err), where));
    }
    if (!is_executable_file(path)) {
      return Status::environment(
          fmt::format("'{}' is not an executable file ({})", escape_text(name), where));
    }
    return name;  // as given: the child runs it from working_dir, as a shell there would
  }
  std::string_view dirs = path_dirs;
  while (true) {
    const std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    // A relative entry means prowl's current directory; the child runs in working_dir.
    if (dir.empty() || dir.front() != '/')
      dir = current_directory() + (dir.empty() ? "" : "/" + dir);
    const std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return Status::environment(
      fmt::format("'{}' was not found in PATH ({})", escape_text(name), escape_text(path_dirs)));
}

}  // namespace prowl::detail
