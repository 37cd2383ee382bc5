// The shop_api executable as a black box: started as a child process on a loopback port chosen at
// run time, driven over real HTTP with cpp-httplib's client, stopped with SIGTERM. Every wait is
// bounded; a child still running at the end of a test is killed.
#ifdef PROWL_HAVE_SHOP_API

#include <arpa/inet.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "unit/shop_api/shop_test_support.hpp"

namespace shop::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// A loopback port that was free a moment ago.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// shop_api run as a child with its stdout and stderr captured through pipes.
class ShopProcess {
 public:
  explicit ShopProcess(const std::vector<std::string>& args) {
    int out[2];
    int err[2];
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    std::vector<std::string> argv_storage = {SHOP_API_BINARY};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    out_ = out[0];
    err_ = err[0];
  }
  ~ShopProcess() {
    if (pid_ > 0 && !exit_code_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(out_);
    ::close(err_);
  }
  ShopProcess(const ShopProcess&) = delete;
  ShopProcess& operator=(const ShopProcess&) = delete;

  // Reads stdout until a line starting with `prefix` has arrived; returns the rest of that line.
  std::optional<std::string> wait_for_line(const std::string& prefix,
                                           std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
      std::size_t start = 0;
      for (std::size_t nl; (nl = stdout_.find('\n', start)) != std::string::npos; start = nl + 1) {
        const std::string line = stdout_.substr(start, nl - start);
        if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || !read_some(out_, stdout_, left)) return std::nullopt;
    }
  }
  // Waits for the child to exit; its exit code, or 128 + signal, or nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    while (!exit_code_ && Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      std::this_thread::sleep_for(5ms);
    }
    if (exit_code_) {
      while (read_some(out_, stdout_, 0ms)) {
      }
      while (read_some(err_, stderr_, 0ms)) {
      }
    }
    return exit_code_;
  }
  void signal(int sig) { ::kill(pid_, sig); }
  const std::string& out() const { return stdout_; }
  const std::string& err() const { return stderr_; }

 private:
  // Appends what `fd` has within `timeout`; false at end of file or when nothing came.
  static bool read_some(int fd, std::string& into, std::chrono::milliseconds timeout) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::string stdout_;
  std::string stderr_;
  std::optional<int> exit_code_;
};

json body_of(const httplib::Result& result) {
  if (!result) return {{"transport_error", httplib::to_string(result.error())}};
  return json::parse(result->body, nullptr, false);
}

// Starts shop_api on `db` and a port chosen now; fails the test unless it reports listening.
struct RunningShop {
  explicit RunningShop(const std::string& db)
      : port(free_port()),
        process({"--port", std::to_string(port), "--db", db}),
        client("127.0.0.1", port) {
    const auto listening = process.wait_for_line("shop_api listening on ");
    EXPECT_EQ(listening, "127.0.0.1:" + std::to_string(port))
        << "stdout: " << process.out() << "\nstderr: " << process.err();
    client.set_connection_timeout(5);
    client.set_read_timeout(5);
    client.set_keep_alive(true);
  }
  httplib::Result post(const std::string& path, const std::string& body = "") {
    return client.Post(path.c_str(), body, "application/json");
  }

  int port;
  ShopProcess process;
  httplib::Client client;
};

// Seeded bug 1 over HTTP: create, pay, refund, refund; the checks that find it.
void reproduce_double_refund(RunningShop& shop) {
  auto health = shop.client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(body_of(health), (json{{"status", "ok"}}));
  EXPECT_EQ(health->get_header_value("Content-Type"), "application/json");

  auto created = shop.post("/orders", R"({"product_id": 1, "qty": 1})");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);
  const json order = body_of(created);
  ASSERT_EQ(order["id"], 1) << order;
  EXPECT_EQ(shop.post("/orders/1/pay")->status, 200);
  EXPECT_EQ(shop.post("/orders/1/refund")->status, 200);
  EXPECT_EQ(body_of(shop.client.Get("/stats"))["audit"]["over_refunded_orders"], 0);
  auto second = shop.post("/orders/1/refund");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  const json after = body_of(shop.client.Get("/orders/1"));
  EXPECT_EQ(after["paid_cents"], 1200);
  EXPECT_EQ(after["refunded_cents"], 2400);
  EXPECT_EQ(body_of(shop.client.Get("/stats"))["audit"]["over_refunded_orders"], 1);
}

TEST(ShopApiServer, ServesTheApiFindsABugOverHttpAndStopsOnSigterm) {
  TempDir dir;
  const std::string path = dir.file("shop.db");
  RunningShop shop("sqlite:" + path);
  reproduce_double_refund(shop);

  auto conflict = shop.post("/orders/1/pay");
  ASSERT_TRUE(conflict);
  EXPECT_EQ(conflict->status, 409);
  EXPECT_EQ(body_of(conflict),
            (json{{"error", "order 1 is refunded; only a pending order can be paid"},
                  {"status", "refunded"}}));
  auto bad = shop.post("/orders", "{nope");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(body_of(bad), (json{{"error", "the body is not valid JSON"}}));
  auto missing = shop.client.Get("/orders/77");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(shop.client.Delete("/orders/1")->status, 405);

  // The documented SQL check, through a connection of our own on the service's file. No busy
  // timeout: the service holds no transaction between requests.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::vector<std::string> rows;
  ASSERT_EQ(sqlite3_exec(
                db, std::string(check_sql("refunds_within_payments")).c_str(),
                [](void* out, int n, char** values, char**) {
                  std::string row;
                  for (int i = 0; i < n; ++i) row += (i ? "|" : "") + std::string(values[i]);
                  static_cast<std::vector<std::string>*>(out)->push_back(row);
                  return 0;
                },
                &rows, nullptr),
            SQLITE_OK);
  EXPECT_EQ(rows, std::vector<std::string>{"1|1200|2400"});
  EXPECT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE; UPDATE products SET stock = 9 WHERE id = 2; COMMIT",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  EXPECT_EQ(body_of(shop.client.Get("/products/2"))["stock"], 9);

  shop.process.signal(SIGTERM);
  EXPECT_EQ(shop.process.wait(), 0) << shop.process.err();
  EXPECT_THAT(shop.process.out(), HasSubstr("shop_api stopped"));
}

TEST(ShopApiServer, StopsOnSigintWithAKeepAliveConnectionOpen) {
  TempDir dir;
  RunningShop shop("sqlite:" + dir.file("shop.db"));
  ASSERT_EQ(shop.client.Get("/health")->status, 200);  // the connection stays open
  const auto start = Clock::now();
  shop.process.signal(SIGINT);
  EXPECT_EQ(shop.process.wait(), 0) << shop.process.err();
  EXPECT_LT(Clock::now() - start, 1s);  // idle keep-alive connections are not waited for
}

TEST(ShopApiServer, PortZeroPicksAPortAndPrintsIt) {
  TempDir dir;
  ShopProcess process({"--port", "0", "--db", "sqlite:" + dir.file("shop.db")});
  const auto listening = process.wait_for_line("shop_api listening on 127.0.0.1:");
  ASSERT_TRUE(listening) << process.err();
  httplib::Client client("127.0.0.1", std::stoi(*listening));
  auto health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  process.signal(SIGTERM);
  EXPECT_EQ(process.wait(), 0);
}

TEST(ShopApiServer, BadFlagsPrintUsageAndExit2) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"--port", "8080"},
      {"--db", "sqlite:/tmp/x.db"},
      {"--port", "http", "--db", "sqlite:/tmp/x.db"},
      {"--port", "70000", "--db", "sqlite:/tmp/x.db"},
      {"--port", "1", "--db", "mysql:shop"},
      {"--port", "1", "--db", "sqlite:"},
      {"--port", "1", "--db", "sqlite:/tmp/x.db", "--host", "0.0.0.0"},
      {"--port", "1", "--db", "sqlite:/tmp/x.db", "--verbose"},
      {"--port"},
  };
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    ShopProcess process(args);
    EXPECT_EQ(process.wait(), 2);
    EXPECT_THAT(process.err(), HasSubstr("usage: shop_api --port N"));
  }
}

TEST(ShopApiServer, HelpPrintsUsageAndExits0) {
  ShopProcess process({"--help"});
  EXPECT_EQ(process.wait(), 0);
  EXPECT_THAT(process.out(), HasSubstr("usage: shop_api"));
}

TEST(ShopApiServer, AnUnreachableDatabaseExits3) {
  TempDir dir;
  const int closed_port = free_port();
  const std::vector<std::vector<std::string>> cases = {
      {"--db", "sqlite:" + dir.file("no/such/dir/shop.db")},
      {"--db",
       "postgres:host=127.0.0.1 port=" + std::to_string(closed_port) + " connect_timeout=3"},
  };
  for (auto args : cases) {
    SCOPED_TRACE(args[1]);
    args.insert(args.end(), {"--port", std::to_string(free_port())});
    ShopProcess process(args);
    EXPECT_EQ(process.wait(), 3);
    EXPECT_THAT(process.err(), HasSubstr("shop_api: cannot open the database:"));
  }
}

TEST(ShopApiServer, APortInUseExits3) {
  TempDir dir;
  RunningShop first("sqlite:" + dir.file("a.db"));
  ShopProcess second({"--port", std::to_string(first.port), "--db", "sqlite:" + dir.file("b.db")});
  EXPECT_EQ(second.wait(), 3);
  EXPECT_THAT(second.err(), HasSubstr("cannot listen on 127.0.0.1:"));
}

TEST(ShopApiServer, ServesFromPostgres) {
  SHOP_REQUIRE_PG_DSN(admin);
  PgTestDatabase pg(admin);
  ASSERT_TRUE(pg.created());
  {
    RunningShop shop("postgres:" + pg.dsn());
    reproduce_double_refund(shop);
    shop.process.signal(SIGTERM);
    EXPECT_EQ(shop.process.wait(), 0) << shop.process.err();
  }
  auto db = PostgresDb::connect(pg.dsn());
  ASSERT_TRUE(db);
  EXPECT_EQ(query(**db, check_sql("refunds_within_payments")),
            std::vector<std::string>{"1|1200|2400"});
}

}  // namespace
}  // namespace shop::testing

#endif  // PROWL_HAVE_SHOP_API
