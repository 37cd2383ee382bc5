// shop_api: the shop as an HTTP service (cpp-httplib), a thin layer over shop::Shop::handle.
//
// Startup: parse flags (bad usage: exit 2), open the database and create the schema and seed
// (failure: exit 3), bind (failure: exit 3), then print "shop_api listening on HOST:PORT" and
// serve. SIGTERM or SIGINT stops the server: it stops accepting, lets the request in flight
// finish, closes the database, prints "shop_api stopped" and exits 0. Idle keep-alive connections
// are dropped rather than waited for, so a restart by prowl costs milliseconds.
//
// Requests are served by httplib's thread pool but run one at a time under a mutex: the database
// connection is single-threaded, and each request is one transaction that is over before the
// response is sent, so no transaction stays open between requests.
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "shop_api/db.hpp"
#include "shop_api/postgres_db.hpp"
#include "shop_api/server_options.hpp"
#include "shop_api/shop.hpp"
#include "shop_api/sqlite_db.hpp"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitEnvironment = 3;

shop::Result<std::unique_ptr<shop::Db>> open_db(const shop::ServerOptions& options) {
  if (options.backend == shop::ServerOptions::Backend::kSqlite) {
    auto db = shop::SqliteDb::open(options.db);
    if (!db) return db.status();
    return std::unique_ptr<shop::Db>(std::move(*db));
  }
  auto db = shop::PostgresDb::connect(options.db);
  if (!db) return db.status();
  return std::unique_ptr<shop::Db>(std::move(*db));
}

// The requests whose response is not written yet, from the start of the handler to httplib's
// logger, so that a shutdown lets them finish.
class InFlight {
 public:
  void add(const httplib::Request* request) {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.insert(request);
  }
  void remove(const httplib::Request* request) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (requests_.erase(request) > 0 && requests_.empty()) empty_.notify_all();
  }
  void wait_until_empty(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    empty_.wait_for(lock, timeout, [this] { return requests_.empty(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable empty_;
  std::set<const httplib::Request*> requests_;
};

std::string dump(const nlohmann::json& body) {
  // Error messages may echo request bytes that are not UTF-8: replace them rather than throw.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int main(int argc, char** argv) {
  auto options = shop::parse_server_options(std::vector<std::string>(argv + 1, argv + argc));
  if (!options) {
    std::fprintf(stderr, "shop_api: %s\n%s", options.status().message().c_str(),
                 shop::kServerUsage);
    return kExitUsage;
  }
  if (options->help) {
    std::fputs(shop::kServerUsage, stdout);
    return 0;
  }

  // Only the signal thread takes SIGINT/SIGTERM: block them before any other thread starts.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto db = open_db(*options);
  if (!db) {
    std::fprintf(stderr, "shop_api: cannot open the database: %s\n", db.status().message().c_str());
    return kExitEnvironment;
  }
  shop::Shop shop(**db);
  if (auto s = shop.init(); !s) {
    std::fprintf(stderr, "shop_api: cannot create the schema: %s\n", s.message().c_str());
    return kExitEnvironment;
  }

  std::mutex mutex;  // one request at a time on the database connection
  std::atomic<bool> stopping{false};
  InFlight in_flight;
  httplib::Server server;
  server.set_tcp_nodelay(true);
  // httplib's default sets SO_REUSEPORT, which lets a second server bind the same port and share
  // its connections. SO_REUSEADDR alone still allows a restart while old connections linger in
  // TIME_WAIT, and a port in use fails to bind.
  server.set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_keep_alive_max_count(1000000);
  const auto serve = [&](const httplib::Request& req, httplib::Response& res) {
    in_flight.add(&req);
    shop::Reply reply;
    if (stopping.load()) {
      reply = {503, {{"error", "shop_api is stopping"}}};
      res.set_header("Connection", "close");
    } else {
      std::lock_guard<std::mutex> lock(mutex);
      reply = shop.handle(req.method, req.path, req.body);
    }
    res.status = reply.status;
    res.set_content(dump(reply.body), "application/json");
  };
  // httplib calls its logger once the response is written.
  server.set_logger(
      [&](const httplib::Request& req, const httplib::Response&) { in_flight.remove(&req); });
  server.Get(".*", serve);
  server.Post(".*", serve);
  server.Put(".*", serve);
  server.Delete(".*", serve);
  server.Patch(".*", serve);
  server.Options(".*", serve);
  // httplib's own refusals (malformed request, body too large) get a JSON body too.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&,
                                                                   httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    res.set_content(dump({{"error", "HTTP " + std::to_string(res.status)}}), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content(dump({{"error", "internal error"}}), "application/json");
      });

  const int port = options->port == 0
                       ? server.bind_to_any_port(options->host)
                       : (server.bind_to_port(options->host, options->port) ? options->port : -1);
  if (port <= 0) {
    std::fprintf(stderr, "shop_api: cannot listen on %s:%d\n", options->host.c_str(),
                 options->port);
    return kExitEnvironment;
  }

  // Ends the process: waits until the responses in flight are written (new requests on open
  // keep-alive connections get 503 meanwhile), closes the database and exits without waiting
  // for httplib's workers, which may sit on idle keep-alive connections for up to the keep-alive
  // timeout. Whoever calls it first ends the process; a second caller blocks on the mutex.
  const auto finish = [&](int code) {
    stopping.store(true);
    in_flight.wait_until_empty(std::chrono::seconds(2));
    mutex.lock();
    db->reset();
    std::printf("shop_api stopped\n");
    std::fflush(stdout);
    std::_Exit(code);
  };
  std::atomic<bool> listen_returned{false};
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    stopping.store(true);
    // stop() only takes effect once listening has begun.
    while (!server.is_running() && !listen_returned.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    server.stop();
    finish(0);
  });

  std::printf("shop_api listening on %s:%d\n", options->host.c_str(), port);
  std::fflush(stdout);
  const bool served = server.listen_after_bind();
  listen_returned.store(true);
  if (stopping.load()) finish(0);
  std::fprintf(stderr, "shop_api: the server stopped serving on %s:%d\n", options->host.c_str(),
               port);
  finish(served ? 0 : kExitEnvironment);
}
