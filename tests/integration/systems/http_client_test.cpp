// HttpClient against real servers on 127.0.0.1: a cpp-httplib server on a port bound at run time
// (started in a thread, always stopped), and raw POSIX sockets for the failure cases (a port that
// refuses connections, a server that drops them). Every test is bounded in time.
#include "prowl/systems/http_client.hpp"

#include <signal.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "http_client_test_helpers.hpp"
#include "prowl/core/interrupt.hpp"

namespace prowl {
namespace {

using namespace std::chrono_literals;
using testing::client_for;
using testing::Clock;
using testing::connection_pending;
using testing::DroppingServer;
using testing::get;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RawSocket;
using testing::ScopedEnv;
using testing::SilentServer;
using testing::TestServer;

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

// Each test leaves the process's interrupt count as it found it: zero.
class HttpClientInterrupts : public ::testing::Test {
 protected:
  void SetUp() override { clear_interrupts(); }
  void TearDown() override { clear_interrupts(); }
};

TEST_F(HttpClientInterrupts, ASignalEndsARequestThatWaitsForASlowServer) {
  SilentServer server;
  HttpClient client = client_for(server.url(), 20s);
  Clock::time_point signalled;
  std::thread signaller([&] {
    std::this_thread::sleep_for(300ms);
    signalled = Clock::now();
    request_interrupt(SIGINT);
  });
  auto reply = client.request(get("/slow"));
  const auto ended = Clock::now();
  signaller.join();
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(reply.status().message(),
            "GET " + server.url() + "/slow: interrupted by SIGINT during the request");
  EXPECT_EQ(client.last_failure(), HttpFailure::kInterrupted);
  EXPECT_LT(ended - signalled, 150ms);
  EXPECT_THAT(server.head(), ::testing::StartsWith("GET /slow HTTP/1.1\r\n"));
}

TEST_F(HttpClientInterrupts, ARequestBegunAfterASignalIsNotEndedByIt) {
  TestServer server;
  HttpClient client = client_for(server.url());
  request_interrupt(SIGINT);
  auto reply = client.request(get("/slow"));  // 500 ms, longer than a poll of the signal
  ASSERT_TRUE(reply.is_ok()) << reply.status().message();
  EXPECT_EQ(reply->body, "late");
  EXPECT_EQ(client.last_failure(), HttpFailure::kNone);
}

TEST(HttpClient, RefusesAHeaderValueWithALineBreakOrNulAndSendsNothing) {
  RawSocket server;
  ASSERT_EQ(::listen(server.fd(), 4), 0);
  HttpClient client = client_for(server.url());
  const std::pair<std::string, std::string> cases[] = {
      {std::string("a\rX-Injected: 1"), "a carriage return (CR)"},
      {std::string("a\nX-Injected: 1"), "a line feed (LF)"},
      {std::string("a\0b", 3), "a NUL byte"},
  };
  for (const auto& [value, what] : cases) {
    HttpRequest r = get("/items");
    r.headers = {{"X-Note", value}};
    auto reply = client.request(r);
    ASSERT_FALSE(reply.is_ok());
    EXPECT_EQ(reply.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(reply.status().message(),
              "GET " + server.url() + "/items: the value of header 'X-Note' contains " + what +
                  " (a header value cannot hold CR, LF or NUL); nothing was sent");
    EXPECT_EQ(client.last_failure(), HttpFailure::kOther);
  }
  EXPECT_FALSE(connection_pending(server));
}

TEST(HttpClient, RefusesAHeaderNameWithALineBreak) {
  RawSocket server;
  ASSERT_EQ(::listen(server.fd(), 4), 0);
  HttpClient client = client_for(server.url());
  HttpRequest r = get("/items");
  r.headers = {{"X-A\r\nX-B", "1"}};
  auto reply = client.request(r);
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().message(), "GET " + server.url() +
                                          "/items: header name 'X-A\\r\\nX-B' contains a "
                                          "carriage return (CR); nothing was sent");
  EXPECT_FALSE(connection_pending(server));
}

TEST(HttpClient, RefusesALineBreakInAnOptionsOrSecretHeaderWithoutShowingIt) {
  ScopedEnv token("PROWL_TEST_HTTP_TOKEN", "Bearer tok\nX-Admin: yes");
  RawSocket server;
  ASSERT_EQ(::listen(server.fd(), 4), 0);
  HttpClientOptions o;
  o.base_url = server.url();
  o.secret_headers = {{"Authorization", "PROWL_TEST_HTTP_TOKEN"}};
  auto client = HttpClient::create(o);
  ASSERT_TRUE(client.is_ok()) << client.status().message();
  auto reply = client->request(get("/items"));
  ASSERT_FALSE(reply.is_ok());
  EXPECT_EQ(reply.status().message(),
            "GET " + server.url() +
                "/items: the value of header 'Authorization' contains a line feed (LF) (a header "
                "value cannot hold CR, LF or NUL); nothing was sent");

  o.secret_headers.clear();
  o.headers = {{"X-Tenant", "t1\r\n"}};
  HttpClient plain(o);
  auto plain_reply = plain.request(get("/items"));
  ASSERT_FALSE(plain_reply.is_ok());
  EXPECT_THAT(plain_reply.status().message(),
              HasSubstr("the value of header 'X-Tenant' contains a carriage return (CR)"));
  EXPECT_FALSE(connection_pending(server));
}

TEST(HttpClient, SendsThePathAsGiven) {
  SilentServer server;
  HttpClient client = client_for(server.url(), 300ms);
  (void)client.request(get("/files/../admin/./x%2F..%2Fy"));  // times out: the server is silent
  EXPECT_THAT(server.head(),
              ::testing::StartsWith("GET /files/../admin/./x%2F..%2Fy HTTP/1.1\r\n"));
}

}  // namespace
}  // namespace prowl
