// ProcessSystem against real child processes: a tiny python3 HTTP server (a counter that a restart
// resets) and /bin/sh one-liners for the failure cases. Every server binds 127.0.0.1 on a port
// chosen at run time; every test stops what it starts and is bounded in time.
#include "prowl/systems/process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "process_test_helpers.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/strategy/bfs.hpp"

namespace prowl {
namespace {

using namespace std::chrono_literals;
using testing::contains;
using testing::counter_server;
using testing::dead;
using testing::get;
using testing::gone;
using testing::kCounterServer;
using testing::shell;

TEST(ProcessSystem, StartsOnAFreePortAndBecomesReady) {
  ProcessSystem p("svc", counter_server());
  EXPECT_EQ(p.capabilities().reset, true);
  EXPECT_EQ(p.capabilities().snapshot, false);
  EXPECT_EQ(p.capabilities().stack, false);
  EXPECT_EQ(p.capabilities().cheap, false);
  ASSERT_TRUE(p.begin()) << p.check_alive().message();
  EXPECT_GT(p.port(), 0);
  ASSERT_EQ(p.command().size(), 4u);
  EXPECT_EQ(p.command()[3], std::to_string(p.port()));
  EXPECT_GT(p.pid(), 0);
  EXPECT_EQ(::getpgid(p.pid()), p.pid());  // leads its own process group
  EXPECT_EQ(get(p, "/health"), "200 ok");
  EXPECT_EQ(get(p, "/count"), "200 0");
  EXPECT_TRUE(p.check_alive());
  EXPECT_TRUE(p.end());
  EXPECT_EQ(p.pid(), -1);
}

TEST(ProcessSystem, ResetRestartsTheServiceWithAFreshState) {
  ProcessSystem p("svc", counter_server());
  ASSERT_TRUE(p.begin());
  const int port = p.port();
  const pid_t first = p.pid();
  EXPECT_EQ(get(p, "/inc"), "200 1");
  EXPECT_EQ(get(p, "/inc"), "200 2");
  EXPECT_EQ(get(p, "/count"), "200 2");
  Status st = p.reset();
  ASSERT_TRUE(st) << st.message();
  EXPECT_NE(p.pid(), first);
  EXPECT_GT(p.pid(), 0);
  EXPECT_EQ(p.port(), port);  // the port is kept across restarts
  EXPECT_TRUE(gone(first));   // reaped, not a zombie
  EXPECT_EQ(get(p, "/count"), "200 0");
  EXPECT_TRUE(p.end());
}

TEST(ProcessSystem, ReportsAServiceThatExitsDuringStartup) {
  ProcessSystem p("broken", shell("echo starting; echo 'fatal: no config' >&2; exit 3"));
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_TRUE(contains(st.message(), "service 'broken' (`/bin/sh -c echo starting;"))
      << st.message();
  EXPECT_TRUE(contains(st.message(), "exited during startup with exit code 3")) << st.message();
  EXPECT_TRUE(contains(st.message(), "stderr:\nfatal: no config\nstdout:\nstarting"))
      << st.message();
  EXPECT_EQ(p.pid(), -1);
}

TEST(ProcessSystem, ReportsAServiceThatNeverBecomesReady) {
  ProcessOptions o = shell("echo $$; exec sleep 30");
  o.ready_timeout = 1s;  // nothing ever listens on {port}
  ProcessSystem p("sleepy", o);
  const auto started = std::chrono::steady_clock::now();
  Status st = p.begin();
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_TRUE(contains(st.message(), "did not become ready within 1000 ms (waiting for 127.0.0.1:" +
                                         std::to_string(p.port()) +
                                         " to accept connections; last attempt: "))
      << st.message();
  EXPECT_GE(took, 1s);
  EXPECT_LT(took, 4s);  // SIGTERM stops sleep at once
  // The service was stopped and reaped: the pid it printed is gone.
  const pid_t service = static_cast<pid_t>(std::stol(p.stdout_tail()));
  EXPECT_TRUE(contains(st.message(), "stdout:\n" + std::to_string(service))) << st.message();
  EXPECT_TRUE(gone(service));
  EXPECT_EQ(p.pid(), -1);
}

TEST(ProcessSystem, AServiceDiesWithAProwlThatEndsWithoutStoppingIt) {
  // A prowl (a child of this test) starts a service, reports its pid and is killed.
  int pids[2];
  ASSERT_EQ(::pipe(pids), 0);
  const pid_t prowl = ::fork();
  ASSERT_GE(prowl, 0);
  if (prowl == 0) {
    ::close(pids[0]);
    ProcessSystem service("orphan", counter_server());
    if (!service.begin()) ::_exit(2);
    const pid_t pid = service.pid();
    if (::write(pids[1], &pid, sizeof pid) != sizeof pid) ::_exit(3);
    ::raise(SIGKILL);
  }
  ::close(pids[1]);
  pid_t service = -1;
  ASSERT_EQ(::read(pids[0], &service, sizeof service), static_cast<ssize_t>(sizeof service));
  ::close(pids[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(prowl, &status, 0), prowl);
  ASSERT_TRUE(WIFSIGNALED(status));
  // Gone, or a zombie waiting for a parent that reaps.
  auto dead = [&] {
    std::ifstream stat("/proc/" + std::to_string(service) + "/stat");
    std::string pid, name, state;
    return !(stat >> pid >> name >> state) || state == "Z";
  };
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!dead() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(dead()) << "the service " << service << " outlived the prowl that started it";
  if (!dead()) ::kill(service, SIGKILL);
}

TEST(ProcessSystem, ReportsAnHttpHealthCheckThatNeverAnswers2xx) {
  ProcessOptions o = counter_server();
  o.health_path = "/missing";
  o.ready_timeout = 2s;
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_TRUE(contains(st.message(),
                       "did not become ready within 2000 ms (waiting for GET "
                       "http://127.0.0.1:" +
                           std::to_string(p.port()) + "/missing to answer 2xx"))
      << st.message();
  EXPECT_EQ(p.pid(), -1);
}

TEST(ProcessSystem, ReportsACommandThatCannotBeRun) {
  ProcessOptions o;
  o.argv = {"/nonexistent/prowl-service", "--port={port}"};
  ProcessSystem p("missing", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_TRUE(contains(st.message(),
                       "cannot be started: execve of '/nonexistent/prowl-service': No such file "
                       "or directory"))
      << st.message();

  o.argv = {"prowl-no-such-program-in-path"};
  ProcessSystem q("missing", o);
  st = q.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(),
            std::string("service 'missing' (`prowl-no-such-program-in-path`) cannot be started: "
                        "'prowl-no-such-program-in-path' was not found in PATH (") +
                std::getenv("PATH") + ")");

  ProcessOptions in_missing_dir = shell("exit 0");
  in_missing_dir.working_dir = "/nonexistent/dir";
  ProcessSystem r("missing", in_missing_dir);
  st = r.begin();
  ASSERT_FALSE(st);
  EXPECT_TRUE(contains(st.message(), "chdir to '/nonexistent/dir': No such file or directory"))
      << st.message();
}

TEST(ProcessSystem, DetectsAServiceThatDiesBetweenSteps) {
  ProcessSystem p("svc", counter_server());
  ASSERT_TRUE(p.begin());
  Hasher h;
  EXPECT_TRUE(p.observe(h));
  const pid_t pid = p.pid();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  Status st;
  for (auto deadline = std::chrono::steady_clock::now() + 3s;
       std::chrono::steady_clock::now() < deadline && st; std::this_thread::sleep_for(5ms)) {
    st = p.check_alive();
  }
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_TRUE(contains(st.message(), "service 'svc' (`python3 -c ")) << st.message();
  EXPECT_TRUE(contains(st.message(), "died with signal 9 (Killed)")) << st.message();
  EXPECT_TRUE(contains(st.message(), "stdout:\nlistening on " + std::to_string(p.port())))
      << st.message();
  EXPECT_TRUE(gone(pid));  // reaped as soon as the death was seen
  EXPECT_EQ(p.pid(), -1);
  Status observed = p.observe(h);
  EXPECT_EQ(observed.code(), StatusCode::kEnvironment);
  EXPECT_EQ(observed.message(), st.message());
  // A reset brings it back.
  ASSERT_TRUE(p.reset());
  EXPECT_EQ(get(p, "/count"), "200 0");
  EXPECT_TRUE(p.end());
}

TEST(ProcessSystem, StopLeavesNoChildNorGrandchild) {
  // Readiness by TCP port; the shell starts a grandchild in the same process group, then becomes
  // the server.
  ProcessOptions o = counter_server(/*http_ready=*/false);
  o.argv = {"/bin/sh", "-c", "sleep 30 & echo grandchild $!; exec python3 -c \"$0\" \"$1\"",
            kCounterServer, "{port}"};
  ProcessSystem p("svc", o);
  ASSERT_TRUE(p.begin());
  const pid_t pid = p.pid();
  std::string out;
  for (auto deadline = std::chrono::steady_clock::now() + 3s;
       std::chrono::steady_clock::now() < deadline && !contains(out, "listening");
       std::this_thread::sleep_for(5ms)) {
    out = p.stdout_tail();
  }
  ASSERT_TRUE(contains(out, "grandchild ")) << out;
  const pid_t grandchild = static_cast<pid_t>(std::stol(out.substr(out.find(' ') + 1)));
  EXPECT_EQ(::getpgid(grandchild), pid);
  EXPECT_TRUE(p.end());
  EXPECT_TRUE(gone(pid));
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_TRUE(dead(grandchild));  // killed with its group; init collects it
}

TEST(ProcessSystem, DestructorStopsTheService) {
  pid_t pid = -1;
  {
    ProcessSystem p("svc", counter_server());
    ASSERT_TRUE(p.begin());
    pid = p.pid();
  }
  EXPECT_TRUE(gone(pid));
}

TEST(ProcessSystem, CapturesWhatTheServicePrinted) {
  ProcessSystem p("svc", counter_server());
  ASSERT_TRUE(p.begin());
  const int port = p.port();
  EXPECT_TRUE(p.end());
  // After the stop every byte has been drained.
  EXPECT_EQ(p.stdout_tail(), "listening on " + std::to_string(port) + "\n");
  EXPECT_EQ(p.stderr_tail(), "counter server log\n");
  EXPECT_EQ(p.output_tail(),
            "stderr:\ncounter server log\nstdout:\nlistening on " + std::to_string(port));
}

TEST(ProcessSystem, KeepsOnlyTheEndOfALongOutput) {
  ProcessOptions o = shell("i=0; while [ $i -lt 3000 ]; do echo line-$i; i=$((i+1)); done; exit 1");
  o.output_limit = 1024;
  ProcessSystem p("chatty", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  const std::string out = p.stdout_tail();
  EXPECT_EQ(out.size(), 1024u);
  EXPECT_EQ(out.substr(out.size() - 20), "line-2998\nline-2999\n");
  EXPECT_TRUE(contains(st.message(), "exited during startup with exit code 1\nstderr:\n(nothing)"))
      << st.message();
}

TEST(ProcessSystem, SubstitutesEveryPlaceholderInArgumentsAndEnvironment) {
  ProcessOptions o = shell("echo \"$0|$1|$PROWL_TEST_DSN\"; exit 4");
  o.argv.push_back("{db}");
  o.argv.push_back("port={port} dsn={dsn} {other}");
  o.port = 4321;
  o.db = "/tmp/x.db";
  o.dsn = "host=db";
  o.env = {{"PROWL_TEST_DSN", "{dsn}@{port}"}};
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(p.port(), 4321);
  EXPECT_EQ(p.stdout_tail(), "/tmp/x.db|port=4321 dsn=host=db {other}|host=db@4321\n");
}

TEST(ProcessSystem, AThirdInterruptKillsRunningServices) {
  // The runner is a forked copy of this test process that starts a service, installs the
  // interrupt handlers and receives SIGINT three times: the third ends it at once. This process
  // becomes the subreaper of the orphaned service, so it can see how the service ended.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    ::close(fds[0]);
    pid_t service = -1;
    {
      ProcessSystem p("svc", counter_server(/*http_ready=*/false));
      if (p.begin()) service = p.pid();
      [[maybe_unused]] ssize_t n = ::write(fds[1], &service, sizeof service);
      if (service > 0) {
        install_interrupt_handlers();
        for (int i = 0; i < 3; ++i) ::raise(SIGINT);
      }
    }
    ::_exit(1);  // not reached when the handler works
  }
  ::close(fds[1]);
  pid_t service = -1;
  ASSERT_EQ(::read(fds[0], &service, sizeof service), static_cast<ssize_t>(sizeof service));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(runner, &status, 0), runner);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == signal_exit_code(SIGINT)) << status;
  ASSERT_GT(service, 0);
  pid_t reaped = 0;
  for (auto deadline = std::chrono::steady_clock::now() + 5s;
       reaped == 0 && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(5ms)) {
    reaped = ::waitpid(service, &status, WNOHANG);
  }
  if (reaped == 0) {  // the handler failed: do not leave the service behind
    ::kill(-service, SIGKILL);
    ::waitpid(service, &status, 0);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_EQ(reaped, service);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

TEST(ProcessSystem, HttpGetReportsARefusedConnection) {
  auto port = pick_free_port();
  ASSERT_TRUE(port);
  auto r = http_get(*port, "/x", 1s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(r.status().message(),
            "GET http://127.0.0.1:" + std::to_string(*port) + "/x: Connection refused");
}

// Observes the service's counter through HTTP; the ProcessSystem's restart resets it.
class CounterSystem final : public System {
 public:
  explicit CounterSystem(const ProcessSystem& service) : System("counter"), service_(service) {}
  Capabilities capabilities() const override {
    Capabilities c;
    c.reset = true;
    return c;
  }
  Result<int> value() const {
    auto r = http_get(service_.port(), "/count");
    if (!r) return r.status();
    if (r->status != 200)
      return Status::environment("GET /count: status " + std::to_string(r->status));
    return std::stoi(r->body);
  }
  Status observe(Hasher& hasher) const override {
    auto v = value();
    if (!v) return v.status();
    hasher.add(*v);
    return Status::ok();
  }
  Status reset() override { return Status::ok(); }  // the service's restart did it

 private:
  const ProcessSystem& service_;
};

TEST(ProcessSystem, ExploresACounterServiceByRestartingIt) {
  auto pids = std::make_shared<std::set<pid_t>>();
  Model m("counter_service");
  m.set_world([]() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    auto& service = w->emplace<ProcessSystem>("service", counter_server());
    w->emplace<CounterSystem>(service);
    return w;
  });
  auto counter = [](const World& w) {
    auto v = static_cast<const CounterSystem&>(w.system(1)).value();
    return v ? *v : -1;
  };
  auto call = [pids](Step& s, const char* path) {
    const auto& service = static_cast<const ProcessSystem&>(s.world.system(0));
    pids->insert(service.pid());
    auto r = http_get(service.port(), path);
    if (!r) return Outcome::error(r.status().message());
    return r->status == 200 ? Outcome::ok() : Outcome::error("status " + std::to_string(r->status));
  };
  m.action("inc")
      .when([=](const World& w, const Context&) { return counter(w) >= 0 && counter(w) < 3; })
      .run([=](Step& s) { return call(s, "/inc"); });
  m.action("zero")
      .when([=](const World& w, const Context&) { return counter(w) > 0; })
      .run([=](Step& s) { return call(s, "/zero"); });

  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->restore_mode, RestoreMode::kReset);
  EXPECT_EQ(r->stats.states, 4u);       // counter 0, 1, 2, 3
  EXPECT_EQ(r->stats.transitions, 6u);  // inc from 0..2, zero from 1..3
  EXPECT_GT(r->stats.replayed_actions, 0u);
  EXPECT_GT(pids->size(), 1u);                            // restarted to restore
  for (pid_t pid : *pids) EXPECT_TRUE(gone(pid)) << pid;  // every service stopped and reaped
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

TEST(ProcessSystem, AStatelessServiceKeepsRunningAcrossRestoresAndIsRevivedAfterDying) {
  ProcessOptions o = counter_server();
  o.stateless = true;
  ProcessSystem p("svc", o);
  const Capabilities caps = p.capabilities();
  EXPECT_TRUE(caps.snapshot);
  EXPECT_TRUE(caps.stack);
  EXPECT_TRUE(caps.reset);
  ASSERT_TRUE(p.begin());
  const pid_t first = p.pid();
  auto snap = p.save();
  ASSERT_TRUE(snap);
  EXPECT_EQ(get(p, "/inc"), "200 1");
  // The state is not the process's to restore: the same process keeps its counter.
  ASSERT_TRUE(p.restore(*snap));
  ASSERT_TRUE(p.push());
  ASSERT_TRUE(p.rollback(0));
  EXPECT_EQ(p.pid(), first);
  EXPECT_EQ(get(p, "/count"), "200 1");
  // A service that died is started again by the next restore.
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  ASSERT_TRUE(dead(first));
  ASSERT_TRUE(p.restore(*snap));
  EXPECT_NE(p.pid(), -1);
  EXPECT_NE(p.pid(), first);
  EXPECT_EQ(get(p, "/count"), "200 0");
  EXPECT_TRUE(p.end());
  EXPECT_TRUE(gone(first));
}

TEST(ProcessSystem, AServiceWithStateCannotSaveOrPush) {
  ProcessSystem p("svc", counter_server());
  const Capabilities caps = p.capabilities();
  EXPECT_FALSE(caps.snapshot);
  EXPECT_FALSE(caps.stack);
  EXPECT_TRUE(caps.reset);
  EXPECT_THROW((void)p.save(), LogicError);
  EXPECT_THROW((void)p.push(), LogicError);
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

using namespace std::chrono_literals;
using testing::contains;
using testing::counter_server;
using testing::gone;
using testing::shell;

// Each test leaves the process's interrupt count as it found it: zero.
class ProcessSystemInterrupts : public ::testing::Test {
 protected:
  void SetUp() override { clear_interrupts(); }
  void TearDown() override { clear_interrupts(); }
};

// Starts `p`, delivers SIGINT (as the handler would count it) from another thread once `delay`
// has passed, and returns begin()'s status and how long it took after the signal.
std::pair<Status, std::chrono::steady_clock::duration> begin_interrupted(
    ProcessSystem& p, std::chrono::milliseconds delay) {
  std::chrono::steady_clock::time_point signalled;
  std::thread signaller([&] {
    std::this_thread::sleep_for(delay);
    signalled = std::chrono::steady_clock::now();
    request_interrupt(SIGINT);
  });
  Status st = p.begin();
  const auto ended = std::chrono::steady_clock::now();
  signaller.join();
  return {std::move(st), ended - signalled};
}

TEST_F(ProcessSystemInterrupts, ASignalEndsTheWaitForAServiceThatNeverListens) {
  ProcessOptions o = shell("echo $$; exec sleep 30");
  o.ready_timeout = 20s;
  ProcessSystem p("sleepy", o);
  auto [st, after_signal] = begin_interrupted(p, 300ms);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  const std::string pid = p.stdout_tail().substr(0, p.stdout_tail().size() - 1);
  EXPECT_EQ(st.message(),
            "service 'sleepy' (`/bin/sh -c echo $$; exec sleep 30`) interrupted by SIGINT while "
            "waiting for the service to become ready\nstderr:\n(nothing)\nstdout:\n" +
                pid);
  EXPECT_LT(after_signal, 150ms);
  EXPECT_TRUE(gone(std::stoi(pid)));  // stopped and reaped
  EXPECT_EQ(p.pid(), -1);
  EXPECT_EQ(p.died(), "");  // prowl stopped it: it did not die
}

TEST_F(ProcessSystemInterrupts, ASignalEndsAHealthCheckThatGetsNoAnswer) {
  // Accepts connections and never answers: each health check would wait for a second.
  ProcessOptions o;
  o.argv = {"python3", "-c",
            "import socket, sys, time\n"
            "s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen()\n"
            "time.sleep(60)\n",
            "{port}"};
  o.health_path = "/health";
  o.ready_timeout = 20s;
  o.stop_timeout = 3s;
  ProcessSystem p("mute", o);
  auto [st, after_signal] = begin_interrupted(p, 800ms);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_TRUE(contains(st.message(),
                       "interrupted by SIGINT while waiting for the service to become ready\n"))
      << st.message();
  EXPECT_LT(after_signal, 150ms);
  EXPECT_EQ(p.pid(), -1);
}

TEST_F(ProcessSystemInterrupts, ASignalFromBeforeTheWaitDoesNotEndIt) {
  request_interrupt(SIGTERM);
  ProcessSystem p("svc", counter_server());
  Status st = p.begin();
  EXPECT_TRUE(st) << st.message();
  EXPECT_GT(p.pid(), 0);
  EXPECT_TRUE(p.end());
}

}  // namespace
}  // namespace prowl
