// library_api: the lending library (library.hpp) as an HTTP service on 127.0.0.1.
//
//   library_api --port N --db PATH
//
// Startup: parse the flags (bad usage: exit 2), create the schema and seed rows in PATH when it
// has none and bind the port (failure: exit 3), then print "library_api listening on
// 127.0.0.1:PORT" and serve until a signal ends the process. Nothing is lost then: every request
// is one transaction that is committed before its response is sent.
#include <httplib.h>
#include <sys/socket.h>

#include <charconv>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>

#include "library_api/library.hpp"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitEnvironment = 3;
constexpr const char* kHost = "127.0.0.1";
constexpr const char* kUsage =
    "usage: library_api --port N --db PATH\n"
    "  --port N    TCP port on 127.0.0.1 (0: any free port)\n"
    "  --db PATH   SQLite file, created and seeded when it has no tables\n";

struct Options {
  int port = -1;
  std::string db;
};

// The options, or an empty db when the flags are wrong (the message is printed).
Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if ((flag != "--port" && flag != "--db") || i + 1 >= argc) {
      std::fprintf(stderr, "library_api: unexpected argument '%s'\n%s", argv[i], kUsage);
      return {};
    }
    const std::string_view text = argv[++i];
    if (flag == "--db") {
      options.db = text;
      continue;
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), options.port);
    if (ec != std::errc() || end != text.data() + text.size() || options.port < 0 ||
        options.port > 65535) {
      std::fprintf(stderr, "library_api: --port must be 0 to 65535, not '%s'\n", argv[i]);
      return {};
    }
  }
  if (options.port < 0 || options.db.empty()) {
    std::fprintf(stderr, "library_api: --port and --db are required\n%s", kUsage);
    return {};
  }
  return options;
}

std::string dump(const nlohmann::json& body) {
  // Error messages may echo request bytes that are not UTF-8: replace them rather than throw.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const Options options = parse(argc, argv);
  if (options.db.empty()) return kExitUsage;
  try {
    library::init(options.db);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "library_api: cannot create the database: %s\n", e.what());
    return kExitEnvironment;
  }

  httplib::Server server;
  server.set_tcp_nodelay(true);
  // httplib sets SO_REUSEPORT by default, which would let a second server share the port.
  // SO_REUSEADDR alone still allows a restart while old connections sit in TIME_WAIT.
  server.set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // prowl sends thousands of requests over one connection: keep it open.
  server.set_keep_alive_max_count(1000000);
  // One request at a time, in the order they come: each opens the file and takes its write lock,
  // and serving them in turn spares them from waiting on each other's locks.
  std::mutex mutex;
  const auto serve = [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    const library::Reply reply = library::handle(options.db, req.method, req.path, req.body);
    res.status = reply.status;
    res.set_content(dump(reply.body), "application/json");
  };
  server.Get(".*", serve);
  server.Post(".*", serve);
  server.Put(".*", serve);
  server.Patch(".*", serve);
  server.Delete(".*", serve);
  // httplib's own refusals (a malformed request, say) get a JSON body too.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&,
                                                                   httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    res.set_content(dump({{"error", "HTTP " + std::to_string(res.status)}}), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));

  const int port = options.port == 0
                       ? server.bind_to_any_port(kHost)
                       : (server.bind_to_port(kHost, options.port) ? options.port : -1);
  if (port <= 0) {
    std::fprintf(stderr, "library_api: cannot listen on %s:%d\n", kHost, options.port);
    return kExitEnvironment;
  }
  std::printf("library_api listening on %s:%d\n", kHost, port);
  std::fflush(stdout);
  if (!server.listen_after_bind()) {
    std::fprintf(stderr, "library_api: the server stopped serving on %s:%d\n", kHost, port);
    return kExitEnvironment;
  }
  return 0;
}
