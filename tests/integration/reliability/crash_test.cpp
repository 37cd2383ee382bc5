// The shop service dies in the middle of a run (killed from outside, as the OOM killer or a
// crash would): that is one service_crashed finding, for the step that met the dead service, with
// the signal that ended it; no later step is blamed, the service is restarted, and the run goes
// on. A replay cannot kill the service again, so the finding is unconfirmed, and its failing step
// shows what the exploration saw — never the replay's successful answer.
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
  const std::string model = kModels + "/shop-long.yaml";
  const std::string out = s.dir.file("run");
  auto run = s.start({"explore", model, "--seed", "3", "--report", "json:" + out + "/r.json"}, out);
  std::vector<pid_t> services;
  for (int i = 0; i < 500 && services.empty(); ++i) {
    std::this_thread::sleep_for(10ms);
    services = processes_with(s.db);
  }
  ASSERT_EQ(services.size(), 1u) << run->err();
  std::this_thread::sleep_for(400ms);
  ::kill(services[0], SIGKILL);
  std::this_thread::sleep_for(600ms);  // the run goes on with a new service
  const std::vector<pid_t> restarted = processes_with(s.db);
  ASSERT_EQ(restarted.size(), 1u);
  EXPECT_NE(restarted[0], services[0]);
  run->signal(SIGINT);
  EXPECT_EQ(run->code(30s), 130) << run->err();

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
  const std::string message = crash["message"];
  EXPECT_EQ(message.rfind("service 'service' died during '" + crash["action"].get<std::string>() +
                              "': was killed by signal 9",
                          0),
            0u)
      << message;
  const auto& last = crash["steps"].back();
  EXPECT_EQ(last["outcome"], "error");
  EXPECT_NE(last["detail"].get<std::string>().find("-> no response"), std::string::npos)
      << last["detail"];
  EXPECT_TRUE(processes_with(s.db).empty());
}

}  // namespace
}  // namespace prowl::testing
