#include "listeners.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "prowl/core/escape.hpp"

namespace prowl::detail {
namespace {

constexpr std::size_t kMaxCommand = 80;

// The whole content of a /proc file (whose size stat() reports as 0), or nothing.
std::string read_proc_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fd);
  return text;
}

// The next whitespace-separated field of `line`, removed from it.
std::string_view next_field(std::string_view& line) {
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(start);
  const std::size_t end = std::min(line.find_first_of(" \t"), line.size());
  std::string_view field = line.substr(0, end);
  line.remove_prefix(end);
  return field;
}

template <class T>
bool parse_number(std::string_view text, T& value, int base) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc() && end == text.data() + text.size();
}

bool is_pid_name(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return false;
  }
  return true;
}

// Adds (inode, pid) to `holders` for every socket of `wanted` that process `pid` holds.
void scan_descriptors(pid_t pid, const std::set<std::uint64_t>& wanted,
                      std::map<std::uint64_t, std::vector<pid_t>>& holders) {
  const std::string dir_path = "/proc/" + std::to_string(pid) + "/fd";
  DIR* dir = ::opendir(dir_path.c_str());
  if (dir == nullptr) return;  // gone, or not ours to read
  constexpr std::string_view kPrefix = "socket:[";
  char link[64];
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const ssize_t n = ::readlinkat(::dirfd(dir), entry->d_name, link, sizeof link);
    if (n <= static_cast<ssize_t>(kPrefix.size()) + 1) continue;
    std::string_view target(link, static_cast<std::size_t>(n));
    if (target.substr(0, kPrefix.size()) != kPrefix || target.back() != ']') continue;
    std::uint64_t inode = 0;
    if (!parse_number(target.substr(kPrefix.size(), target.size() - kPrefix.size() - 1), inode,
                      10)) {
      continue;
    }
    if (wanted.count(inode) != 0) holders[inode].push_back(pid);
  }
  ::closedir(dir);
}

// scan_descriptors() over every process in /proc but `skip`.
void scan_all_descriptors(const std::set<std::uint64_t>& wanted, pid_t skip,
                          std::map<std::uint64_t, std::vector<pid_t>>& holders) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return;
  while (const dirent* entry = ::readdir(proc)) {
    if (!is_pid_name(entry->d_name)) continue;
    const auto pid = static_cast<pid_t>(std::atol(entry->d_name));
    if (pid != skip) scan_descriptors(pid, wanted, holders);
  }
  ::closedir(proc);
}

// The LISTEN sockets on `port` as the kernel's socket diagnostics (netlink, what `ss -lt` uses)
// report them: only the listening sockets are walked, where reading /proc/net/tcp walks the whole
// table of connections (milliseconds on a machine with a large one). Nothing when netlink
// diagnostics are not available.
std::optional<std::vector<std::uint64_t>> diag_listening_inodes(int port) {
  const int fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return std::nullopt;
  std::vector<std::uint64_t> inodes;
  bool ok = true;
  for (const int family : {AF_INET, AF_INET6}) {
    struct {
      nlmsghdr header;
      inet_diag_req_v2 request;
    } message{};
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    message.request.sdiag_family = static_cast<std::uint8_t>(family);
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = 1u << TCP_LISTEN;
    message.request.id.idiag_sport = htons(static_cast<std::uint16_t>(port));
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd, &message, sizeof message, 0, reinterpret_cast<sockaddr*>(&kernel),
                 sizeof kernel) != static_cast<ssize_t>(sizeof message)) {
      ok = false;
      break;
    }
    alignas(nlmsghdr) char buf[16384];
    for (bool done = false; ok && !done;) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = false;
        break;
      }
      auto left = static_cast<unsigned>(n);
      for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
        if (h->nlmsg_type == NLMSG_DONE) {
          done = true;
          break;
        }
        if (h->nlmsg_type == NLMSG_ERROR) {
          ok = false;
          break;
        }
        const auto* socket = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
        if (ntohs(socket->id.idiag_sport) == port && socket->idiag_inode != 0) {
          inodes.push_back(socket->idiag_inode);
        }
      }
    }
    if (!ok) break;
  }
  ::close(fd);
  if (!ok) return std::nullopt;
  return inodes;
}

}  // namespace

std::vector<std::uint64_t> parse_listening_inodes(std::string_view table, int port) {
  std::vector<std::uint64_t> inodes;
  while (!table.empty()) {
    const std::size_t eol = std::min(table.find('\n'), table.size());
    std::string_view line = table.substr(0, eol);
    table.remove_prefix(std::min(eol + 1, table.size()));
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    std::string_view fields[10];
    for (auto& field : fields) field = next_field(line);
    const std::string_view local = fields[1];
    const std::size_t colon = local.rfind(':');
    unsigned local_port = 0;
    std::uint64_t inode = 0;
    if (colon == std::string_view::npos || fields[3] != "0A" ||
        !parse_number(local.substr(colon + 1), local_port, 16) ||
        local_port != static_cast<unsigned>(port) || !parse_number(fields[9], inode, 10) ||
        inode == 0) {
      continue;
    }
    inodes.push_back(inode);
  }
  return inodes;
}

std::vector<std::uint64_t> listening_inodes(int port) {
  if (auto inodes = diag_listening_inodes(port)) return std::move(*inodes);
  return proc_listening_inodes(port);
}

std::vector<std::uint64_t> proc_listening_inodes(int port) {
  std::vector<std::uint64_t> inodes = parse_listening_inodes(read_proc_file("/proc/net/tcp"), port);
  for (std::uint64_t inode : parse_listening_inodes(read_proc_file("/proc/net/tcp6"), port)) {
    inodes.push_back(inode);
  }
  return inodes;
}

std::string show_cmdline(std::string_view raw) {
  while (!raw.empty() && raw.back() == '\0') raw.remove_suffix(1);
  std::string joined(raw);
  std::replace(joined.begin(), joined.end(), '\0', ' ');
  std::string shown = escape_text(joined);
  if (shown.size() <= kMaxCommand) return shown;
  std::size_t cut = kMaxCommand;
  while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;
  shown.resize(cut);
  return shown + "...";
}

std::string process_command(pid_t pid) {
  const std::string base = "/proc/" + std::to_string(pid);
  std::string shown = show_cmdline(read_proc_file(base + "/cmdline"));
  if (!shown.empty()) return shown;
  std::string comm = read_proc_file(base + "/comm");
  while (!comm.empty() && comm.back() == '\n') comm.pop_back();
  return comm.empty() ? "?" : "[" + escape_text(comm) + "]";
}

pid_t process_group(pid_t pid) {
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so parse after the
  // last ')'.
  const std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::string_view rest = std::string_view(stat).substr(paren + 1);
  next_field(rest);  // state
  next_field(rest);  // ppid
  pid_t group = -1;
  return parse_number(next_field(rest), group, 10) ? group : -1;
}

std::vector<PortListener> foreign_listeners(int port, pid_t group) {
  const std::vector<std::uint64_t> inodes = listening_inodes(port);
  if (inodes.empty()) return {};
  const std::set<std::uint64_t> wanted(inodes.begin(), inodes.end());

  // Most services listen in the process prowl started: its own descriptors settle the question
  // without a walk over every process.
  std::map<std::uint64_t, std::vector<pid_t>> leader;
  if (group > 0) scan_descriptors(group, wanted, leader);
  std::set<std::uint64_t> rest;
  for (std::uint64_t inode : wanted) {
    if (leader.count(inode) == 0) rest.insert(inode);
  }
  std::map<std::uint64_t, std::vector<pid_t>> holders;
  if (!rest.empty()) scan_all_descriptors(rest, group, holders);

  std::vector<PortListener> foreign;
  auto add = [&](pid_t pid) {
    for (const PortListener& l : foreign) {
      if (l.pid == pid) return;
    }
    foreign.push_back({pid, pid > 0 ? process_command(pid) : std::string()});
  };
  for (std::uint64_t inode : rest) {
    std::vector<pid_t>& pids = holders[inode];
    std::sort(pids.begin(), pids.end());
    if (group > 0 && std::any_of(pids.begin(), pids.end(),
                                 [&](pid_t pid) { return process_group(pid) == group; })) {
      continue;
    }
    add(pids.empty() ? -1 : pids.front());
  }
  return foreign;
}

}  // namespace prowl::detail
