// The network side of ProcessSystem: connecting to a loopback port, the minimal HTTP GET of the
// readiness check, and picking a free port. Every wait can be ended by a signal (InterruptWatch).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "process_detail.hpp"

namespace prowl {
namespace detail {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

}  // namespace

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

int millis_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, left.count()));
}

std::string errno_text(int err) { return std::strerror(err); }

bool wait_fd(int fd, short events, Clock::time_point deadline, const InterruptWatch* watch) {
  for (;;) {
    if (watch != nullptr && watch->fired()) return false;
    int timeout = millis_until(deadline);
    // Without a watch, one poll until the deadline; with one, slices short enough to notice a
    // signal at once.
    const bool sliced = watch != nullptr && timeout > kInterruptPoll.count();
    if (sliced) timeout = static_cast<int>(kInterruptPoll.count());
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, timeout);
    if (rc > 0) return true;
    if (rc == 0 && !sliced) return false;
    if (rc < 0 && errno != EINTR) return false;
  }
}

Result<int> connect_loopback(int port, Clock::time_point deadline, const InterruptWatch* watch) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return Status::environment("socket: " + errno_text(errno));
  sockaddr_in addr = loopback(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) return Status::environment(errno_text(errno));
    if (!wait_fd(fd.get(), POLLOUT, deadline, watch)) {
      return Status::environment(watch != nullptr && watch->fired() ? "interrupted"
                                                                    : "connect timed out");
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Status::environment(errno_text(err));
  }
  return fd.release();
}

Result<ProbeResponse> http_get_until(int port, std::string_view path, Clock::time_point deadline,
                                     const InterruptWatch* watch) {
  const std::string url = fmt::format("http://127.0.0.1:{}{}", port, path);
  auto fail = [&](std::string_view why) {
    return Status::environment(fmt::format("GET {}: {}", url, why));
  };
  auto interrupted_or = [&](std::string_view why) {
    return fail(watch != nullptr && watch->fired() ? "interrupted" : why);
  };
  auto connected = connect_loopback(port, deadline, watch);
  if (!connected) return fail(connected.status().message());
  Fd fd(*connected);

  const std::string request = fmt::format("GET {} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
  std::size_t sent = 0;
  while (sent < request.size()) {
    if (!wait_fd(fd.get(), POLLOUT, deadline, watch)) {
      return interrupted_or("timed out sending the request");
    }
    ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EINTR && errno != EAGAIN) return fail(errno_text(errno));
    if (n > 0) sent += static_cast<std::size_t>(n);
  }

  constexpr std::size_t kMaxResponse = 1 << 20;
  std::string response;
  char buf[4096];
  for (;;) {
    if (!wait_fd(fd.get(), POLLIN, deadline, watch)) {
      return interrupted_or("timed out reading the response");
    }
    ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ECONNRESET && !response.empty()) break;
      return fail(errno_text(errno));
    }
    response.append(buf, static_cast<std::size_t>(n));
    if (response.size() > kMaxResponse) return fail("response larger than 1 MiB");
  }

  // "HTTP/1.x NNN reason"
  if (response.rfind("HTTP/", 0) != 0) return fail("the answer is not HTTP");
  std::size_t space = response.find(' ');
  if (space == std::string::npos || space + 4 > response.size()) {
    return fail("malformed status line");
  }
  ProbeResponse answer;
  for (std::size_t i = space + 1; i < space + 4; ++i) {
    if (response[i] < '0' || response[i] > '9') return fail("malformed status line");
    answer.status = answer.status * 10 + (response[i] - '0');
  }
  std::size_t body = response.find("\r\n\r\n");
  if (body != std::string::npos) answer.body = response.substr(body + 4);
  return answer;
}

}  // namespace detail

Result<ProbeResponse> http_get(int port, std::string_view path, std::chrono::milliseconds timeout) {
  return detail::http_get_until(port, path, detail::Clock::now() + timeout, nullptr);
}

Result<int> pick_free_port() {
  using detail::errno_text;
  detail::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    return Status::environment("cannot pick a free port: socket: " + errno_text(errno));
  }
  sockaddr_in addr = detail::loopback(0);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return Status::environment("cannot pick a free port: bind 127.0.0.1:0: " + errno_text(errno));
  }
  socklen_t len = sizeof addr;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Status::environment("cannot pick a free port: getsockname: " + errno_text(errno));
  }
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace prowl
