// HttpClient against real servers on 127.0.0.1: a cpp-httplib server on a port bound at run time
// (started in a thread, always stopped), and raw POSIX sockets for the failure cases (a port that
// refuses connections, a server that drops them). Every test is bounded in time.
#include "prowl/systems/http_client.hpp"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace prowl {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

using Clock = std::chrono::steady_clock;

// A cpp-httplib server on 127.0.0.1:<any port>, listening in a background thread from the
// constructor to the destructor. Records the remote port of every request.
class TestServer {
 public:
  TestServer() {
    server_.set_keep_alive_max_count(100);
    server_.Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
      std::string body;
      for (const auto& [name, value] : req.params) body += name + "=" + value + ";";
      res.set_content(body, "text/plain");
    });
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.body, req.get_header_value("Content-Type"));
      res.set_header("X-Accept", req.get_header_value("Accept"));
    });
    server_.Get("/auth", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("token=" + req.get_header_value("Authorization"), "text/plain");
    });
    server_.Get("/headers", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("X-Custom-Header", "Some Value");
      res.set_content("ok", "text/plain");
    });
    server_.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content("no such thing", "text/plain");
    });
    server_.Get("/broken", [](const httplib::Request&, httplib::Response& res) {
      res.status = 500;
      res.set_content("boom", "text/plain");
    });
    server_.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(500ms);
      res.set_content("late", "text/plain");
    });
    server_.Get("/port", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        remote_ports_.push_back(req.remote_port);
      }
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) {
      ADD_FAILURE() << "cannot bind 127.0.0.1";
      return;
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    const auto deadline = Clock::now() + 5s;
    while (!server_.is_running() && Clock::now() < deadline) std::this_thread::sleep_for(1ms);
    EXPECT_TRUE(server_.is_running());
  }
  ~TestServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<int> remote_ports() {
    std::lock_guard<std::mutex> lock(mutex_);
    return remote_ports_;
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<int> remote_ports_;
};

// A loopback TCP socket bound to a port chosen by the kernel. Without listen(), connecting to it
// is refused, and the port stays reserved so nobody else can take it during the test.
class RawSocket {
 public:
  RawSocket() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }
  ~RawSocket() { ::close(fd_); }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  int fd() const { return fd_; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Accepts one connection, optionally waits for the request's blank line, writes `answer` and
// closes the connection. Gives up after 5 s without a client.
class DroppingServer {
 public:
  DroppingServer(bool read_request, std::string answer) {
    EXPECT_EQ(::listen(socket_.fd(), 1), 0);
    thread_ = std::thread([this, read_request, answer = std::move(answer)] {
      pollfd p{socket_.fd(), POLLIN, 0};
      if (::poll(&p, 1, 5000) != 1) return;
      const int conn = ::accept(socket_.fd(), nullptr, nullptr);
      if (conn < 0) return;
      if (read_request) {
        std::string request;
        char buf[1024];
        pollfd c{conn, POLLIN, 0};
        while (request.find("\r\n\r\n") == std::string::npos && ::poll(&c, 1, 5000) == 1) {
          const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
          if (n <= 0) break;
          request.append(buf, static_cast<std::size_t>(n));
        }
      }
      if (!answer.empty()) {
        EXPECT_EQ(::send(conn, answer.data(), answer.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(answer.size()));
      }
      ::close(conn);
    });
  }
  ~DroppingServer() { thread_.join(); }
  std::string url() const { return socket_.url(); }

 private:
  RawSocket socket_;
  std::thread thread_;
};

HttpClient client_for(const std::string& base_url, std::chrono::milliseconds timeout = 5s) {
  HttpClientOptions o;
  o.base_url = base_url;
  o.timeout = timeout;
  return HttpClient(o);
}

HttpRequest get(std::string path) {
  HttpRequest r;
  r.path = std::move(path);
  return r;
}

TEST(HttpClient, SendsQueryParametersUrlEncoded) {
  TestServer server;
  HttpClient client = client_for(server.url());
  HttpRequest r = get("/echo");
  r.query = {{"q", "a b&c"}, {"path", "1/2"}, {"utf8", "é"}};
  auto reply = client.request(r);
  ASSERT_TRUE(reply.is_ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->url, server.url() + "/echo?q=a%20b%26c&path=1%2F2&utf8=%C3%A9");
  // httplib keeps params in a multimap, sorted by name.
  EXPECT_EQ(reply->body, "path=1/2;q=a b&c;utf8=é;");
  EXPECT_EQ(client.last_failure(), HttpFailure::kNone);
  EXPECT_GE(reply->elapsed_ms, 0.0);
}

TEST(HttpClient, JoinsTheBaseUrlPrefixAndThePath) {
  HttpClient client = client_for("http://127.0.0.1:9/api/");
  EXPECT_EQ(client.url_for(get("/items")), "http://127.0.0.1:9/api/items");
  EXPECT_EQ(client.url_for(get("items")), "http://127.0.0.1:9/api/items");
  HttpClient bare = client_for("http://127.0.0.1:9");
  EXPECT_EQ(bare.url_for(get("items")), "http://127.0.0.1:9/items");
  HttpRequest with_query = get("/items?sort=id");
  with_query.query = {{"page", "2"}};
  EXPECT_EQ(bare.url_for(with_query), "http://127.0.0.1:9/items?sort=id&page=2");
}

TEST(HttpClient, PostsAJsonBodyWithJsonHeaders) {
  TestServer server;
  HttpClient client = client_for(server.url());
  HttpRequest r;
  r.method = "POST";
  r.path = "/echo";
  r.body = R"({"name":"pen","price":3})";
  r.json = true;
  auto reply = client.request(r);
  ASSERT_TRUE(reply.is_ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, R"({"name":"pen","price":3})");
  EXPECT_EQ(reply->header("Content-Type"), "application/json");
  EXPECT_EQ(reply->header("x-accept"), "application/json");
}

TEST(HttpClient, PassesErrorStatusesThrough) {
  TestServer server;
  HttpClient client = client_for(server.url());
  auto missing = client.request(get("/missing"));
  ASSERT_TRUE(missing.is_ok()) << missing.status().message();
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, "no such thing");
  auto broken = client.request(get("/broken"));
  ASSERT_TRUE(broken.is_ok()) << broken.status().message();
  EXPECT_EQ(broken->status, 500);
  EXPECT_EQ(broken->body, "boom");
  EXPECT_EQ(client.last_failure(), HttpFailure::kNone);
}

TEST(HttpClient, LowercasesResponseHeaderNames) {
  TestServer server;
  HttpClient client = client_for(server.url());
  auto reply = client.request(get("/headers"));
  ASSERT_TRUE(reply.is_ok()) << reply.status().message();
  for (const auto& [name, value] : reply->headers) {
    EXPECT_EQ(name, [&] {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return lower;
    }()) << name;
  }
  EXPECT_EQ(reply->header("x-custom-header"), "Some Value");
  EXPECT_EQ(reply->header("X-CUSTOM-HEADER"), "Some Value");
  EXPECT_EQ(reply->header("content-length"), "2");
  EXPECT_EQ(reply->header("x-not-there"), std::nullopt);
  bool found = false;
  for (const auto& [name, value] : reply->headers) found |= name == "x-custom-header";
  EXPECT_TRUE(found);
}

TEST(HttpClient, ReusesOneConnectionForConsecutiveRequests) {
  TestServer server;
  HttpClient client = client_for(server.url());
  for (int i = 0; i < 8; ++i) {
    auto reply = client.request(get("/port"));
    ASSERT_TRUE(reply.is_ok()) << reply.status().message();
    ASSERT_EQ(reply->status, 200);
  }
  const std::vector<int> ports = server.remote_ports();
  ASSERT_EQ(ports.size(), 8u);
  EXPECT_EQ(std::set<int>(ports.begin(), ports.end()).size(), 1u);
  EXPECT_GT(ports.front(), 0);
}

TEST(HttpClient, KeepsTheConnectionAfterAMove) {
  TestServer server;
  HttpClient first = client_for(server.url());
  ASSERT_TRUE(first.request(get("/port")).is_ok());
  HttpClient moved = std::move(first);
  ASSERT_TRUE(moved.request(get("/port")).is_ok());
  const std::vector<int> ports = server.remote_ports();
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0], ports[1]);
}

TEST(HttpClient, FailsWithATimeoutWhenTheServerIsTooSlow) {
  TestServer server;
  HttpClient client = client_for(server.url(), 100ms);
  const auto start = Clock::now();
  auto reply = client.request(get("/slow"));
  const auto took = Clock::now() - start;
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kEnvironment);
  EXPECT_THAT(reply.status().message(), HasSubstr("GET " + server.url() + "/slow: "));
  EXPECT_THAT(reply.status().message(),
              HasSubstr("timed out after 100 ms waiting for the response"));
  EXPECT_THAT(reply.status().message(), HasSubstr("Timeout was reached"));  // curl_easy_strerror
  EXPECT_EQ(client.last_failure(), HttpFailure::kTimeout);
  EXPECT_LT(took, 400ms);

  // The per-request timeout overrides the client's, and the client works after a timeout.
  HttpRequest patient = get("/slow");
  patient.timeout = 3s;
  auto late = client.request(patient);
  ASSERT_TRUE(late.is_ok()) << late.status().message();
  EXPECT_EQ(late->body, "late");
  EXPECT_EQ(client.last_failure(), HttpFailure::kNone);

  // Again on the connection kept alive from the last request.
  auto again = client.request(get("/slow"));
  ASSERT_FALSE(again.is_ok());
  EXPECT_THAT(again.status().message(),
              HasSubstr("timed out after 100 ms waiting for the response"));
}

TEST(HttpClient, ReportsARefusedConnectionWithTheUrl) {
  RawSocket nothing_listens;
  HttpClient client = client_for(nothing_listens.url());
  auto reply = client.request(get("/items"));
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kEnvironment);
  EXPECT_THAT(reply.status().message(),
              HasSubstr("GET " + nothing_listens.url() +
                        "/items: connection refused (nothing listens there): "
                        "Couldn't connect to server ("));
  EXPECT_EQ(client.last_failure(), HttpFailure::kRefused);
}

TEST(HttpClient, ReportsAConnectionClosedWithoutAnAnswer) {
  DroppingServer server(/*read_request=*/true, "");
  HttpClient client = client_for(server.url());
  auto reply = client.request(get("/items"));
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(reply.status().message(),
            "GET " + server.url() +
                "/items: connection dropped: the server closed it without answering: "
                "Server returned nothing (no headers, no data) (Empty reply from server)");
  EXPECT_EQ(client.last_failure(), HttpFailure::kDropped);
}

TEST(HttpClient, ReportsAConnectionClosedRightAfterAccept) {
  DroppingServer server(/*read_request=*/false, "");
  HttpClient client = client_for(server.url());
  auto reply = client.request(get("/items"));
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kEnvironment);
  // Closed before or after the request arrived: an empty reply or a reset, both "dropped".
  EXPECT_THAT(reply.status().message(),
              HasSubstr("GET " + server.url() + "/items: connection dropped"));
  EXPECT_EQ(client.last_failure(), HttpFailure::kDropped);
}

TEST(HttpClient, ReportsAResponseCutShort) {
  DroppingServer server(/*read_request=*/true,
                        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part");
  HttpClient client = client_for(server.url());
  auto reply = client.request(get("/items"));
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kEnvironment);
  EXPECT_THAT(reply.status().message(),
              HasSubstr("GET " + server.url() +
                        "/items: connection dropped before the whole response arrived: "));
  EXPECT_EQ(client.last_failure(), HttpFailure::kDropped);
}

// Sets an environment variable for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST(HttpClient, SendsSecretHeadersAndRedactsThem) {
  ScopedEnv token("PROWL_TEST_HTTP_TOKEN", "Bearer s3cret-t0ken");
  TestServer server;
  HttpClientOptions o;
  o.base_url = server.url();
  o.secret_headers = {{"Authorization", "PROWL_TEST_HTTP_TOKEN"}};
  auto client = HttpClient::create(o);
  ASSERT_TRUE(client.is_ok()) << client.status().message();

  HttpRequest r = get("/auth");
  r.query = {{"echo", "s3cret-t0ken"}};
  auto reply = client->request(r);
  ASSERT_TRUE(reply.is_ok()) << reply.status().message();
  EXPECT_EQ(reply->body, "token=Bearer s3cret-t0ken");

  EXPECT_EQ(client->redact("Authorization: Bearer s3cret-t0ken, again s3cret-t0ken"),
            "Authorization: [REDACTED], again [REDACTED]");
  EXPECT_EQ(client->describe(r, &*reply, 100), "GET " + server.url() +
                                                   "/auth?echo=[REDACTED]\n"
                                                   "request body: (empty)\n"
                                                   "status: 200\n"
                                                   "response body: token=[REDACTED]");
}

TEST(HttpClient, RedactsSecretsInTransportFailures) {
  ScopedEnv token("PROWL_TEST_HTTP_TOKEN", "tok123");
  RawSocket nothing_listens;
  HttpClientOptions o;
  o.base_url = nothing_listens.url();
  o.secret_headers = {{"X-Api-Key", "PROWL_TEST_HTTP_TOKEN"}};
  auto client = HttpClient::create(o);
  ASSERT_TRUE(client.is_ok()) << client.status().message();
  auto reply = client->request(get("/items/tok123"));
  ASSERT_FALSE(reply.is_ok());
  EXPECT_THAT(reply.status().message(), HasSubstr("/items/[REDACTED]: connection refused"));
  EXPECT_THAT(reply.status().message(), Not(HasSubstr("tok123")));
}

TEST(HttpClient, RejectsAMissingSecretVariable) {
  ::unsetenv("PROWL_TEST_HTTP_UNSET");
  HttpClientOptions o;
  o.base_url = "http://127.0.0.1:9";
  o.secret_headers = {{"Authorization", "PROWL_TEST_HTTP_UNSET"}};
  auto client = HttpClient::create(o);
  ASSERT_FALSE(client.is_ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(client.status().message(),
            "secret header 'Authorization': environment variable PROWL_TEST_HTTP_UNSET is not set");
  EXPECT_THROW(HttpClient{o}, LogicError);

  ScopedEnv empty("PROWL_TEST_HTTP_UNSET", "");
  auto with_empty = HttpClient::create(o);
  ASSERT_FALSE(with_empty.is_ok());
  EXPECT_EQ(with_empty.status().message(),
            "secret header 'Authorization': environment variable PROWL_TEST_HTTP_UNSET is empty");
}

TEST(HttpClient, RejectsABaseUrlThatIsNotHttp) {
  HttpClientOptions o;
  o.base_url = "127.0.0.1:8080";
  auto client = HttpClient::create(o);
  ASSERT_FALSE(client.is_ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(client.status().message(),
            "HTTP base URL '127.0.0.1:8080': expected http://host[:port][/prefix] or https://...");
  o.base_url = "http://127.0.0.1:8080/api?x=1";
  EXPECT_EQ(HttpClient::create(o).status().code(), StatusCode::kInvalid);
}

TEST(HttpClient, DescribesAStepWithTruncatedBodies) {
  HttpClient client = client_for("http://127.0.0.1:8080");
  HttpRequest r;
  r.method = "POST";
  r.path = "/items";
  r.query = {{"page", "2"}};
  r.body = R"({"name":"pen"})";
  HttpResponse reply;
  reply.status = 201;
  reply.body = R"({"id":7,"name":"pen","price":3})";
  EXPECT_EQ(client.describe(r, &reply, 12),
            "POST http://127.0.0.1:8080/items?page=2\n"
            "request body: {\"name\":\"pen... (2 more bytes)\n"
            "status: 201\n"
            "response body: {\"id\":7,\"nam... (19 more bytes)");
  EXPECT_EQ(client.describe(r, &reply, 1000),
            "POST http://127.0.0.1:8080/items?page=2\n"
            "request body: {\"name\":\"pen\"}\n"
            "status: 201\n"
            "response body: {\"id\":7,\"name\":\"pen\",\"price\":3}");
  EXPECT_EQ(client.describe(get("/items"), nullptr, 12),
            "GET http://127.0.0.1:8080/items\n"
            "request body: (empty)\n"
            "status: (no response)");
  // A cut never splits a UTF-8 character: "é" is two bytes.
  reply.body = "aé";
  EXPECT_EQ(client.describe(get("/x"), &reply, 2),
            "GET http://127.0.0.1:8080/x\n"
            "request body: (empty)\n"
            "status: 201\n"
            "response body: a... (2 more bytes)");
}

}  // namespace
}  // namespace prowl
