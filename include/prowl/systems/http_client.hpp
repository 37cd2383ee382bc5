// HttpClient: how prowl drives an HTTP service. One libcurl easy handle is reused for every
// request, so consecutive requests to the same host go over one kept-alive connection. Each
// request has a timeout for the whole exchange and a connect timeout.
//
// Failures: an answer with any status (404, 500) is a successful request; what it means is for the
// caller to judge. Transport failures (timeout, connection refused, connection dropped, empty
// reply, unknown host) are Status::environment values whose message names the method, the URL,
// the kind of failure, curl's error text and curl's error buffer; last_failure() classifies the
// most recent one, so a caller can tell an unreachable service (exit code 3) from a step that
// timed out or lost its connection (a finding of that step).
//
// Secrets: HttpClientOptions::secret_headers name environment variables that hold header values
// (an API token). They are read once, by create(); redact() and describe() replace every secret
// value in a text with "[REDACTED]", and transport-failure messages are redacted too.
//
// Requests are sent as given: a header name or value holding CR, LF or NUL (which would let a
// value bound from a response inject headers) is refused before anything is sent, and the path
// goes out as it is (no squashing of "/../": the caller has percent-encoded what it bound).
//
// Signals: a request ends as soon as a signal is counted by prowl/core/interrupt.hpp during it
// (checked at least every 50 ms), with HttpFailure::kInterrupted, so that Ctrl-C is not kept
// waiting by a slow service for up to the timeout.
//
// Ownership and threads: an HttpClient owns its curl handle and the connection it keeps open. It
// is movable, not copyable, and not thread-safe: drive one client from one thread at a time.
// Separate clients may be used from separate threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"

namespace prowl {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpClientOptions {
  // Scheme, host, port and an optional path prefix: "http://127.0.0.1:8080" or
  // "http://127.0.0.1:8080/api". Each request's path is appended to it.
  std::string base_url;
  // Sent with every request. A request header of the same name (case-insensitive) replaces it.
  HttpHeaders headers;
  // Header name -> name of the environment variable holding its value, e.g.
  // {"Authorization", "SHOP_TOKEN"}. Read by create(); the values are redacted in every text the
  // client produces.
  std::vector<std::pair<std::string, std::string>> secret_headers;
  // Limit for the whole exchange of one request (connect, send, wait, read).
  std::chrono::milliseconds timeout{10000};
  // Limit for establishing the connection (also bounded by `timeout`).
  std::chrono::milliseconds connect_timeout{2000};
  // A response body larger than this fails the request (Status::environment).
  std::size_t max_response_bytes = 64 * 1024 * 1024;
  // Proxy URL; empty (default): connect directly, ignoring http_proxy and friends in the
  // environment, so a developer's proxy settings never redirect prowl's calls to a local service.
  std::string proxy;
};

struct HttpRequest {
  std::string method = "GET";
  // Appended to the base URL ("/items/3") and sent as it is (CURLOPT_PATH_AS_IS). May already
  // hold a query string.
  std::string path;
  // Appended as ?name=value&..., both URL-encoded.
  std::vector<std::pair<std::string, std::string>> query;
  HttpHeaders headers;
  std::string body;
  // The body is JSON and JSON is expected back: adds "Content-Type: application/json" (when there
  // is a body) and "Accept: application/json", unless the request sets those headers itself.
  bool json = false;
  // Overrides HttpClientOptions::timeout for this request when positive.
  std::chrono::milliseconds timeout{0};
};

// The answer to one request.
struct HttpResponse {
  int status = 0;
  // In the order received; names lowercased, values without surrounding whitespace. A name may
  // occur more than once (set-cookie). Only the final response's headers (not a 100 Continue's).
  HttpHeaders headers;
  std::string body;
  double elapsed_ms = 0;
  // The URL that answered (redirects are not followed, so it is the URL requested).
  std::string url;

  // The value of the first header with this name (case-insensitive), if any.
  std::optional<std::string> header(std::string_view name) const;
};

// The kind of the most recent transport failure.
enum class HttpFailure {
  kNone,      // the most recent request got an answer
  kTimeout,   // the request or the connect timeout passed
  kRefused,   // nothing listens at the host and port
  kDropped,   // the connection closed or reset before a whole answer arrived (or an empty reply)
  kResolve,   // the host name cannot be resolved
  kTooLarge,  // the response body exceeded max_response_bytes
  // A signal arrived during the request (interrupts() grew): the step was abandoned, it did not
  // fail. Not a timeout, not a dropped connection.
  kInterrupted,
  kOther,  // any other failure; also a request refused before it was sent (Status::invalid)
};

class HttpClient {
 public:
  // Checks the base URL (Status::invalid if it is not an http:// or https:// URL), reads every
  // secret header's environment variable (Status::invalid naming the variable if it is unset or
  // empty) and creates the curl handle (Status::environment if libcurl cannot be initialised).
  static Result<HttpClient> create(HttpClientOptions options);
  // REQUIRES: create(options) would succeed (throws LogicError otherwise). For options written in
  // code; use create() for options read from a model file or the environment.
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(HttpClient&&) noexcept;
  HttpClient& operator=(HttpClient&&) noexcept;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends the request and waits for the whole answer. Any HTTP status is a result; transport
  // failures are Status::environment (see the file comment). A method, header name or header
  // value (from the options, a secret or the request) holding CR, LF or NUL is Status::invalid
  // naming the header (not its value), and nothing is sent. When interrupts() grows during the
  // request, it is abandoned: Status::environment, last_failure() kInterrupted. A signal counted
  // before the request began does not end it. REQUIRES: not moved from.
  Result<HttpResponse> request(const HttpRequest& request);

  // What the most recent request() failed with (kNone after an answer or before any request).
  HttpFailure last_failure() const { return last_failure_; }

  // The full URL of a request: base URL + path + encoded query.
  std::string url_for(const HttpRequest& request) const;

  // `text` with every secret value replaced by "[REDACTED]". A value of the form "<scheme>
  // <token>" ("Bearer abc") also has its token redacted where it appears alone.
  std::string redact(std::string_view text) const;

  // One HTTP step for a report, redacted:
  //   POST http://127.0.0.1:8080/items?page=2
  //   request body: {"name":"pen"}
  //   status: 201
  //   response body: {"id":7,"na... (10 more bytes)     (body {"id":7,"name":"pen"}, max_body 11)
  // Bodies longer than max_body bytes are cut (at a UTF-8 character boundary) and followed by
  // "... (N more bytes)"; an empty body shows as "(empty)". Without a reply (a transport failure)
  // the text ends with "status: (no response)". Lines are separated by '\n', with none at the end.
  // Redaction happens before truncation, so a cut never leaves part of a secret.
  std::string describe(const HttpRequest& request, const HttpResponse* reply,
                       std::size_t max_body = 1024) const;

  const HttpClientOptions& options() const { return options_; }

 private:
  struct Handle;
  HttpClient(HttpClientOptions options, std::vector<std::string> secrets,
             std::unique_ptr<Handle> handle);

  HttpClientOptions options_;
  // Header values read from the environment, in the order of options_.secret_headers.
  std::vector<std::string> secret_values_;
  // What redact() replaces, longest first.
  std::vector<std::string> redacted_;
  std::unique_ptr<Handle> handle_;
  HttpFailure last_failure_ = HttpFailure::kNone;
};

}  // namespace prowl
