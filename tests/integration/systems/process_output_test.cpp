// What ProcessSystem shows: died() for a service that ended by itself (exit code, signal, the
// last lines of its stderr), and secrets redacted in every message, output tail and died() text.
// Real child processes on ports chosen at run time; each test stops what it starts.
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "process_test_helpers.hpp"
#include "prowl/systems/process.hpp"

namespace prowl {
namespace {

using namespace std::chrono_literals;
using testing::contains;
using testing::dead;
using testing::gone;
using testing::ProcessTempDir;
using testing::shell;

// An HTTP server that dies on request: GET /exit3 writes three lines (and a blank one) to stderr
// and exits with code 3; GET /segv writes one line and kills itself with SIGSEGV. Anything else:
// 200 "ok".
constexpr const char* kMortalServer = R"PY(
import http.server, os, signal, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == '/exit3':
            sys.stderr.write('first problem\n\nsecond problem\nthird problem\n')
            sys.stderr.flush()
            os._exit(3)
        if self.path == '/segv':
            sys.stderr.write('about to crash\n')
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        self.send_response(200)
        self.send_header('Content-Length', '2')
        self.end_headers()
        self.wfile.write(b'ok')
    def log_message(self, *args):
        pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), Handler).serve_forever()
)PY";

ProcessOptions mortal_server() {
  ProcessOptions o;
  o.argv = {"python3", "-c", kMortalServer, "{port}"};
  o.health_path = "/health";
  o.ready_timeout = 15s;
  o.stop_timeout = 3s;
  return o;
}

// died() once it says something, or "" after 5 s.
std::string wait_for_death(const ProcessSystem& p) {
  std::string why;
  for (auto deadline = std::chrono::steady_clock::now() + 5s;
       why.empty() && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(5ms)) {
    why = p.died();
  }
  return why;
}

TEST(ProcessSystemDied, SaysNothingBeforeTheServiceStartsNorWhileItRuns) {
  ProcessSystem p("svc", mortal_server());
  EXPECT_EQ(p.died(), "");
  ASSERT_TRUE(p.begin());
  EXPECT_EQ(p.died(), "");
  EXPECT_GT(p.pid(), 0);  // asking did not disturb it
  EXPECT_TRUE(p.end());
  EXPECT_EQ(p.died(), "");  // stopped by prowl: not a death
}

TEST(ProcessSystemDied, ReportsTheExitCodeAndTheLastLinesOfStderr) {
  ProcessSystem p("svc", mortal_server());
  ASSERT_TRUE(p.begin());
  const pid_t pid = p.pid();
  EXPECT_FALSE(http_get(p.port(), "/exit3"));  // the connection drops: no answer
  EXPECT_EQ(wait_for_death(p),
            "exited with code 3\n"
            "last lines of its stderr:\n"
            "first problem\n"
            "second problem\n"
            "third problem");
  EXPECT_TRUE(gone(pid));  // reaped
  EXPECT_EQ(p.pid(), -1);
  EXPECT_EQ(p.died(), wait_for_death(p));  // asked again: the same
  // A restart clears it.
  ASSERT_TRUE(p.reset());
  EXPECT_EQ(p.died(), "");
  EXPECT_TRUE(p.end());
}

TEST(ProcessSystemDied, ReportsACrashBySignal) {
  ProcessSystem p("svc", mortal_server());
  ASSERT_TRUE(p.begin());
  EXPECT_FALSE(http_get(p.port(), "/segv"));
  EXPECT_EQ(wait_for_death(p),
            "was killed by signal 11 (Segmentation fault)\n"
            "last lines of its stderr:\n"
            "about to crash");
  ASSERT_TRUE(p.begin());  // begin() again clears it too
  EXPECT_EQ(p.died(), "");
  EXPECT_TRUE(p.end());
}

TEST(ProcessSystemDied, ReportsAShellThatKillsItselfWithSigsegv) {
  ProcessOptions o = shell("echo 'segfault ahead' >&2; kill -SEGV $$");
  ProcessSystem p("svc", o);
  Status st = p.begin();  // it dies during startup: that is by itself too
  ASSERT_FALSE(st);
  EXPECT_TRUE(contains(st.message(), "exited during startup with signal 11 (Segmentation fault)"))
      << st.message();
  EXPECT_EQ(p.died(),
            "was killed by signal 11 (Segmentation fault)\n"
            "last lines of its stderr:\n"
            "segfault ahead");
}

TEST(ProcessSystemDied, ReportsAServiceKilledFromOutside) {
  ProcessOptions o = mortal_server();
  o.stateless = true;
  ProcessSystem p("svc", o);
  ASSERT_TRUE(p.begin());
  const pid_t pid = p.pid();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(wait_for_death(p),
            "was killed by signal 9 (Killed)\n"
            "(it wrote nothing to stderr)");
  // A restore that revives the service clears it.
  ASSERT_TRUE(p.rollback(0));
  EXPECT_EQ(p.died(), "");
  EXPECT_NE(p.pid(), pid);
  EXPECT_TRUE(p.end());
}

// A service killed while idle, which nothing asked about before a restore restarted it: the
// restart keeps what ended it for the run to report, once. Killed and asked about, it is not kept.
TEST(ProcessSystemDied, ARestartKeepsAnUnreportedDeathOnce) {
  for (const bool stateless : {true, false}) {
    ProcessOptions o = mortal_server();
    o.stateless = stateless;
    ProcessSystem p("svc", o);
    ASSERT_TRUE(p.begin());
    ASSERT_EQ(::kill(p.pid(), SIGKILL), 0);
    // As the explorer's observation between steps would: it sees the service gone.
    for (int i = 0; i < 2000 && p.check_alive().is_ok(); ++i) ::usleep(1000);
    // A stateless service is revived by a restore (rollback); one that keeps state by a reset.
    ASSERT_TRUE(stateless ? p.rollback(0) : p.reset());
    EXPECT_EQ(p.take_unreported_death(),
              "was killed by signal 9 (Killed)\n(it wrote nothing to stderr)")
        << "stateless " << stateless;
    EXPECT_EQ(p.take_unreported_death(), "");
    // Asked about (a failed step did), it is reported there, not kept.
    ASSERT_EQ(::kill(p.pid(), SIGKILL), 0);
    EXPECT_NE(wait_for_death(p), "");
    ASSERT_TRUE(stateless ? p.rollback(0) : p.reset());
    EXPECT_EQ(p.take_unreported_death(), "");
    EXPECT_TRUE(p.end());
  }
}

TEST(ProcessSystemDied, KeepsTheLastTenLinesEscaped) {
  ProcessOptions o = shell(
      "i=1; while [ $i -le 12 ]; do echo \"line $i\" >&2; i=$((i+1)); done; "
      "printf 'evil \\033[31mred\\r\\n' >&2; exit 1");
  ProcessSystem p("svc", o);
  ASSERT_FALSE(p.begin());
  EXPECT_EQ(p.died(),
            "exited with code 1\n"
            "last lines of its stderr:\n"
            "line 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nline 12\n"
            "evil \\e[31mred");
}

TEST(ProcessSystemSecrets, RedactsSecretsInEveryMessageTailAndDeath) {
  ProcessOptions o = shell(
      "[ \"$SHOP_TOKEN\" = tok-123456 ] && echo token-received; echo \"stdout hunter2\"; "
      "echo \"stderr tok-123456\" >&2; exit 5");
  o.argv.push_back("--token=tok-123456");
  o.argv.push_back("--dsn={dsn}");
  o.dsn = "postgresql://shop:hunter2@db/shop";
  o.env = {{"SHOP_TOKEN", "tok-123456"}};
  o.secrets = {"hunter2", "tok-123456"};
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  // The service got the real values; nothing shows them.
  EXPECT_EQ(p.stdout_tail(), "token-received\nstdout [REDACTED]\n");
  EXPECT_EQ(p.stderr_tail(), "stderr [REDACTED]\n");
  EXPECT_EQ(p.output_tail(),
            "stderr:\nstderr [REDACTED]\nstdout:\ntoken-received\nstdout [REDACTED]");
  const std::string shown =
      "service 'svc' (`/bin/sh -c [ \"$SHOP_TOKEN\" = [REDACTED] ] && echo token-received; "
      "ec... --token=[REDACTED] --dsn={dsn}`)";
  EXPECT_EQ(st.message(),
            shown +
                " exited during startup with exit code 5\n"
                "stderr:\nstderr [REDACTED]\nstdout:\ntoken-received\nstdout [REDACTED]");
  EXPECT_EQ(p.check_alive().message(),
            shown +
                " died with exit code 5\n"
                "stderr:\nstderr [REDACTED]\nstdout:\ntoken-received\nstdout [REDACTED]");
  EXPECT_EQ(p.died(), "exited with code 5\nlast lines of its stderr:\nstderr [REDACTED]");
  // The command itself holds the real values, for the service.
  EXPECT_EQ(p.command()[3], "--token=tok-123456");
  EXPECT_EQ(p.command()[4], "--dsn=postgresql://shop:hunter2@db/shop");
}

TEST(ProcessSystemSecrets, ShowsTheDsnPlaceholderInsteadOfTheDsn) {
  // No secrets declared: the DSN is still not shown in the command.
  ProcessOptions o = shell("exit 2");
  o.argv.push_back("--db={dsn}");
  o.dsn = "host=db password=pw dbname=shop";
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(
      st.message(),
      "service 'svc' (`/bin/sh -c exit 2 --db={dsn}`) exited during startup with exit code 2\n"
      "(the service wrote nothing to stdout or stderr)");
}

TEST(ProcessSystemSecrets, RedactsSecretsInCannotBeStarted) {
  ProcessTempDir dir;
  ProcessOptions o;
  o.argv = {"./hunter2-service", "--password=hunter2"};
  o.working_dir = dir.path();
  o.secrets = {"hunter2"};
  ProcessSystem p("svc", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(),
            "service 'svc' (`./[REDACTED]-service --password=[REDACTED]`) cannot be started: "
            "'./[REDACTED]-service' does not exist (resolved against " +
                dir.path() + ", the service's working directory)");
}

TEST(ProcessSystemSecrets, TheLongestSecretIsRedactedWhole) {
  ProcessOptions o = shell("echo pass passphrase >&2; exit 1");
  o.secrets = {"pass", "passphrase", ""};
  ProcessSystem p("svc", o);
  ASSERT_FALSE(p.begin());
  EXPECT_EQ(p.stderr_tail(), "[REDACTED] [REDACTED]\n");
}

}  // namespace
}  // namespace prowl
