// ProcessSystem's ports are its own: a fixed port (or ready_port) on which another process
// already listens is refused before anything starts, and once a start is ready, every socket
// listening on its ports must belong to the child's process group. Otherwise prowl's requests,
// or its readiness check, would reach that other process: a developer's own copy of the service,
// whose data the run would change while it reports nothing.
#include <fmt/format.h>

#include "listeners.hpp"
#include "process_child.hpp"
#include "prowl/systems/process.hpp"

namespace prowl {
namespace {

struct CheckedPort {
  int port;
  bool ready_only;  // ready_port: only the readiness check goes there
};

// "pid 4242 (python3 -m http.server 8080)", and how many others listen there too.
std::string show_listeners(const std::vector<detail::PortListener>& listeners) {
  const detail::PortListener& first = listeners.front();
  std::string out = first.pid > 0
                        ? fmt::format("pid {} ({})", first.pid, first.command)
                        : std::string("a process that prowl cannot see (another user's?)");
  if (listeners.size() > 1) {
    out += fmt::format(" and {} other process{}", listeners.size() - 1,
                       listeners.size() > 2 ? "es" : "");
  }
  return out;
}

std::string_view label(const CheckedPort& p) { return p.ready_only ? "ready_port" : "port"; }

}  // namespace

std::vector<int> ProcessSystem::ports_to_check(bool fixed_only) const {
  std::vector<int> ports;
  const int port = fixed_only ? options_.port : port_;
  if (port != 0) ports.push_back(port);
  if (options_.ready_port != 0 && options_.ready_port != port) {
    ports.push_back(options_.ready_port);
  }
  return ports;
}

Status ProcessSystem::check_ports_free() const {
  for (int port : ports_to_check(/*fixed_only=*/true)) {
    const CheckedPort p{port, port != options_.port};
    const auto others = detail::foreign_listeners(port, /*group=*/0);
    if (others.empty()) continue;
    return Status::environment(cannot_start(fmt::format(
        "{} {} is already in use by {}; prowl's {} would go to that process: stop it, or {}",
        label(p), port, show_listeners(others), p.ready_only ? "readiness check" : "requests",
        p.ready_only ? "choose another ready_port"
                     : "leave port: out so that prowl picks a free port")));
  }
  return Status::ok();
}

Status ProcessSystem::check_ports_owned() {
  const pid_t group = child_->pid;
  for (int port : ports_to_check(/*fixed_only=*/false)) {
    const CheckedPort p{port, port != port_};
    const auto others = detail::foreign_listeners(port, group);
    if (others.empty()) continue;
    stop();  // first, so that the message shows all the service wrote
    return Status::environment(failure(fmt::format(
        "became ready, but {} {} is also listened on by {}, which is not in the service's process "
        "group: prowl's {} could go to that process; stop it{} (a service that leaves its process "
        "group, as a daemon does, must be kept in the foreground)",
        label(p), port, show_listeners(others), p.ready_only ? "readiness check" : "requests",
        p.ready_only || options_.port == 0
            ? ""
            : ", or leave port: out so that prowl picks a free port")));
  }
  return Status::ok();
}

}  // namespace prowl
