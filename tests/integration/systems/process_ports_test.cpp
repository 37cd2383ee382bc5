// ProcessSystem's ports are its own: a squatter (another program on the port, as a developer's
// own copy of the service would be) is refused before the service starts, or found once the
// service is "ready" because the squatter answered for it. Real processes on 127.0.0.1 (and ::1)
// ports chosen at run time; every process is stopped by its owner.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "process_test_helpers.hpp"
#include "prowl/systems/process.hpp"

namespace prowl {
namespace {

using namespace std::chrono_literals;
using testing::contains;
using testing::counter_server;
using testing::get;
using testing::gone;
using testing::ProcessTempDir;
using testing::shell;
using testing::Squatter;

bool ipv6_loopback() {
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_loopback;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

std::string squatter_count(int port) {
  auto r = http_get(port, "/count");
  return r ? r->body : "error: " + r.status().message();
}

TEST(ProcessSystemPorts, RefusesAFixedPortOnWhichAnotherProcessListens) {
  Squatter squatter;
  ProcessOptions o;
  o.argv = {"prowl-test-shop", "--port", "{port}"};  // never started: it need not exist
  o.port = squatter.port();
  ProcessSystem p("shop", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  const std::string port = std::to_string(squatter.port());
  EXPECT_EQ(st.message(), "service 'shop' (`prowl-test-shop --port " + port +
                              "`) cannot be started: port " + port + " is already in use by pid " +
                              std::to_string(squatter.pid()) + " (" + squatter.command() +
                              "); prowl's requests would go to that process: stop it, or leave "
                              "port: out so that prowl picks a free port");
  EXPECT_EQ(p.pid(), -1);
  // The squatter was neither stopped nor sent a request.
  EXPECT_TRUE(squatter.running());
  EXPECT_EQ(squatter_count(squatter.port()), "0");
}

TEST(ProcessSystemPorts, RefusesAFixedPortServedOnIpv6Loopback) {
  // A squatter on [::1] only: a service binding 127.0.0.1 would start, and any client resolving
  // "localhost" to ::1 would reach the squatter.
  if (!ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback here";
  Squatter squatter(0, "::1");
  ProcessOptions o = counter_server();
  o.port = squatter.port();
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_TRUE(contains(st.message(), "cannot be started: port " + std::to_string(squatter.port()) +
                                         " is already in use by pid " +
                                         std::to_string(squatter.pid()) + " (" +
                                         squatter.command() + "); prowl's requests would go"))
      << st.message();
  EXPECT_TRUE(squatter.running());
}

TEST(ProcessSystemPorts, RefusesAReadyPortOnWhichAnotherProcessListens) {
  Squatter squatter;
  ProcessOptions o = shell("exec sleep 30");
  o.ready_port = squatter.port();
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  const std::string port = std::to_string(squatter.port());
  EXPECT_EQ(st.message(),
            "service 'svc' (`/bin/sh -c exec sleep 30`) cannot be started: "
            "ready_port " +
                port + " is already in use by pid " + std::to_string(squatter.pid()) + " (" +
                squatter.command() +
                "); prowl's readiness check would go to that process: stop it, or "
                "choose another ready_port");
  EXPECT_EQ(p.pid(), -1);
  EXPECT_EQ(squatter_count(squatter.port()), "0");
}

TEST(ProcessSystemPorts, StopsAServiceWhoseHealthCheckASquatterAnswered) {
  // The service binds nothing (as one that failed to bind would); once it runs, a squatter takes
  // its chosen port and answers the health check in its place.
  ProcessTempDir dir;
  const std::string marker = dir.file("port");
  ProcessOptions o = shell("echo $$ {port} >\"$0.t\";mv \"$0.t\" \"$0\";exec sleep 30");
  o.argv.push_back(marker);
  o.health_path = "/health";
  o.ready_timeout = 20s;
  ProcessSystem p("shop", o);
  Status st;
  std::thread starter([&] { st = p.begin(); });
  pid_t service = -1;
  int port = 0;
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       port == 0 && std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(5ms)) {
    std::ifstream(marker) >> service >> port;
  }
  ASSERT_GT(port, 0);
  Squatter squatter(port);
  starter.join();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  const std::string shown_port = std::to_string(port);
  EXPECT_EQ(st.message(),
            "service 'shop' (`/bin/sh -c echo $$ " + shown_port +
                " >\"$0.t\";mv \"$0.t\" \"$0\";exec sleep 30 " + marker +
                "`) became ready, but port " + shown_port + " is also listened on by pid " +
                std::to_string(squatter.pid()) + " (" + squatter.command() +
                "), which is not in the service's process group: prowl's requests could go to "
                "that process; stop it (a service that leaves its process group, as a daemon "
                "does, must be kept in the foreground)\n"
                "(the service wrote nothing to stdout or stderr)");
  EXPECT_EQ(p.pid(), -1);
  EXPECT_TRUE(gone(service));  // stopped and reaped
  EXPECT_TRUE(squatter.running());
  EXPECT_EQ(p.died(), "");  // prowl stopped it
}

TEST(ProcessSystemPorts, AcceptsAFixedPortServedByTheService) {
  auto port = pick_free_port();
  ASSERT_TRUE(port);
  ProcessOptions o = counter_server();
  o.port = *port;
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(get(p, "/count"), "200 0");
  // A restart checks again, and finds the port its own.
  st = p.reset();
  ASSERT_TRUE(st) << st.message();
  EXPECT_TRUE(p.end());
}

TEST(ProcessSystemPorts, AcceptsAPortServedByAnotherProcessOfTheServicesGroup) {
  // The shell stays the group's leader; the server is its child, in its process group.
  ProcessOptions o = counter_server();
  o.argv = {"/bin/sh", "-c", "python3 -c \"$0\" \"$1\" & wait", testing::kCounterServer, "{port}"};
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(get(p, "/count"), "200 0");
  EXPECT_TRUE(p.end());
}

}  // namespace
}  // namespace prowl
