// The shop_api command line:
//   shop_api --port N --db sqlite:PATH | --db postgres:DSN [--host H] [--allow-non-loopback]
// Parsed separately from main() so tests can check it without starting a server.
#pragma once

#include <string>
#include <vector>

#include "shop_api/status.hpp"

namespace shop {

struct ServerOptions {
  enum class Backend { kSqlite, kPostgres };

  int port = -1;  // 0: any free port, printed once listening
  std::string host = "127.0.0.1";
  bool allow_non_loopback = false;
  Backend backend = Backend::kSqlite;
  std::string db;  // the path (sqlite) or the libpq connection string (postgres)
  bool help = false;
};

inline constexpr const char* kServerUsage =
    "usage: shop_api --port N --db sqlite:PATH|postgres:DSN [--host HOST] "
    "[--allow-non-loopback]\n"
    "  --port N               TCP port to listen on (0: any free port)\n"
    "  --db sqlite:PATH       SQLite database file (created when missing)\n"
    "  --db postgres:DSN      PostgreSQL libpq connection string or URI\n"
    "  --host HOST            address to bind (default 127.0.0.1; loopback only unless\n"
    "                         --allow-non-loopback)\n"
    "exit codes: 0 stopped by SIGTERM/SIGINT, 2 bad usage, 3 database or network failure\n";

// Parses the arguments after the program name; fails with a message for bad usage. Accepts
// "--flag value" and "--flag=value".
Result<ServerOptions> parse_server_options(const std::vector<std::string>& args);

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(const std::string& host);

}  // namespace shop
