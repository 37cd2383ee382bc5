// A crowded target: another prowl run on the same database, `prowl recover` while a run holds it,
// and a developer's own copy of the service already listening on the port a model fixes. prowl
// stops with exit 3 and a message naming the other process, before it starts its service and
// without changing anything; the run that was there first goes on and ends as it would have.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "reliability.hpp"
#include "support/pg_test_env.hpp"

namespace prowl::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The service started through services/recording_shop.sh, which writes a line to `starts` each
// time prowl starts it.
std::vector<std::pair<std::string, std::string>> recorded_shop(const std::string& starts) {
  return {{"SHOP_API", kServices + "/recording_shop.sh"},
          {"SHOP_API_REAL", kShopApi},
          {"SHOP_STARTS", starts}};
}

std::size_t lines_in(const std::string& path) {
  const std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

const std::string kHeldSuffix = "; wait for it to end, or stop it\n";

// Run 1 on the shop's SQLite file, exploring; run 2 on the same file is refused with exit 3,
// naming run 1, before it starts its service; run 1's lock and recovery record stay as they
// were, and run 1 ends on SIGINT with the file as it was before either run.
TEST(SqliteSecondRun, IsRefusedNamingTheFirstAndChangesNothing) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  const std::string out1 = s.dir.file("run1");
  auto run1 = s.start_with({"explore", kSqliteModel, "--report", "json:" + out1 + "/r.json"}, out1,
                           recorded_shop(s.dir.file("starts1")));
  ASSERT_TRUE(wait_for(
      [&] { return (!s.services().empty() && fs::exists(s.recovery_record())) || run1->wait(0ms); },
      10s));
  std::this_thread::sleep_for(200ms);
  ASSERT_FALSE(run1->wait(0ms)) << run1->err();
  const std::string lock = read_file(s.lock_file());
  const std::string record = read_file(s.recovery_record());
  const std::string holder = "prowl pid " + std::to_string(run1->pid()) + " since ";
  ASSERT_EQ(lock.rfind(holder, 0), 0u) << lock;
  const std::string since = lock.substr(holder.size(), lock.size() - holder.size() - 1);

  const std::string out2 = s.dir.file("run2");
  const std::string starts2 = s.dir.file("starts2");
  auto run2 = s.start_with({"explore", kSqliteModel, "--report", "json:" + out2 + "/r.json"}, out2,
                           recorded_shop(starts2));
  EXPECT_EQ(run2->code(30s), kExitEnvironment) << run2->err();
  const std::string message = "sqlite '" + s.db + "' is in use by another prowl run (pid " +
                              std::to_string(run1->pid()) + ", since " + since + ")" +
                              "; wait for it to end, or stop it";
  EXPECT_EQ(run2->err(), "prowl explore: " + message + "\n");
  const auto report = read_json(out2 + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ(report["error"], message);
  EXPECT_EQ(report["stats"]["steps"], 0);
  EXPECT_FALSE(fs::exists(starts2)) << "run 2 started its service: " << read_file(starts2);

  EXPECT_FALSE(run1->wait(0ms)) << "run 1 ended: " << run1->err();
  EXPECT_EQ(read_file(s.lock_file()), lock);
  EXPECT_EQ(read_file(s.recovery_record()), record);
  run1->signal(SIGINT);
  EXPECT_EQ(run1->code(30s), signal_exit_code(SIGINT)) << run1->err();
  EXPECT_EQ(read_json(out1 + "/r.json")["termination"], "interrupted");
  EXPECT_EQ(lines_in(s.dir.file("starts1")), 1u) << "run 1 started its service once";
  EXPECT_EQ(sqlite_dump(s.db), before);
  EXPECT_FALSE(fs::exists(s.recovery_record()));
  EXPECT_FALSE(fs::exists(s.lock_file()));
  EXPECT_TRUE(s.services().empty());
}

// `prowl recover` while a run holds the database must not put back anything under it.
TEST(SqliteRecoverDuringARun, IsRefusedAndLeavesTheRunAndItsRecordAlone) {
  ShopScratch s;
  s.create_db();
  const std::string before = sqlite_dump(s.db);
  const std::string out1 = s.dir.file("run1");
  auto run1 = s.start({"explore", kSqliteModel}, out1);
  ASSERT_TRUE(wait_for(
      [&] { return (!s.services().empty() && fs::exists(s.recovery_record())) || run1->wait(0ms); },
      10s));
  std::this_thread::sleep_for(200ms);
  ASSERT_FALSE(run1->wait(0ms)) << run1->err();
  const std::string record = read_file(s.recovery_record());

  auto recover = s.start({"recover", kSqliteModel}, s.dir.file("recover"));
  EXPECT_EQ(recover->code(30s), kExitEnvironment) << recover->err();
  EXPECT_EQ(recover->out(), "");
  const std::string err = recover->err();
  EXPECT_EQ(err.rfind("prowl recover: sqlite '" + s.db + "' is in use by another prowl run (pid " +
                          std::to_string(run1->pid()) + ", since ",
                      0),
            0u)
      << err;
  EXPECT_TRUE(ends_with(err, kHeldSuffix)) << err;
  EXPECT_EQ(read_file(s.recovery_record()), record);

  EXPECT_FALSE(run1->wait(0ms)) << run1->err();
  run1->signal(SIGINT);
  EXPECT_EQ(run1->code(30s), signal_exit_code(SIGINT)) << run1->err();
  EXPECT_EQ(sqlite_dump(s.db), before);
  EXPECT_FALSE(fs::exists(s.recovery_record()));
}

class PostgresSecondRun : public PgTest {};

TEST_F(PostgresSecondRun, IsRefusedNamingTheFirstAndChangesNothing) {
  ShopScratch s;
  const std::vector<std::pair<std::string, std::string>> pg = {{"SHOP_PG_DSN", dsn()}};
  s.create_db(kPostgresModel, pg);
  const std::string before = pg_dump(dsn(), /*data_only=*/true);
  const PgConnection conn(dsn());
  auto record_run = [&] {
    return conn.rows("SELECT format, pid, begun, host FROM prowl_recovery.run");
  };
  auto has_record = [&] {
    return conn.one("SELECT count(*) FROM pg_namespace WHERE nspname = 'prowl_recovery'") == "1";
  };
  auto env_of = [&](const std::string& starts) {
    auto env = recorded_shop(starts);
    env.insert(env.end(), pg.begin(), pg.end());
    return env;
  };
  const std::string out1 = s.dir.file("run1");
  auto run1 = s.start_with({"explore", kPostgresModel, "--report", "json:" + out1 + "/r.json"},
                           out1, env_of(s.dir.file("starts1")));
  ASSERT_TRUE(wait_for(
      [&] {
        return (!processes_with("postgres:" + dsn()).empty() && has_record()) || run1->wait(0ms);
      },
      10s));
  std::this_thread::sleep_for(300ms);
  ASSERT_FALSE(run1->wait(0ms)) << run1->err();
  const auto record = record_run();
  ASSERT_EQ(record.size(), 1u);
  // Run 1's guard session names it.
  const std::string holder = conn.one(
      "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'prowl pid " +
      std::to_string(run1->pid()) + " since %'");

  const std::string out2 = s.dir.file("run2");
  const std::string starts2 = s.dir.file("starts2");
  auto run2 = s.start_with({"explore", kPostgresModel, "--report", "json:" + out2 + "/r.json"},
                           out2, env_of(starts2));
  EXPECT_EQ(run2->code(30s), kExitEnvironment) << run2->err();
  const std::string err = run2->err();
  const std::string held = "' is in use by another prowl run (pid " + std::to_string(run1->pid()) +
                           ", since " + holder.substr(holder.find(" since ") + 7) + ")" +
                           kHeldSuffix;
  EXPECT_EQ(err.rfind("prowl explore: postgres '", 0), 0u) << err;
  EXPECT_TRUE(ends_with(err, held)) << err;
  EXPECT_NE(err.find("dbname=" + db_->name()), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  const auto report = read_json(out2 + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ("prowl explore: " + report["error"].get<std::string>() + "\n", err);
  EXPECT_FALSE(fs::exists(starts2)) << "run 2 started its service: " << read_file(starts2);

  EXPECT_FALSE(run1->wait(0ms)) << "run 1 ended: " << run1->err();
  EXPECT_EQ(record_run(), record);
  run1->signal(SIGINT);
  EXPECT_EQ(run1->code(30s), signal_exit_code(SIGINT)) << run1->err();
  EXPECT_EQ(read_json(out1 + "/r.json")["termination"], "interrupted");
  EXPECT_EQ(lines_in(s.dir.file("starts1")), 1u);
  EXPECT_EQ(pg_dump(dsn(), /*data_only=*/true), before);
  EXPECT_FALSE(has_record());
  EXPECT_TRUE(processes_with("postgres:" + dsn()).empty());
}

// The status of GET `path` on 127.0.0.1:`port` (HTTP/1.0, read to the end), or 0 without answer.
int http_status(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t n;
      while ((n = ::read(fd, buffer, sizeof buffer)) > 0) answer.append(buffer, n);
    }
  }
  ::close(fd);
  // "HTTP/1.1 200 OK"
  if (answer.rfind("HTTP/1.", 0) != 0 || answer.size() < 12) return 0;
  return std::stoi(answer.substr(9, 3));
}

// examples/shop_api/shop.yaml with a fixed port.
std::string shop_model_on_port(int port) {
  std::string model = read_file(std::string(PROWL_SOURCE_DIR) + "/examples/shop_api/shop.yaml");
  const std::string health = "    health: /health\n";
  const std::size_t at = model.find(health);
  PROWL_CHECK(at != std::string::npos, "shop.yaml has no health: line");
  model.insert(at, "    port: " + std::to_string(port) + "\n");
  return model;
}

// A developer's running copy of the shop, on its own database, answering the health check on the
// port the model fixes: prowl must not send it a single request.
TEST(PortSquatter, ThatAnswersTheHealthCheckIsRefusedBeforeTheServiceStarts) {
  ShopScratch s;
  const std::string other = s.dir.file("other.db");
  const std::string squat_dir = s.dir.file("squatter");
  fs::create_directories(squat_dir);
  ProcessRun squatter({kShopApi, "--port", "0", "--db", "sqlite:" + other}, squat_dir, squat_dir);
  const std::string listening = "shop_api listening on 127.0.0.1:";
  ASSERT_TRUE(wait_for([&] { return squatter.out().find('\n') != std::string::npos; }, 10s))
      << squatter.err();
  const std::string said = squatter.out();
  ASSERT_EQ(said.rfind(listening, 0), 0u) << said;
  const int port = std::stoi(said.substr(listening.size()));
  ASSERT_EQ(http_status(port, "/health"), 200);
  const std::string other_before = sqlite_dump(other);

  const std::string model = s.dir.file("shop-fixed-port.yaml");
  std::ofstream(model) << shop_model_on_port(port);
  const std::string out = s.dir.file("run");
  const std::string starts = s.dir.file("starts");
  auto run = s.start_with({"explore", model, "--report", "json:" + out + "/r.json"}, out,
                          recorded_shop(starts));
  EXPECT_EQ(run->code(30s), kExitEnvironment) << run->err();
  const std::string err = run->err();
  // "... cannot be started: port P is already in use by pid N (its command line, perhaps cut
  // short with "..."); prowl's requests would go to that process: ..."
  const std::string refusal = "cannot be started: port " + std::to_string(port) +
                              " is already in use by pid " + std::to_string(squatter.pid()) + " (";
  const std::string advice =
      "); prowl's requests would go to that process: stop it, or leave port: out so that prowl "
      "picks a free port\n";
  EXPECT_EQ(err.rfind("prowl explore: service 'service' (`", 0), 0u) << err;
  const std::size_t at = err.find(refusal);
  ASSERT_NE(at, std::string::npos) << err;
  ASSERT_TRUE(ends_with(err, advice)) << err;
  std::string shown =
      err.substr(at + refusal.size(), err.size() - advice.size() - at - refusal.size());
  if (ends_with(shown, "...")) shown.resize(shown.size() - 3);
  const std::string squatter_command = kShopApi + " --port 0 --db sqlite:" + other;
  EXPECT_FALSE(shown.empty());
  EXPECT_EQ(squatter_command.rfind(shown, 0), 0u) << shown;
  const auto report = read_json(out + "/r.json");
  EXPECT_EQ(report["termination"], "error");
  EXPECT_EQ("prowl explore: " + report["error"].get<std::string>() + "\n", err);
  EXPECT_FALSE(fs::exists(starts)) << "prowl started its service: " << read_file(starts);
  EXPECT_FALSE(fs::exists(s.db)) << "nothing created the run's own database";
  EXPECT_FALSE(fs::exists(s.lock_file()));

  // The squatter still runs, still answers, and its data is as it was.
  EXPECT_FALSE(squatter.wait(0ms)) << squatter.err();
  EXPECT_EQ(http_status(port, "/health"), 200);
  EXPECT_EQ(sqlite_dump(other), other_before);
  squatter.signal(SIGTERM);
  EXPECT_EQ(squatter.code(10s), kExitOk) << squatter.err();
}

}  // namespace
}  // namespace prowl::testing
