// Who listens on a TCP port: the sockets in LISTEN state on that port, on any local address, IPv4
// and IPv6 (from the kernel's socket diagnostics over netlink, as `ss -lt` gets them, or else
// from /proc/net/tcp and /proc/net/tcp6), and the processes that hold those sockets (the
// /proc/PID/fd links "socket:[INODE]"). ProcessSystem uses it to refuse a fixed port
// that another process already serves, and to check, once its service is ready, that the port is
// served by the service's process group and not by a squatter that answered the readiness check.
//
// Only what this process may read is seen: the socket tables of its own network namespace, and
// the descriptors of processes it may inspect (its own user's, usually); the others are skipped,
// so a socket held by another user's process has no known owner.
//
// Pure functions over /proc, no state: thread-safe. Internal to src/systems.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace prowl::detail {

// The inodes of the sockets in LISTEN state (st 0A) on `port` in the text of /proc/net/tcp or
// /proc/net/tcp6, in the order of the table. Lines that do not parse are skipped.
std::vector<std::uint64_t> parse_listening_inodes(std::string_view table, int port);

// The LISTEN sockets on `port`, IPv4 and IPv6, on any local address. Asks netlink socket
// diagnostics (NETLINK_SOCK_DIAG), which walk only the listening sockets; reading
// /proc/net/tcp{,6} instead walks every connection's hash bucket, several milliseconds per read
// on a machine with a large table. Falls back to proc_listening_inodes() when netlink diagnostics
// are not available. Empty when neither can be read.
std::vector<std::uint64_t> listening_inodes(int port);
// The same from /proc/net/tcp and /proc/net/tcp6.
std::vector<std::uint64_t> proc_listening_inodes(int port);

// A command line for a message: the NUL-separated arguments of /proc/PID/cmdline joined by
// spaces, escaped with escape_text(), and cut after 80 bytes (at a UTF-8 character boundary)
// with "..." appended.
std::string show_cmdline(std::string_view raw);

// show_cmdline() of a running process's /proc/PID/cmdline; "[comm]" when that is empty (a
// kernel thread, a zombie); "?" when neither can be read.
std::string process_command(pid_t pid);

// The process group of a process (field 5 of /proc/PID/stat), or -1 when it cannot be read.
pid_t process_group(pid_t pid);

// A process that listens on the port but is not among those the caller accepts.
struct PortListener {
  pid_t pid = -1;       // -1: the socket's holder cannot be seen (another user's process)
  std::string command;  // process_command(pid); empty when pid is -1
};

// The listeners on `port` that are not held by a process of process group `group` (group 0:
// every listener): for each such socket, the holder with the lowest pid when several processes
// share it (a server's workers), each process once. A socket that a process of the group holds is
// the group's, even when others hold it too. Cost: reading the two socket tables; when some socket
// is not held by the group leader itself, also a walk over every /proc/PID/fd that can be read.
std::vector<PortListener> foreign_listeners(int port, pid_t group);

}  // namespace prowl::detail
