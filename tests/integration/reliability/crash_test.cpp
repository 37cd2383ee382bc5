// The shop service dies in the middle of a run (killed from outside, as the OOM killer or a
// crash would): that is one service_crashed finding, with the signal that ended it, for the step
// that met the dead service (or, killed while idle, the step before the restore that found it
// dead); no later step is blamed, the service is restarted, and the run goes on. A replay cannot
// kill the service again, so the finding is unconfirmed, and its failing step shows what the
// exploration saw — never the replay's successful answer.
#include <signal.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "reliability.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;

TEST(ServiceKilledMidRun, IsExactlyOneServiceCrashedFinding) {
  ShopScratch s;
  const std::string out = s.dir.file("run");
  auto run =
      s.start({"explore", kSqliteModel, "--seed", "3", "--report", "json:" + out + "/r.json"}, out);
  s.wait_until_exploring(*run, 400ms);
  const std::vector<pid_t> services = processes_with(s.db);
  ASSERT_EQ(services.size(), 1u) << run->err();
  ::kill(services[0], SIGKILL);
  std::this_thread::sleep_for(600ms);  // the run goes on with a new service
  const std::vector<pid_t> restarted = processes_with(s.db);
  ASSERT_EQ(restarted.size(), 1u);
  EXPECT_NE(restarted[0], services[0]);
  run->signal(SIGINT);
  EXPECT_EQ(run->code(30s), signal_exit_code(SIGINT)) << run->err();

  const auto report = read_json(out + "/r.json");
  std::vector<nlohmann::json> crashes;
  for (const auto& f : report["findings"]) {
    EXPECT_NE(f["kind"], "action_error") << f.dump(2);
    if (f["kind"] == "service_crashed") crashes.push_back(f);
  }
  ASSERT_EQ(crashes.size(), 1u) << report["findings"].dump(2);
  const auto& crash = crashes[0];
  EXPECT_EQ(crash["name"], "service");
  EXPECT_EQ(crash["severity"], "critical");
  EXPECT_EQ(crash["confirmed"], false);
  EXPECT_EQ(crash["unconfirmed"], "it did not happen when replayed from the initial state");
  // Killed during a step, that step met the dead service; killed while idle between steps, the
  // restore before the next step found it dead and restarted it, and the finding is the last
  // step's before that.
  const std::string message = crash["message"];
  const std::string action = crash["action"];
  const auto& last = crash["steps"].back();
  if (message.rfind("service 'service' died during '" + action + "': ", 0) == 0) {
    // Its request got no answer, or an answer just before the service died.
    const std::string detail = last["detail"];
    if (last["outcome"] == "error") {
      EXPECT_NE(detail.find("-> no response"), std::string::npos) << last.dump();
    } else {
      EXPECT_TRUE(last["outcome"] == "ok" || last["outcome"] == "rejected") << last.dump();
      EXPECT_EQ(detail.find("-> no response"), std::string::npos) << last.dump();
    }
  } else {
    EXPECT_EQ(message.rfind("service 'service' died after '" + action + "', between steps: ", 0),
              0u)
        << message;
    EXPECT_NE(last["outcome"], "error");
  }
  EXPECT_NE(message.find(": was killed by signal 9 (Killed)"), std::string::npos) << message;
  EXPECT_TRUE(processes_with(s.db).empty());
}

}  // namespace
}  // namespace prowl::testing
