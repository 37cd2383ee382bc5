#include "shop_api/server_options.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>
#include <optional>

namespace shop {

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    return std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
  }
  return false;
}

Result<ServerOptions> parse_server_options(const std::vector<std::string>& args) {
  ServerOptions options;
  bool have_db = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> value;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    const bool takes_value = flag == "--port" || flag == "--db" || flag == "--host";
    if (takes_value && !value) {
      if (i + 1 >= args.size()) return Status::error(flag + " needs a value");
      value = args[++i];
    } else if (!takes_value && value) {
      return Status::error(flag + " takes no value");
    }
    if (flag == "--help" || flag == "-h") {
      options.help = true;
    } else if (flag == "--allow-non-loopback") {
      options.allow_non_loopback = true;
    } else if (flag == "--port") {
      int port = -1;
      const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), port);
      if (ec != std::errc() || end != value->data() + value->size() || port < 0 || port > 65535) {
        return Status::error("--port must be a number from 0 to 65535, not '" + *value + "'");
      }
      options.port = port;
    } else if (flag == "--host") {
      if (value->empty()) return Status::error("--host must not be empty");
      options.host = *value;
    } else if (flag == "--db") {
      const auto colon = value->find(':');
      const std::string scheme = value->substr(0, colon);
      if (colon == std::string::npos || colon + 1 == value->size()) {
        return Status::error("--db must be sqlite:PATH or postgres:DSN, not '" + *value + "'");
      }
      if (scheme == "sqlite") {
        options.backend = ServerOptions::Backend::kSqlite;
      } else if (scheme == "postgres" || scheme == "postgresql") {
        options.backend = ServerOptions::Backend::kPostgres;
      } else {
        return Status::error("--db must be sqlite:PATH or postgres:DSN, not '" + *value + "'");
      }
      options.db = value->substr(colon + 1);
      have_db = true;
    } else {
      return Status::error("unknown argument '" + args[i] + "'");
    }
  }
  if (options.help) return options;
  if (options.port < 0) return Status::error("--port is required");
  if (!have_db) return Status::error("--db is required");
  if (!options.allow_non_loopback && !is_loopback_host(options.host)) {
    return Status::error("--host " + options.host +
                         " is not a loopback address; add --allow-non-loopback to serve on it");
  }
  return options;
}

}  // namespace shop
