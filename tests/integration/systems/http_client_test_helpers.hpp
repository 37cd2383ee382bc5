// Helpers of the HttpClient tests: servers on 127.0.0.1 ports bound at run time (a cpp-httplib
// server in a thread; raw POSIX sockets that refuse, drop, or never answer), and scoped
// environment variables. Each server is stopped by its destructor; every wait is bounded.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "prowl/systems/http_client.hpp"

namespace prowl::testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A cpp-httplib server on 127.0.0.1:<any port>, listening in a background thread from the
// constructor to the destructor. Records the remote port of every request.
class TestServer {
 public:
  TestServer() {
    server_.set_keep_alive_max_count(100);
    server_.Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
      std::string body;
      for (const auto& [name, value] : req.params) body += name + "=" + value + ";";
      res.set_content(body, "text/plain");
    });
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.body, req.get_header_value("Content-Type"));
      res.set_header("X-Accept", req.get_header_value("Accept"));
    });
    server_.Get("/auth", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("token=" + req.get_header_value("Authorization"), "text/plain");
    });
    server_.Get("/headers", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("X-Custom-Header", "Some Value");
      res.set_content("ok", "text/plain");
    });
    server_.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content("no such thing", "text/plain");
    });
    server_.Get("/broken", [](const httplib::Request&, httplib::Response& res) {
      res.status = 500;
      res.set_content("boom", "text/plain");
    });
    server_.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(500ms);
      res.set_content("late", "text/plain");
    });
    server_.Get("/port", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        remote_ports_.push_back(req.remote_port);
      }
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) {
      ADD_FAILURE() << "cannot bind 127.0.0.1";
      return;
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = Clock::now() + 5s;
    while (!server_.is_running() && Clock::now() < deadline) std::this_thread::sleep_for(1ms);
    EXPECT_TRUE(server_.is_running());
  }
  ~TestServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<int> remote_ports() {
    std::lock_guard<std::mutex> lock(mutex_);
    return remote_ports_;
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<int> remote_ports_;
};

// A loopback TCP socket bound to a port chosen by the kernel. Without listen(), connecting to it
// is refused, and the port stays reserved so nobody else can take it during the test.
class RawSocket {
 public:
  RawSocket() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }
  ~RawSocket() { ::close(fd_); }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  int fd() const { return fd_; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Accepts one connection, optionally waits for the request's blank line, writes `answer` and
// closes the connection. Gives up after 5 s without a client.
class DroppingServer {
 public:
  DroppingServer(bool read_request, std::string answer) {
    EXPECT_EQ(::listen(socket_.fd(), 1), 0);
    thread_ = std::thread([this, read_request, answer = std::move(answer)] {
      pollfd p{socket_.fd(), POLLIN, 0};
      if (::poll(&p, 1, 5000) != 1) return;
      const int conn = ::accept(socket_.fd(), nullptr, nullptr);
      if (conn < 0) return;
      if (read_request) {
        std::string request;
        char buf[1024];
        pollfd c{conn, POLLIN, 0};
        while (request.find("\r\n\r\n") == std::string::npos && ::poll(&c, 1, 5000) == 1) {
          const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
          if (n <= 0) break;
          request.append(buf, static_cast<std::size_t>(n));
        }
      }
      if (!answer.empty()) {
        EXPECT_EQ(::send(conn, answer.data(), answer.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(answer.size()));
      }
      ::close(conn);
    });
  }
  ~DroppingServer() { thread_.join(); }
  std::string url() const { return socket_.url(); }

 private:
  RawSocket socket_;
  std::thread thread_;
};

inline HttpClient client_for(const std::string& base_url, std::chrono::milliseconds timeout = 5s) {
  HttpClientOptions o;
  o.base_url = base_url;
  o.timeout = timeout;
  return HttpClient(o);
}

inline HttpRequest get(std::string path) {
  HttpRequest r;
  r.path = std::move(path);
  return r;
}

// Sets an environment variable for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

// Accepts one connection, reads the request's head and keeps the connection open without
// answering, for 10 s or until destroyed. Records the head.
class SilentServer {
 public:
  SilentServer() {
    EXPECT_EQ(::listen(socket_.fd(), 1), 0);
    EXPECT_EQ(::pipe(wake_), 0);
    thread_ = std::thread([this] {
      pollfd p{socket_.fd(), POLLIN, 0};
      if (::poll(&p, 1, 5000) != 1) return;
      const int conn = ::accept(socket_.fd(), nullptr, nullptr);
      if (conn < 0) return;
      std::string head;
      char buf[1024];
      pollfd c[2] = {{conn, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      const auto until = Clock::now() + 10s;
      while (Clock::now() < until && ::poll(c, 2, 100) >= 0 && c[1].revents == 0) {
        if (c[0].revents == 0) continue;
        const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
        if (n <= 0) break;
        head.append(buf, static_cast<std::size_t>(n));
        std::lock_guard<std::mutex> lock(mutex_);
        head_ = head;
      }
      ::close(conn);
    });
  }
  ~SilentServer() {
    ::close(wake_[1]);
    thread_.join();
    ::close(wake_[0]);
  }
  std::string url() const { return socket_.url(); }
  std::string head() {
    std::lock_guard<std::mutex> lock(mutex_);
    return head_;
  }

 private:
  RawSocket socket_;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::mutex mutex_;
  std::string head_;
};

// A listening socket that nobody accepts from: a connection attempt would be pending on it.
inline bool connection_pending(const RawSocket& socket) {
  pollfd p{socket.fd(), POLLIN, 0};
  return ::poll(&p, 1, 200) == 1;
}

}  // namespace prowl::testing
