// Runs the real prowl binary as a user or a CI job does — a process of its own, its output in
// files, signals sent to it at chosen times, or killed — and looks at what it leaves behind: the
// content of a SQLite database, the processes still running, the temporary directories. For the
// reliability tests (tests/integration/reliability) and bench/chaos. Header-only; every failure of
// the harness itself is a PROWL_CHECK.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"

extern char** environ;

namespace prowl::testing {

// A directory of its own under the temporary directory, removed with everything in it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "prowl-it") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    PROWL_CHECK(::mkdtemp(pattern.data()) != nullptr, "mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One run of a program, started at construction: stdin from /dev/null, stdout and stderr into
// files of `dir`, the working directory `workdir`, the environment this process's plus `env`.
// The destructor kills (SIGKILL) and reaps a run still going.
class ProcessRun {
 public:
  ProcessRun(std::vector<std::string> argv, const std::string& dir, const std::string& workdir,
             const std::vector<std::pair<std::string, std::string>>& env = {})
      : out_path_(dir + "/stdout"), err_path_(dir + "/stderr") {
    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e) {
      const std::string entry = *e;
      const std::string key = entry.substr(0, entry.find('='));
      bool replaced = false;
      for (const auto& [k, v] : env) replaced = replaced || k == key;
      if (!replaced) env_strings.push_back(entry);
    }
    for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
    std::vector<char*> args, envp;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_ = ::fork();
    PROWL_CHECK(pid_ >= 0, "fork failed");
    if (pid_ == 0) {
      const int in = ::open("/dev/null", O_RDONLY);
      const int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0 || err < 0 || ::chdir(workdir.c_str()) != 0) ::_exit(126);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      // A signal disposition the test runner set (ignored SIGINT, say) must not be inherited.
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
      ::execve(args[0], args.data(), envp.data());
      ::_exit(127);
    }
  }
  ~ProcessRun() {
    if (!status_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  ProcessRun(const ProcessRun&) = delete;
  ProcessRun& operator=(const ProcessRun&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }

  // Waits up to `timeout` for the run to end; its wait status, or nullopt if it still runs.
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!status_) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        status_ = status;
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return status_;
  }
  // The exit code of a run that exited; -signal for one a signal killed.
  int code(std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
    const std::optional<int> s = wait(timeout);
    PROWL_CHECK(s.has_value(), "the run did not end in time; its stderr:\n" + err());
    return WIFEXITED(*s) ? WEXITSTATUS(*s) : -WTERMSIG(*s);
  }
  std::string out() const { return read_file(out_path_); }
  std::string err() const { return read_file(err_path_); }

 private:
  std::string out_path_;
  std::string err_path_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// The parent pid of `pid` (/proc/PID/stat), or 0.
inline pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  char state = 0;
  pid_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

inline std::vector<pid_t> all_pids() {
  std::vector<pid_t> pids;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return pids;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0') pids.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return pids;
}

// The command line of `pid`, arguments joined by spaces ("" when gone).
inline std::string command_line(pid_t pid) {
  std::string text = read_file("/proc/" + std::to_string(pid) + "/cmdline");
  for (char& c : text) {
    if (c == '\0') c = ' ';
  }
  return text;
}

// The state letter of `pid` in /proc/PID/stat (R, S, T stopped, Z zombie ...); 0 when gone.
inline char process_state(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');  // the command name may hold spaces and parens
  return paren == std::string::npos || paren + 2 >= stat.size() ? 0 : stat[paren + 2];
}

// Processes (not zombies) whose command line contains `needle`: services left running.
inline std::vector<pid_t> processes_with(const std::string& needle) {
  std::vector<pid_t> found;
  for (pid_t pid : all_pids()) {
    if (pid == ::getpid()) continue;
    if (command_line(pid).find(needle) != std::string::npos) found.push_back(pid);
  }
  return found;
}

// Whether something listens on 127.0.0.1:`port` (a connection is made, and closed).
inline bool accepts_on(int port) {
  if (port <= 0 || port > 65535) return false;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// Every process below `pid` (children, their children, ...).
inline std::vector<pid_t> descendants(pid_t pid) {
  std::vector<pid_t> found{pid};
  for (bool more = true; more;) {
    more = false;
    for (pid_t p : all_pids()) {
      const pid_t parent = parent_of(p);
      bool below = false;
      for (pid_t f : found) below = below || f == parent;
      bool known = false;
      for (pid_t f : found) known = known || f == p;
      if (below && !known) {
        found.push_back(p);
        more = true;
      }
    }
  }
  found.erase(found.begin());
  return found;
}

// The content of a SQLite database as text: its schema (sqlite_schema, ordered), every row of
// every table in rowid order with each value's type, and PRAGMA user_version. Two databases with
// the same text hold the same data, as two `sqlite3 .dump`s would show. Opened read-only.
inline std::string sqlite_dump(const std::string& path) {
  sqlite3* db = nullptr;
  PROWL_CHECK(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK,
              "cannot open " + path);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> owner(db, sqlite3_close_v2);
  auto rows = [&](const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    PROWL_CHECK(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK,
                sql + ": " + sqlite3_errmsg(db));
    std::vector<std::vector<std::string>> out;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      auto& row = out.emplace_back();
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        const int type = sqlite3_column_type(stmt, c);
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row.push_back(std::to_string(type) + ":" +
                      (text ? std::string(text, sqlite3_column_bytes(stmt, c)) : "NULL"));
      }
    }
    sqlite3_finalize(stmt);
    PROWL_CHECK(rc == SQLITE_DONE, sql + ": " + sqlite3_errmsg(db));
    return out;
  };
  std::string dump;
  const auto schema = rows(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' "
      "ORDER BY type, name");
  for (const auto& row : schema) {
    for (const auto& v : row) dump += v + "|";
    dump += "\n";
  }
  for (const auto& row : schema) {
    if (row[0] != "3:table") continue;
    const std::string table = row[1].substr(2);
    dump += "-- " + table + "\n";
    for (const auto& r : rows("SELECT rowid, * FROM \"" + table + "\" ORDER BY rowid")) {
      for (const auto& v : r) dump += v + "|";
      dump += "\n";
    }
  }
  dump += "user_version " + rows("PRAGMA user_version")[0][0] + "\n";
  return dump;
}

// Polls `done` every 10 ms until it holds or `timeout` has passed; whether it held. For what
// another process does in its own time: a service that appears or dies, a file that is written.
inline bool wait_for(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The size of the file at `path`, 0 when there is none.
inline std::uintmax_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

// The prowl-copy* directories (worker copies) in `tmpdir`, the TMPDIR a run was given.
inline std::vector<std::string> worker_copies(const std::string& tmpdir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(tmpdir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("prowl-copy", 0) == 0) found.push_back(e.path().string());
  }
  return found;
}

}  // namespace prowl::testing
