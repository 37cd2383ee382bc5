// Who listens on a port: the socket tables of /proc/net/tcp{,6} parsed from fixed text, and the
// owners of real sockets that this test process opens on ports chosen at run time.
#include "systems/listeners.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "process_test_helpers.hpp"

namespace prowl {
namespace {

using detail::foreign_listeners;
using detail::parse_listening_inodes;

constexpr const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n"
    "   0: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 "
    "4242 1 0000000088dd6bb6 100 0 0 10 0\n"
    "   1: 0100007F:1F90 0100007F:D4A2 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "5151 1 0000000082c9213b 20 4 30 10 -1\n"
    "   2: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 "
    "6161 1 0000000082c9213b 100 0 0 10 0\n"
    "   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 "
    "7171 1 0000000082c9213b 100 0 0 10 0\n"
    "   4: 0100007F:1F90 0100007F:D4A4 06 00000000:00000000 03:00000D5B 00000000     0        0 0 "
    "3 0000000000000000\n";

constexpr const char* kTcp6 =
    "  sl  local_address                         remote_address                        st "
    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000  1000        0 9090 1 0000000012345678 100 0 0 10 0\n"
    "   1: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 1234 1 0000000012345678 100 0 0 10 0\n";

TEST(Listeners, FindsTheListeningSocketsOfAPortInTheIpv4Table) {
  // Port 8080 = 0x1F90: LISTEN on 0.0.0.0 and on 127.0.0.1; an established connection and a
  // TIME_WAIT one on the same port are not listeners; 8081 is another port.
  EXPECT_EQ(parse_listening_inodes(kTcp, 8080), (std::vector<std::uint64_t>{4242, 7171}));
  EXPECT_EQ(parse_listening_inodes(kTcp, 8081), (std::vector<std::uint64_t>{6161}));
  EXPECT_EQ(parse_listening_inodes(kTcp, 9999), (std::vector<std::uint64_t>{}));
}

TEST(Listeners, FindsTheListeningSocketsOfAPortInTheIpv6Table) {
  EXPECT_EQ(parse_listening_inodes(kTcp6, 8080), (std::vector<std::uint64_t>{9090}));
  EXPECT_EQ(parse_listening_inodes(kTcp6, 22), (std::vector<std::uint64_t>{1234}));
}

TEST(Listeners, SkipsLinesThatDoNotParse) {
  EXPECT_EQ(parse_listening_inodes("garbage\n   0: 00000000:1F90 x 0A\n\n", 8080),
            (std::vector<std::uint64_t>{}));
  EXPECT_EQ(parse_listening_inodes("", 8080), (std::vector<std::uint64_t>{}));
}

TEST(Listeners, ShowsACommandLineEscapedAndCut) {
  EXPECT_EQ(detail::show_cmdline(std::string("python3\0-m\0http.server\08080\0", 29)),
            "python3 -m http.server 8080");
  EXPECT_EQ(detail::show_cmdline(std::string("sh\0-c\0echo \x1b[31m\nhi\0", 20)),
            "sh -c echo \\e[31m\\nhi");
  // 79 ASCII bytes, then "é" across the 80th byte: cut before it.
  EXPECT_EQ(detail::show_cmdline(std::string(79, 'a') + "\xc3\xa9" + "zzz"),
            std::string(79, 'a') + "...");
  EXPECT_EQ(detail::show_cmdline(std::string(80, 'a')), std::string(80, 'a'));
  EXPECT_EQ(detail::show_cmdline(""), "");
}

TEST(Listeners, ReadsAProcessGroupAndCommand) {
  testing::Squatter squatter;  // a python3 program started by fork and exec
  EXPECT_EQ(detail::process_command(squatter.pid()), squatter.command());
  EXPECT_EQ(detail::process_group(squatter.pid()), ::getpgrp());  // inherited at fork
  EXPECT_EQ(detail::process_group(::getpid()), ::getpgrp());
  EXPECT_EQ(detail::process_group(-5), -1);
  EXPECT_EQ(detail::process_command(-5), "?");
}

TEST(Listeners, ShowsTheNameOfAProcessWithoutACommandLine) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::execl("/bin/true", "true", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  EXPECT_EQ(detail::process_command(child), "[true]");  // a zombie: its cmdline is empty
  ::waitpid(child, nullptr, 0);
}

// A listening socket of this process on a port chosen by the kernel.
class Listener {
 public:
  explicit Listener(int family) {
    fd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (family == AF_INET) {
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ok_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      socklen_t len = sizeof addr;
      ok_ = ok_ && ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
      port_ = ntohs(addr.sin_port);
    } else {
      sockaddr_in6 addr{};
      addr.sin6_family = AF_INET6;
      addr.sin6_addr = in6addr_loopback;
      ok_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      socklen_t len = sizeof addr;
      ok_ = ok_ && ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
      port_ = ntohs(addr.sin6_port);
    }
    ok_ = ok_ && ::listen(fd_, 1) == 0;
  }
  ~Listener() { ::close(fd_); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  bool ok() const { return ok_; }
  int fd() const { return fd_; }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  bool ok_ = false;
};

TEST(Listeners, NetlinkAndProcFindTheSameListeningSocket) {
  Listener listener(AF_INET);
  ASSERT_TRUE(listener.ok());
  const auto inodes = detail::listening_inodes(listener.port());
  ASSERT_EQ(inodes.size(), 1u);
  EXPECT_EQ(detail::proc_listening_inodes(listener.port()), inodes);
  struct stat st {};
  ASSERT_EQ(::fstat(listener.fd(), &st), 0);
  EXPECT_EQ(inodes[0], static_cast<std::uint64_t>(st.st_ino));  // the socket's own inode
}

TEST(Listeners, NamesTheProcessThatListensOnAPort) {
  Listener listener(AF_INET);
  ASSERT_TRUE(listener.ok());
  const auto all = foreign_listeners(listener.port(), /*group=*/0);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].pid, ::getpid());
  EXPECT_EQ(all[0].command, detail::process_command(::getpid()));
  EXPECT_FALSE(all[0].command.empty());
}

TEST(Listeners, NamesAListenerOnIpv6Loopback) {
  Listener listener(AF_INET6);
  if (!listener.ok()) GTEST_SKIP() << "no IPv6 loopback here";
  const auto all = foreign_listeners(listener.port(), /*group=*/0);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].pid, ::getpid());
}

TEST(Listeners, ASocketOfTheGroupIsNotForeign) {
  Listener listener(AF_INET);
  ASSERT_TRUE(listener.ok());
  // This process is in group getpgrp(), whose leader (a shell, ctest) may be another process:
  // then the walk over every process finds the holder and its group.
  EXPECT_TRUE(foreign_listeners(listener.port(), ::getpgrp()).empty());
  // Another group (one that does not exist) does not own it.
  const auto others = foreign_listeners(listener.port(), 999999);
  ASSERT_EQ(others.size(), 1u);
  EXPECT_EQ(others[0].pid, ::getpid());
}

TEST(Listeners, APortNobodyListensOnHasNoListeners) {
  int port = 0;
  {
    Listener listener(AF_INET);
    ASSERT_TRUE(listener.ok());
    port = listener.port();
  }
  EXPECT_TRUE(detail::listening_inodes(port).empty());
  EXPECT_TRUE(foreign_listeners(port, 0).empty());
}

}  // namespace
}  // namespace prowl
