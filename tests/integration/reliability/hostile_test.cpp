// Values the system under test chose stay data: an id that is a path and a query reaches the
// service as one path segment; bodies and output with terminal escapes and line breaks reach the
// console, the traces and the reports escaped; a model file that would expand without bound is
// refused at once.
#include <chrono>
#include <filesystem>

#include <gtest/gtest.h>

#include "reliability.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST(HostileService, ItsIdReachesItAsOnePathSegmentAndItsTextIsShownEscaped) {
  ScratchDir dir("prowl-hostile");
  const std::string log = dir.file("requests.log");
  ProcessRun run({kProwl, "explore", kModels + "/hostile.yaml", "--trace-dir", dir.file("traces"),
                  "--report", "json:" + dir.file("r.json")},
                 dir.path(), dir.path(), {{"HOSTILE_LOG", log}});
  EXPECT_EQ(run.code(60s), kExitFindings) << run.err();

  // The id "../admin?role=root#x" was bound and put in the path of touch.
  const std::string requests = read_file(log);
  EXPECT_NE(requests.find("/items/..%2Fadmin%3Frole%3Droot%23x/touch\n"), std::string::npos)
      << requests;
  EXPECT_EQ(requests.find("/admin"), std::string::npos) << requests;

  // Nothing the service wrote reaches the terminal raw: no escape sequence, no carriage return,
  // no line of its own.
  const std::string out = run.out() + run.err();
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(out.find("\n[1] critical invariant_violation forged"), std::string::npos);
  EXPECT_NE(out.find("\\x1b[31mred"), std::string::npos) << out;
  for (const auto& e : fs::directory_iterator(dir.file("traces"))) {
    const std::string trace = read_file(e.path().string());
    EXPECT_EQ(trace.find('\x1b'), std::string::npos) << e.path();
    EXPECT_EQ(trace.find('\r'), std::string::npos) << e.path();
  }
  // The JSON report shows the value the invariant saw, as JSON writes it.
  const auto report = read_json(dir.file("r.json"));
  bool has_note = false;
  for (const auto& f : report["findings"]) {
    has_note = has_note ||
               f["message"].get<std::string>().find(
                   "'/note' is \"\\u001b[31mred\\u001b[0m\\r\\n[1] critical") != std::string::npos;
  }
  EXPECT_TRUE(has_note) << report.dump(2);
}

TEST(HostileModelFile, AnAliasBombIsRefusedAtOnce) {
  ScratchDir dir("prowl-bomb");
  const std::string bomb = std::string(PROWL_SOURCE_DIR) + "/tests/cli/models/alias_bomb.yaml";
  const auto start = std::chrono::steady_clock::now();
  ProcessRun run({kProwl, "explore", bomb}, dir.path(), dir.path());
  EXPECT_EQ(run.code(10s), kExitUsage);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_NE(run.err().find("alias_bomb.yaml:"), std::string::npos) << run.err();
  EXPECT_NE(run.err().find("aliases expand the document to more than 100000 nodes"),
            std::string::npos)
      << run.err();
}

}  // namespace
}  // namespace prowl::testing
