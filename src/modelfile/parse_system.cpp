#include <algorithm>
#include <cctype>
#include <span>

#include <fmt/format.h>

#include "parser.hpp"
#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile::detail {

namespace {

constexpr std::string_view kProcessKeys[] = {
    "name",         "type",         "command",   "port",     "db",         "db_copy",
    "dsn",          "working_dir",  "env",       "health",   "ready_port", "ready_timeout",
    "stop_timeout", "output_limit", "stateless", "share_cpu"};
constexpr std::string_view kSqliteKeys[] = {"name",   "type",    "path",
                                            "tables", "queries", "busy_timeout"};
constexpr std::string_view kPostgresKeys[] = {"name",   "type",    "dsn",         "mode",
                                              "tables", "queries", "lock_timeout"};
constexpr std::string_view kSystemTypes[] = {"process", "sqlite", "postgres"};

const std::string& system_name(const SystemSpec& s) {
  return std::visit([](const auto& x) -> const std::string& { return x.name; }, s);
}

}  // namespace

Status Parser::system(const Item& item) {
  if (Status st = r_.expect_map({item.node, item.pos, "a system"}); !st) return st;
  const YAML::Node type_node = item.node["type"];
  if (!type_node) {
    return r_.error(item.pos, "a system needs a type",
                    fmt::format("one of: {}", fmt::join(kSystemTypes, ", ")));
  }
  auto type = r_.text(child(type_node, item.pos, "system type"));
  if (!type) return type.status();
  const YAML::Node name_node = item.node["name"];
  std::string name = *type == "process" ? "service" : "db";
  if (name_node) {
    auto n = r_.name(child(name_node, item.pos, "system name"));
    if (!n) return n.status();
    name = *n;
  }
  if (name == kHttpSystemName) {
    return r_.error(r_.pos(name_node),
                    fmt::format("the system name '{}' is reserved for prowl's HTTP client", name));
  }
  for (const SystemSpec& s : spec_.systems) {
    if (system_name(s) == name) {
      return r_.error(name_node ? r_.pos(name_node) : item.pos,
                      fmt::format("two systems are named '{}'", name),
                      "give each system its own name: with name:");
    }
  }
  if (*type == "process") return process(item, name);
  if (*type == "sqlite" || *type == "postgres") return database(item, name, *type);
  const std::string near = closest_word(*type, {std::begin(kSystemTypes), std::end(kSystemTypes)});
  return r_.error(r_.pos(type_node), fmt::format("unknown system type '{}'", *type),
                  near.empty() ? fmt::format("one of: {}", fmt::join(kSystemTypes, ", "))
                               : fmt::format("did you mean '{}'?", near));
}

// What a process system's keys said beyond its spec, for the rules across its keys.
struct Parser::ProcessKeys {
  bool has_command = false;
  SourcePos db_copy_pos;
};

Status Parser::process(const Item& item, const std::string& name) {
  ProcessSpec p;
  p.name = name;
  p.pos = item.pos;
  p.options.working_dir = r_.absolute(".");
  ProcessKeys seen;
  Status st = r_.entries(
      {item.node, item.pos, fmt::format("system '{}'", name)}, kProcessKeys,
      [&](const std::string& key, const Item& v) { return process_field(key, v, p, seen); });
  if (!st) return st;
  if (!seen.has_command || p.options.argv.empty()) {
    return r_.error(item.pos, fmt::format("system '{}' (process) has no command", name),
                    "for example command: [./my-service, --port, \"{port}\"]");
  }
  if (p.db_copy && p.options.db.empty()) {
    return r_.error(seen.db_copy_pos,
                    fmt::format("system '{}': db_copy needs the file to copy in db:", name),
                    "for example db: data/shop.db, with --db \"{db}\" in the command");
  }
  spec_.systems.emplace_back(std::move(p));
  return Status::ok();
}

Status Parser::process_field(const std::string& key, const Item& v, ProcessSpec& p,
                             ProcessKeys& seen) {
  if (key == "name" || key == "type") return Status::ok();
  if (key == "command") {
    seen.has_command = true;
    return process_command(v, p.options.argv);
  }
  if (key == "db" || key == "working_dir" || key == "dsn" || key == "env" || key == "health") {
    return process_setting(key, v, p.options);
  }
  if (key == "db_copy") {
    auto b = r_.boolean(v);
    if (!b) return b.status();
    p.db_copy = *b;
    seen.db_copy_pos = v.pos;
    return Status::ok();
  }
  return process_limit(key, v, p.options);
}

// A string is a shell command line; a sequence is the argv itself.
Status Parser::process_command(const Item& v, std::vector<std::string>& argv) const {
  if (v.node && v.node.IsScalar()) {
    auto c = literal(v);
    if (!c) return c.status();
    // Stopping signals the whole process group, so the shell need not exec the service.
    argv = {"/bin/sh", "-c", *c};
    return Status::ok();
  }
  return r_.elements(v, /*single_ok=*/false, [&](const Item& e) -> Status {
    auto a = literal(e);
    if (!a) return a.status();
    argv.push_back(*a);
    return Status::ok();
  });
}

// Where the service runs and what it is given: db, working_dir, dsn, env and health.
Status Parser::process_setting(const std::string& key, const Item& v,
                               ProcessOptions& options) const {
  if (key == "db" || key == "working_dir") {
    auto t = literal(v);
    if (!t) return t.status();
    (key == "db" ? options.db : options.working_dir) = r_.absolute(*t);
  } else if (key == "dsn") {
    auto t = literal(v);
    if (!t) return t.status();
    options.dsn = *t;
  } else if (key == "env") {
    if (Status e = r_.expect_map(v); !e) return e;
    for (const auto& entry : v.node) {
      const std::string var = entry.first.Scalar();
      auto value =
          literal(child(entry.second, r_.pos(entry.first), fmt::format("{} {}", v.what, var)));
      if (!value) return value.status();
      options.env.emplace_back(var, *value);
    }
  } else if (key == "health") {
    auto t = literal(v);
    if (!t) return t.status();
    if (!t->starts_with("/") && !unresolved(*t)) {
      return r_.error(v.pos, fmt::format("{} '{}' must be a path starting with '/'", v.what, *t),
                      "for example /health");
    }
    options.health_path = *t;
  }
  return Status::ok();
}

// How the service is reached and handled: ports, timeouts, output_limit, stateless, share_cpu.
Status Parser::process_limit(const std::string& key, const Item& v, ProcessOptions& options) const {
  if (key == "port" || key == "ready_port") {
    auto n = r_.integer(v, 0, 65535);
    if (!n) return n.status();
    (key == "port" ? options.port : options.ready_port) = static_cast<int>(*n);
  } else if (key == "ready_timeout" || key == "stop_timeout") {
    auto d = r_.duration(v);
    if (!d) return d.status();
    (key == "ready_timeout" ? options.ready_timeout : options.stop_timeout) = *d;
  } else if (key == "output_limit") {
    auto n = r_.integer(v, 1024, 64 << 20);
    if (!n) return n.status();
    options.output_limit = static_cast<std::size_t>(*n);
  } else if (key == "stateless" || key == "share_cpu") {
    auto b = r_.boolean(v);
    if (!b) return b.status();
    (key == "stateless" ? options.stateless : options.share_cpu) = *b;
  }
  return Status::ok();
}

Status Parser::database(const Item& item, const std::string& name, const std::string& type) {
  DatabaseSpec d;
  d.name = name;
  d.type = type;
  d.pos = item.pos;
  const std::span<const std::string_view> known =
      type == "sqlite" ? std::span<const std::string_view>(kSqliteKeys) : kPostgresKeys;
  Status st = r_.entries(
      {item.node, item.pos, fmt::format("system '{}'", name)}, known,
      [&](const std::string& key, const Item& v) -> Status {
        if (key == "name" || key == "type") return Status::ok();
        if (key == "path") {
          auto t = literal(v);
          if (!t) return t.status();
          d.path = *t;  // made absolute in finish(): "{db}" names the process's database
        } else if (key == "dsn") {
          auto t = literal(v);
          if (!t) return t.status();
          d.dsn = *t;
        } else if (key == "mode") {
          auto t = r_.text(v);
          if (!t) return t.status();
          if (*t == "savepoint") {
            return r_.error(
                v.pos,
                fmt::format("{}: savepoint mode cannot restore a service's database", v.what),
                "savepoints live in prowl's own transaction, which a service reached over "
                "HTTP does not share; use mode: snapshot");
          }
          if (*t != "snapshot") {
            return r_.error(v.pos, fmt::format("{} must be snapshot, not '{}'", v.what, *t));
          }
          d.mode = *t;
        } else if (key == "tables") {
          return r_.elements(v, /*single_ok=*/true, [&](const Item& e) -> Status {
            auto n = r_.name(e);
            if (!n) return n.status();
            d.tables.push_back(*n);
            d.table_pos.push_back(e.pos);
            return Status::ok();
          });
        } else if (key == "queries") {
          if (Status e = r_.expect_map(v); !e) return e;
          for (const auto& entry : v.node) {
            const std::string qname = entry.first.Scalar();
            auto sql = literal(
                child(entry.second, r_.pos(entry.first), fmt::format("{} '{}'", v.what, qname)));
            if (!sql) return sql.status();
            d.queries.emplace_back(qname, *sql);
          }
        } else if (key == "busy_timeout" || key == "lock_timeout") {
          auto t = r_.duration(v);
          if (!t) return t.status();
          d.busy_timeout = *t;
        }
        return Status::ok();
      });
  if (!st) return st;
  if (type == "postgres" && d.dsn.empty()) {
    return r_.error(item.pos, fmt::format("system '{}' (postgres) has no dsn", name),
                    "for example dsn: \"host=127.0.0.1 dbname=shop\"");
  }
  if (type == "postgres" && d.mode.empty()) d.mode = "snapshot";
  spec_.systems.emplace_back(std::move(d));
  return Status::ok();
}

Status Parser::reset_hook(const Item& item) {
  ResetSpec reset;
  bool has_path = false;
  static constexpr std::string_view kResetKeys[] = {"method", "path", "ok"};
  Status st = r_.entries(item, kResetKeys, [&](const std::string& key, const Item& v) -> Status {
    if (key == "method") {
      auto t = r_.text(v);
      if (!t) return t.status();
      reset.method = *t;
      std::transform(reset.method.begin(), reset.method.end(), reset.method.begin(), ::toupper);
    } else if (key == "path") {
      auto t = literal(v);
      if (!t) return t.status();
      reset.path = *t;
      has_path = true;
    } else if (key == "ok") {
      return status_set(v, reset.ok, /*allow_5xx=*/false);
    }
    return Status::ok();
  });
  if (!st) return st;
  if (!has_path) return r_.error(item.pos, "reset needs a path", "for example path: /reset");
  if (reset.ok.empty()) reset.ok.classes = {2};
  spec_.reset = std::move(reset);
  return Status::ok();
}

}  // namespace prowl::modelfile::detail
