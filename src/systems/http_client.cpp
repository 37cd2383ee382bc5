#include "prowl/systems/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/core/interrupt.hpp"
#include "secrets.hpp"

namespace prowl {
namespace {

// How long a request waits for its socket before it looks for a signal again.
constexpr int kInterruptPollMs = 50;

// curl_global_init is not thread-safe and must run before the first handle is created.
CURLcode global_init() {
  static std::once_flag once;
  static CURLcode code = CURLE_OK;
  std::call_once(once, [] { code = curl_global_init(CURL_GLOBAL_DEFAULT); });
  return code;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// Replaces the value of a header of the same name (case-insensitive) or appends it.
void set_header(HttpHeaders& headers, std::string_view name, std::string value) {
  for (auto& [n, v] : headers) {
    if (iequals(n, name)) {
      v = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::string(name), std::move(value));
}

bool has_header(const HttpHeaders& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return iequals(h.first, name); });
}

Status check_base_url(const std::string& base_url) {
  auto bad = [&](std::string_view why) {
    return Status::invalid(fmt::format("HTTP base URL '{}': {}", base_url, why));
  };
  const std::string scheme = lowercase(base_url.substr(0, base_url.find("://")));
  if (base_url.find("://") == std::string::npos || (scheme != "http" && scheme != "https")) {
    return bad("expected http://host[:port][/prefix] or https://...");
  }
  CURLU* url = curl_url();
  if (url == nullptr) return Status::environment("libcurl: cannot allocate a URL handle");
  const CURLUcode rc = curl_url_set(url, CURLUPART_URL, base_url.c_str(), 0);
  curl_url_cleanup(url);
  if (rc != CURLUE_OK) return bad(curl_url_strerror(rc));
  if (base_url.find_first_of("?#") != std::string::npos) {
    return bad("a base URL has no query or fragment");
  }
  return Status::ok();
}

// What makes `text` unsendable in a request's head (a line break would end the header and start
// another one; curl would cut the value at a NUL), or nullptr.
const char* forbidden_character(std::string_view text) {
  for (char c : text) {
    if (c == '\r') return "a carriage return (CR)";
    if (c == '\n') return "a line feed (LF)";
    if (c == '\0') return "a NUL byte";
  }
  return nullptr;
}

// Cuts `text` to at most max bytes, backing off to a UTF-8 character boundary.
std::string truncated(const std::string& text, std::size_t max) {
  if (text.empty()) return "(empty)";
  if (text.size() <= max) return text;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} more bytes)", text.substr(0, cut), text.size() - cut);
}

// The headers a request goes out with: the client's, then its secrets and the request's own (each
// replacing one of the same name), then what the request leaves unset.
HttpHeaders request_headers(const HttpClientOptions& options,
                            const std::vector<std::string>& secret_values,
                            const HttpRequest& request) {
  HttpHeaders headers = options.headers;
  for (std::size_t i = 0; i < secret_values.size(); ++i) {
    set_header(headers, options.secret_headers[i].first, secret_values[i]);
  }
  for (const auto& [name, value] : request.headers) set_header(headers, name, value);
  if (request.json) {
    if (!request.body.empty() && !has_header(headers, "Content-Type")) {
      headers.emplace_back("Content-Type", "application/json");
    }
    if (!has_header(headers, "Accept")) headers.emplace_back("Accept", "application/json");
  }
  // curl would otherwise wait for "100 Continue" before sending a large body.
  if (!has_header(headers, "Expect")) headers.emplace_back("Expect", "");
  return headers;
}

// Why the method or a header cannot be sent, or "" when all can: a line break would start a
// header of its own (or a body). A value is not shown, it may be a secret.
std::string unsendable(const HttpRequest& request, const HttpHeaders& headers,
                       const HttpClient& client) {
  if (const char* bad = forbidden_character(request.method)) {
    return fmt::format("the method contains {}", bad);
  }
  for (const auto& [name, value] : headers) {
    if (const char* bad = forbidden_character(name)) {
      return fmt::format("header name '{}' contains {}", escape_text(client.redact(name)), bad);
    }
    if (const char* bad = forbidden_character(value)) {
      return fmt::format(
          "the value of header '{}' contains {} (a header value cannot hold CR, LF or NUL)",
          escape_text(name), bad);
    }
  }
  return {};
}

using HeaderList = std::unique_ptr<curl_slist, void (*)(curl_slist*)>;

// The headers as curl takes them: "Name;" is curl's way of sending a header with an empty value;
// "Expect:" removes it.
HeaderList header_list(const HttpHeaders& headers) {
  curl_slist* list = nullptr;
  for (const auto& [name, value] : headers) {
    const std::string line =
        value.empty() ? (iequals(name, "Expect") ? name + ":" : name + ";") : name + ": " + value;
    curl_slist* next = curl_slist_append(list, line.c_str());
    PROWL_CHECK(next != nullptr, "curl_slist_append failed (out of memory)");
    list = next;
  }
  return HeaderList(list, curl_slist_free_all);
}

}  // namespace

// The curl handle and the state its callbacks write into. Lives on the heap so the error buffer
// and the callback data keep their addresses when the client moves. The easy handle is driven
// through a multi handle of its own, which keeps the open connection between requests, so that
// the wait for the socket is ours: short enough to notice a signal (curl_easy_perform waits up to
// a second between calls of the progress callback).
struct HttpClient::Handle {
  CURL* curl = nullptr;
  CURLM* multi = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  HttpResponse* reply = nullptr;
  std::size_t max_body = 0;
  bool too_large = false;
  int interrupts_at_start = 0;
  bool interrupted = false;

  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
    if (multi != nullptr) curl_multi_cleanup(multi);
  }

  // Runs the transfer set up on `curl` to its end, or until a signal arrives.
  CURLcode perform() {
    if (CURLMcode mc = curl_multi_add_handle(multi, curl); mc != CURLM_OK) {
      return multi_failed(mc);
    }
    CURLcode result = CURLE_FAILED_INIT;
    for (bool done = false; !done;) {
      int running = 0;
      if (CURLMcode mc = curl_multi_perform(multi, &running); mc != CURLM_OK) {
        result = multi_failed(mc);
        break;
      }
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == curl) {
          result = msg->data.result;
          done = true;
        }
      }
      if (done || running == 0) break;
      // on_progress ends the transfer in curl_multi_perform; this is for a state in which curl
      // does not call it.
      if (interrupts() != interrupts_at_start) {
        interrupted = true;
        result = CURLE_ABORTED_BY_CALLBACK;
        break;
      }
      if (CURLMcode mc = curl_multi_poll(multi, nullptr, 0, kInterruptPollMs, nullptr);
          mc != CURLM_OK) {
        result = multi_failed(mc);
        break;
      }
    }
    curl_multi_remove_handle(multi, curl);
    return result;
  }

  // Readies the state the callbacks write into for one request, answered into `answer`.
  void begin(HttpResponse& answer, std::size_t max_body_bytes) {
    error[0] = '\0';
    reply = &answer;
    max_body = max_body_bytes;
    too_large = false;
    interrupts_at_start = interrupts();
    interrupted = false;
  }

  // Where the request goes, its limits, its headers, and the callbacks that fill the reply and
  // watch for a signal.
  void set_transfer(const std::string& url, std::chrono::milliseconds timeout,
                    const HttpClientOptions& options, curl_slist* headers) {
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_PROXY, options.proxy.c_str());
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options.connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Handle::on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &Handle::on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, this);
    curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
    // The path as given: the caller percent-encoded the values it bound, and "/../" in a path is
    // what the model asked for.
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &Handle::on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, this);
  }

  // The method, and the body of a request that sends one. `request` outlives the transfer: curl
  // reads the body from it.
  void set_method(const HttpRequest& request) {
    if (request.method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (request.method == "GET" && request.body.empty()) {
      curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    } else {
      const bool sends_body = !request.body.empty() || request.method == "POST" ||
                              request.method == "PUT" || request.method == "PATCH";
      if (sends_body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      }
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
  }

  // Status, time and URL of a transfer that got an answer; the body and headers are in already.
  void read_answer(HttpResponse& answer, const std::string& url) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    answer.status = static_cast<int>(status);
    curl_off_t total_us = 0;
    curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME_T, &total_us);
    answer.elapsed_ms = static_cast<double>(total_us) / 1000.0;
    char* effective = nullptr;
    curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &effective);
    answer.url = effective != nullptr ? effective : url;
  }

  struct Failure {
    HttpFailure kind;
    std::string what;
  };

  // The kind of a transfer's failure (not an interruption) and how to say it.
  Failure classify(CURLcode rc, std::chrono::milliseconds timeout,
                   const HttpClientOptions& options) {
    switch (rc) {
      case CURLE_OPERATION_TIMEDOUT:
        return {HttpFailure::kTimeout, timeout_text(timeout, options.connect_timeout)};
      case CURLE_COULDNT_CONNECT: {
        long os_errno = 0;
        curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
        if (os_errno == ECONNREFUSED) {
          return {HttpFailure::kRefused, "connection refused (nothing listens there)"};
        }
        return {HttpFailure::kOther,
                fmt::format("cannot connect ({})", std::strerror(static_cast<int>(os_errno)))};
      }
      case CURLE_GOT_NOTHING:
        return {HttpFailure::kDropped,
                "connection dropped: the server closed it without answering"};
      case CURLE_RECV_ERROR:
      case CURLE_SEND_ERROR:
        return {HttpFailure::kDropped, "connection dropped during the exchange"};
      case CURLE_PARTIAL_FILE:
        return {HttpFailure::kDropped, "connection dropped before the whole response arrived"};
      case CURLE_COULDNT_RESOLVE_HOST:
        return {HttpFailure::kResolve, "cannot resolve the host"};
      case CURLE_WRITE_ERROR:
        if (too_large) {
          return {HttpFailure::kTooLarge,
                  fmt::format("response body larger than {} bytes", options.max_response_bytes)};
        }
        [[fallthrough]];
      default:
        return {HttpFailure::kOther, "request failed"};
    }
  }

  // Which wait timed out: connect time stays 0 on a reused connection; pretransfer is set once
  // the request starts.
  std::string timeout_text(std::chrono::milliseconds timeout,
                           std::chrono::milliseconds connect_timeout) {
    curl_off_t connected_us = 0;
    curl_off_t pretransfer_us = 0;
    curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connected_us);
    curl_easy_getinfo(curl, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
    return connected_us > 0 || pretransfer_us > 0
               ? fmt::format("timed out after {} ms waiting for the response", timeout.count())
               : fmt::format("timed out after {} ms while connecting",
                             std::min(timeout, connect_timeout).count());
  }

  CURLcode multi_failed(CURLMcode mc) {
    if (error[0] == '\0') std::snprintf(error, sizeof error, "%s", curl_multi_strerror(mc));
    return CURLE_FAILED_INIT;
  }

  static int on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* h = static_cast<Handle*>(self);
    if (interrupts() == h->interrupts_at_start) return 0;
    h->interrupted = true;
    return 1;  // aborts the transfer with CURLE_ABORTED_BY_CALLBACK
  }

  static std::size_t on_body(char* data, std::size_t size, std::size_t n, void* self) {
    auto* h = static_cast<Handle*>(self);
    const std::size_t bytes = size * n;
    if (h->reply->body.size() + bytes > h->max_body) {
      h->too_large = true;
      return 0;  // aborts the transfer with CURLE_WRITE_ERROR
    }
    h->reply->body.append(data, bytes);
    return bytes;
  }

  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* self) {
    auto* h = static_cast<Handle*>(self);
    const std::size_t bytes = size * n;
    std::string_view line(data, bytes);
    if (line.rfind("HTTP/", 0) == 0) {
      // A new status line: a 100 Continue (or similar) came before; keep the final headers only.
      h->reply->headers.clear();
    } else if (std::size_t colon = line.find(':'); colon != std::string_view::npos) {
      h->reply->headers.emplace_back(lowercase(trim(line.substr(0, colon))),
                                     std::string(trim(line.substr(colon + 1))));
    }
    return bytes;
  }
};

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (iequals(n, name)) return v;
  }
  return std::nullopt;
}

Result<HttpClient> HttpClient::create(HttpClientOptions options) {
  if (Status s = check_base_url(options.base_url); !s) return s;
  std::vector<std::string> secrets;
  for (const auto& [header, variable] : options.secret_headers) {
    const char* value = std::getenv(variable.c_str());
    if (value == nullptr || *value == '\0') {
      return Status::invalid(fmt::format("secret header '{}': environment variable {} is {}",
                                         header, variable, value == nullptr ? "not set" : "empty"));
    }
    secrets.emplace_back(value);
  }
  if (CURLcode rc = global_init(); rc != CURLE_OK) {
    return Status::environment(
        fmt::format("libcurl: global initialisation failed: {}", curl_easy_strerror(rc)));
  }
  auto handle = std::make_unique<Handle>();
  handle->curl = curl_easy_init();
  if (handle->curl == nullptr) return Status::environment("libcurl: cannot create an easy handle");
  handle->multi = curl_multi_init();
  if (handle->multi == nullptr) return Status::environment("libcurl: cannot create a multi handle");
  return HttpClient(std::move(options), std::move(secrets), std::move(handle));
}

HttpClient::HttpClient(HttpClientOptions options) {
  Result<HttpClient> created = create(std::move(options));
  PROWL_CHECK(created.is_ok(), created.status().message());
  *this = std::move(created).value();
}

HttpClient::HttpClient(HttpClientOptions options, std::vector<std::string> secrets,
                       std::unique_ptr<Handle> handle)
    : options_(std::move(options)), secret_values_(std::move(secrets)), handle_(std::move(handle)) {
  for (const std::string& value : secret_values_) {
    redacted_.push_back(value);
    // "Bearer abc": the token may show up on its own (echoed back, logged by the service).
    if (std::size_t space = value.find(' '); space != std::string::npos) {
      std::string_view token = trim(std::string_view(value).substr(space + 1));
      if (!token.empty()) redacted_.emplace_back(token);
    }
  }
  redacted_ = detail::longest_first(std::move(redacted_));
}

HttpClient::~HttpClient() = default;
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;

std::string HttpClient::url_for(const HttpRequest& request) const {
  std::string url = options_.base_url;
  std::string_view path = request.path;
  if (!url.empty() && url.back() == '/' && !path.empty() && path.front() == '/') {
    path.remove_prefix(1);
  } else if (!path.empty() && path.front() != '/' && path.front() != '?' &&
             (url.empty() || url.back() != '/')) {
    url += '/';
  }
  url += path;
  char separator = url.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [name, value] : request.query) {
    // curl_easy_escape only needs a handle for legacy reasons; it works with nullptr.
    char* n = curl_easy_escape(nullptr, name.data(), static_cast<int>(name.size()));
    char* v = curl_easy_escape(nullptr, value.data(), static_cast<int>(value.size()));
    PROWL_CHECK(n != nullptr && v != nullptr, "curl_easy_escape failed (out of memory)");
    url += separator;
    url += n;
    url += '=';
    url += v;
    curl_free(n);
    curl_free(v);
    separator = '&';
  }
  return url;
}

Result<HttpResponse> HttpClient::request(const HttpRequest& request) {
  PROWL_CHECK(handle_ != nullptr, "HttpClient::request on a moved-from client");
  Handle& handle = *handle_;
  // Clears the options of the previous request but keeps its open connection.
  curl_easy_reset(handle.curl);

  const std::string url = url_for(request);
  const auto timeout = request.timeout.count() > 0 ? request.timeout : options_.timeout;
  const HttpHeaders headers = request_headers(options_, secret_values_, request);
  // Refused before anything is sent.
  if (std::string why = unsendable(request, headers, *this); !why.empty()) {
    last_failure_ = HttpFailure::kOther;
    return Status::invalid(fmt::format("{} {}: {}; nothing was sent", escape_text(request.method),
                                       escape_text(redact(url)), why));
  }
  const HeaderList list = header_list(headers);

  HttpResponse reply;
  handle.begin(reply, options_.max_response_bytes);
  handle.set_transfer(url, timeout, options_, list.get());
  handle.set_method(request);
  const CURLcode rc = handle.perform();
  handle.reply = nullptr;

  if (rc == CURLE_OK) {
    handle.read_answer(reply, url);
    last_failure_ = HttpFailure::kNone;
    return reply;
  }
  if (handle.interrupted) {
    last_failure_ = HttpFailure::kInterrupted;
    return Status::environment(
        redact(fmt::format("{} {}: interrupted by {} during the request", request.method, url,
                           signal_name(interrupt_signal()))));
  }
  Handle::Failure failure = handle.classify(rc, timeout, options_);
  last_failure_ = failure.kind;
  std::string message =
      fmt::format("{} {}: {}: {}", request.method, url, failure.what, curl_easy_strerror(rc));
  if (handle.error[0] != '\0') message += fmt::format(" ({})", handle.error);
  return Status::environment(redact(message));
}

std::string HttpClient::redact(std::string_view text) const {
  return detail::redact_secrets(text, redacted_);
}

std::string HttpClient::describe(const HttpRequest& request, const HttpResponse* reply,
                                 std::size_t max_body) const {
  std::string out =
      fmt::format("{} {}\nrequest body: {}\n", request.method, redact(url_for(request)),
                  truncated(redact(request.body), max_body));
  if (reply == nullptr) return out + "status: (no response)";
  return out + fmt::format("status: {}\nresponse body: {}", reply->status,
                           truncated(redact(reply->body), max_body));
}

}  // namespace prowl
