// The command line of a service: where its program is found (a relative path against the
// working directory, a bare name in PATH) and what is said when it is not; the placeholders; and
// how the end of a child is told (died()'s text).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "process_test_helpers.hpp"
#include "prowl/systems/process.hpp"
#include "systems/process_detail.hpp"

namespace prowl {
namespace {

using testing::ProcessTempDir;

std::string cwd() { return std::filesystem::current_path().string(); }

int exit_status(int code) { return code << 8; }  // as waitpid reports an exit
int signal_status(int sig) { return sig; }       // as waitpid reports a death by signal

TEST(CommandLine, SaysARelativeProgramDoesNotExistInTheWorkingDirectory) {
  ProcessTempDir dir;
  ProcessOptions o;
  o.argv = {"./shop_api", "--port", "{port}"};
  o.working_dir = dir.path();
  ProcessSystem p("shop", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(), "service 'shop' (`./shop_api --port " + std::to_string(p.port()) +
                              "`) cannot be started: './shop_api' does not exist (resolved "
                              "against " +
                              dir.path() + ", the service's working directory)");
  EXPECT_EQ(p.pid(), -1);
}

TEST(CommandLine, SaysARelativeProgramDoesNotExistInTheCurrentDirectory) {
  ProcessOptions o;
  o.argv = {"bin/prowl-no-such-service"};
  ProcessSystem p("shop", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(),
            "service 'shop' (`bin/prowl-no-such-service`) cannot be started: "
            "'bin/prowl-no-such-service' does not exist (resolved against " +
                cwd() + ", the current directory)");
}

TEST(CommandLine, SaysARelativeProgramIsNotExecutable) {
  ProcessTempDir dir;
  dir.write("shop_api", "#!/bin/sh\nexit 0\n", 0644);
  ProcessOptions o;
  o.argv = {"./shop_api"};
  o.working_dir = dir.path();
  ProcessSystem p("shop", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(),
            "service 'shop' (`./shop_api`) cannot be started: './shop_api' is not an executable "
            "file (resolved against " +
                dir.path() + ", the service's working directory)");
}

TEST(CommandLine, RunsARelativeProgramFromTheWorkingDirectory) {
  ProcessTempDir dir;
  dir.write("shop_api", "#!/bin/sh\necho \"ran as $0 in $(pwd)\"\nexit 4\n", 0755);
  ProcessOptions o;
  o.argv = {"./shop_api"};
  o.working_dir = dir.path();
  ProcessSystem p("shop", o);
  Status st = p.begin();
  ASSERT_FALSE(st);  // it exits at once
  EXPECT_EQ(p.stdout_tail(), "ran as ./shop_api in " + dir.path() + "\n");
  EXPECT_TRUE(testing::contains(st.message(), "exited during startup with exit code 4"))
      << st.message();
}

TEST(CommandLine, SaysAProgramWasNotFoundInThePathOfTheServicesEnvironment) {
  ProcessOptions o;
  o.argv = {"shop_api"};
  o.env = {{"PATH", "/nonexistent/a:/nonexistent/b"}};
  ProcessSystem p("shop", o);
  Status st = p.begin();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(),
            "service 'shop' (`shop_api`) cannot be started: 'shop_api' was not found in PATH "
            "(/nonexistent/a:/nonexistent/b)");
}

TEST(CommandLine, FindsAProgramInPath) {
  auto found = detail::find_executable("sh", "", "/nonexistent:/bin");
  ASSERT_TRUE(found) << found.status().message();
  EXPECT_EQ(*found, "/bin/sh");
  // An absolute path is left to execve, which says what is wrong with it.
  EXPECT_EQ(*detail::find_executable("/no/such/program", "/tmp", ""), "/no/such/program");
  // A relative working directory is relative to the current one.
  ProcessTempDir dir;
  dir.write("svc", "#!/bin/sh\n", 0755);
  const std::string relative =
      std::filesystem::relative(dir.path(), std::filesystem::current_path()).string();
  auto in_relative = detail::find_executable("./svc", relative, "");
  ASSERT_TRUE(in_relative) << in_relative.status().message();
  EXPECT_EQ(*in_relative, "./svc");  // run from the working directory
  EXPECT_EQ(detail::find_executable("./svc", "", "").status().message(),
            "'./svc' does not exist (resolved against " + cwd() + ", the current directory)");
  // A relative entry of PATH is made absolute: the child runs elsewhere.
  auto in_path = detail::find_executable("svc", "", relative);
  ASSERT_TRUE(in_path) << in_path.status().message();
  EXPECT_EQ(*in_path, cwd() + "/" + relative + "/svc");
  EXPECT_EQ(detail::find_executable("", "", "/bin").status().message(),
            "the program name (argv[0]) is empty");
}

TEST(CommandLine, KeepsTheDsnPlaceholderForMessages) {
  ProcessOptions o;
  o.db = "/tmp/shop.db";
  o.dsn = "host=db password=pw";
  EXPECT_EQ(detail::substitute("{port} {db} {dsn}", 8080, o),
            "8080 /tmp/shop.db host=db password=pw");
  EXPECT_EQ(detail::substitute("{port} {db} {dsn}", 8080, o, /*show_dsn=*/false),
            "8080 /tmp/shop.db {dsn}");
}

TEST(CommandLine, TellsHowAChildEnded) {
  EXPECT_EQ(detail::show_wait_status(exit_status(3)), "exit code 3");
  EXPECT_EQ(detail::show_wait_status(signal_status(SIGKILL)), "signal 9 (Killed)");
  EXPECT_EQ(detail::describe_death(exit_status(0), ""),
            "exited with code 0\n(it wrote nothing to stderr)");
  EXPECT_EQ(detail::describe_death(signal_status(SIGSEGV), " \n\r\n\t\n"),
            "was killed by signal 11 (Segmentation fault)\n(it wrote nothing to stderr)");
  EXPECT_EQ(detail::describe_death(exit_status(2), "a\r\nb\n\nc"),
            "exited with code 2\nlast lines of its stderr:\na\nb\nc");
}

TEST(CommandLine, CutsALongStderrLineAtACharacterBoundary) {
  // 499 bytes, then "é" (2 bytes) across the 500th: the cut keeps 499 bytes.
  const std::string line = std::string(499, 'x') + "\xc3\xa9" + "tail";
  EXPECT_EQ(detail::describe_death(exit_status(1), line + "\n"),
            "exited with code 1\nlast lines of its stderr:\n" + std::string(499, 'x') + "...");
}

}  // namespace
}  // namespace prowl
