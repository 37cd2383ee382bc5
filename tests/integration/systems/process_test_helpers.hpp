// Helpers of the ProcessSystem tests: the services they start (a python3 counter server, /bin/sh
// one-liners), a squatter (another program listening on a port, as a developer's own copy of the
// service would), temporary directories, and how to tell that a process is gone. Every process
// started here is stopped by its owner's destructor.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "prowl/core/status.hpp"
#include "prowl/systems/process.hpp"

namespace prowl::testing {

using namespace std::chrono_literals;

// GET /health -> "ok"; /count -> the counter; /inc and /zero change it. Prints one line to each
// stream once it listens. sys.argv[1] is the port.
inline constexpr const char* kCounterServer = R"PY(
import http.server, sys
port = int(sys.argv[1])
count = 0
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global count
        if self.path == '/inc':
            count += 1
        elif self.path == '/zero':
            count = 0
        elif self.path not in ('/health', '/count'):
            self.send_error(404)
            return
        body = (b'ok' if self.path == '/health' else str(count).encode())
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(('127.0.0.1', port), Handler)
print('listening on', port, flush=True)
print('counter server log', file=sys.stderr, flush=True)
server.serve_forever()
)PY";

inline ProcessOptions counter_server(bool http_ready = true) {
  ProcessOptions o;
  o.argv = {"python3", "-c", kCounterServer, "{port}"};
  if (http_ready) o.health_path = "/health";
  o.ready_timeout = 15s;
  o.stop_timeout = 3s;
  return o;
}

inline ProcessOptions shell(std::string script) {
  ProcessOptions o;
  o.argv = {"/bin/sh", "-c", std::move(script)};
  o.ready_timeout = 5s;
  o.stop_timeout = 2s;
  return o;
}

inline std::string get(const ProcessSystem& p, const char* path) {
  auto r = http_get(p.port(), path);
  if (!r) return "error: " + r.status().message();
  return std::to_string(r->status) + " " + r->body;
}

inline bool gone(pid_t pid) { return ::kill(pid, 0) == -1 && errno == ESRCH; }

// Dead: gone, or a zombie that its new parent (init) has not collected yet.
inline bool dead(pid_t pid) {
  for (auto deadline = std::chrono::steady_clock::now() + 3s;
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(10ms)) {
    if (gone(pid)) return true;
    FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
    if (f == nullptr) return true;
    int read_pid = 0;
    char state = 0;
    int fields = std::fscanf(f, "%d %*s %c", &read_pid, &state);
    std::fclose(f);
    if (fields == 2 && state == 'Z') return true;
  }
  return false;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A temporary directory, removed with everything in it.
class ProcessTempDir {
 public:
  ProcessTempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "prowl-proc-XXXXXX").string();
    PROWL_CHECK(::mkdtemp(tmpl.data()) != nullptr, "mkdtemp failed");
    path_ = tmpl;
  }
  ~ProcessTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ProcessTempDir(const ProcessTempDir&) = delete;
  ProcessTempDir& operator=(const ProcessTempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes a file; `mode` as for chmod.
  std::string write(const std::string& name, const std::string& text, int mode = 0644) const {
    const std::string p = file(name);
    std::ofstream(p) << text;
    std::filesystem::permissions(p, static_cast<std::filesystem::perms>(mode));
    return p;
  }

 private:
  std::string path_;
};

// The python3 interpreter itself (not a launcher such as a pyenv shim, which would replace the
// command line that /proc shows with its own).
inline std::string python3_executable() {
  static const std::string path = [] {
    std::string out;
    if (FILE* f = ::popen("python3 -c 'import sys; print(sys.executable)'", "r")) {
      char buf[4096];
      while (std::fgets(buf, sizeof buf, f) != nullptr) out += buf;
      ::pclose(f);
    }
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out.empty() ? std::string("python3") : out;
  }();
  return path;
}

// Another program that listens on a port: a python3 HTTP server that answers 200 "ok" to every
// GET and counts them, except GET /count, which answers how many it counted (its state, which
// prowl must not touch). Started directly by fork and exec, so its pid is the server's, and its
// command line is "python3 SCRIPT ADDRESS PORT".
class Squatter {
 public:
  // port 0: any free port; address "127.0.0.1" or "::1".
  explicit Squatter(int port = 0, std::string address = "127.0.0.1")
      : address_(std::move(address)), requested_port_(port) {
    script_ = dir_.write("squatter.py", R"PY(
import http.server, socket, sys
count = 0
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global count
        if self.path == '/count':
            body = str(count).encode()
        else:
            count += 1
            body = b'ok'
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
class Server(http.server.HTTPServer):
    address_family = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET
server = Server((sys.argv[1], int(sys.argv[2])), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
)PY");
    int out[2];
    PROWL_CHECK(::pipe(out) == 0, "pipe failed");
    const std::string port_text = std::to_string(port);
    const std::string python = python3_executable();
    pid_ = ::fork();
    PROWL_CHECK(pid_ >= 0, "fork failed");
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      ::execlp(python.c_str(), "python3", script_.c_str(), address_.c_str(), port_text.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    // The port, once it listens (a few hundred milliseconds at most).
    std::string line;
    char c;
    while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(out[0]);
    port_ = line.empty() ? -1 : std::stoi(line);
    EXPECT_GT(port_, 0) << "the squatter did not start";
  }
  ~Squatter() {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  Squatter(const Squatter&) = delete;
  Squatter& operator=(const Squatter&) = delete;

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  // Its command line, as /proc shows it.
  std::string command() const {
    return "python3 " + script_ + " " + address_ + " " + std::to_string(requested_port_);
  }
  // Still running: not exited (this process is its parent, so an exit leaves a zombie).
  bool running() const { return ::waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  std::string address_;
  int requested_port_;
  ProcessTempDir dir_;
  std::string script_;
  pid_t pid_ = -1;
  int port_ = -1;
};

}  // namespace prowl::testing
