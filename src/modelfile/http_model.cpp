#include "prowl/modelfile/http_model.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "database.hpp"
#include "http_api.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/systems/process.hpp"

namespace prowl::modelfile {

namespace {

using detail::Database;
using detail::HttpApi;

// Every context key the action's request uses.
std::vector<std::string> request_keys(const RequestSpec& r) {
  std::vector<std::string> keys = r.path.keys();
  auto add = [&](std::vector<std::string> more) {
    for (std::string& k : more) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
    }
  };
  for (const auto& q : r.query) add(q.second.keys());
  for (const HeaderSpec& h : r.headers) add(h.value.keys());
  if (r.body) add(r.body->keys());
  return keys;
}

std::string describe_invariant(const InvariantSpec& inv) {
  if (!inv.description.empty()) return inv.description;
  switch (inv.kind) {
    case InvariantSpec::Kind::kSql:
      return fmt::format("no rows from {} on {}", inv.sql.source(), inv.database);
    case InvariantSpec::Kind::kHttp:
      return fmt::format("GET {}: {} checks", inv.path.source(), inv.checks.size());
    case InvariantSpec::Kind::kResponse:
      switch (inv.rule.kind) {
        case ResponseRule::Kind::kNo5xx:
          return "no answer has a 5xx status";
        case ResponseRule::Kind::kJson:
          return "every answer with a body is JSON";
      }
  }
  return {};
}

namespace fs = std::filesystem;

// Copy k of the world gets a directory of its own, made here and removed with the world, with a
// byte copy of each process's database file (and its WAL, if any) taken while every service is
// idle at the initial state: the copy starts with the same pages, schema cookie included, so
// restores into it keep the service's cached schema (see SqliteSystem). Returns the new path of
// each copied file; a fixed port, a {dsn} or a database that is not a process's {db} cannot be
// copied and is Status::invalid naming the model file's line.
Result<std::vector<std::pair<std::string, std::string>>> copy_files(const ModelSpec& spec,
                                                                    std::size_t copy,
                                                                    World& world) {
  std::vector<std::pair<std::string, std::string>> moved;  // original path, copy's path
  auto at = [&](const SourcePos& pos) { return fmt::format("{}:{}", spec.file, pos.line); };
  for (const SystemSpec& system : spec.systems) {
    if (const auto* p = std::get_if<ProcessSpec>(&system)) {
      if (p->options.port != 0) {
        return Status::invalid(fmt::format(
            "{}: system '{}' listens on the fixed port {}: each worker runs its own copy of the "
            "service, which needs a port of its own (leave port: out and use {{port}}, or run one "
            "worker)",
            at(p->pos), p->name, p->options.port));
      }
      if (!p->options.dsn.empty()) {
        return Status::invalid(fmt::format(
            "{}: system '{}' uses a PostgreSQL database ({{dsn}}): copies of the service for "
            "other workers would share it (run one worker)",
            at(p->pos), p->name));
      }
      if (!p->options.db.empty()) moved.emplace_back(p->options.db, std::string());
      continue;
    }
    const auto& d = std::get<DatabaseSpec>(system);
    const bool copied =
        std::any_of(moved.begin(), moved.end(), [&](const auto& m) { return m.first == d.path; });
    if (d.type != "sqlite" || !copied) {
      return Status::invalid(fmt::format(
          "{}: database '{}' is not the {{db}} file of a process system declared before it: "
          "copies of the service for other workers would share it (run one worker)",
          at(d.pos), d.name));
    }
  }
  std::error_code tmp_error;
  const fs::path tmp = fs::temp_directory_path(tmp_error);
  if (tmp_error) {
    return Status::environment(fmt::format("no directory for copy {} of the world: {} (set TMPDIR)",
                                           copy, tmp_error.message()));
  }
  std::string pattern = (tmp / fmt::format("prowl-copy{}-XXXXXX", copy)).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::environment(
        fmt::format("cannot make a directory for copy {} of the world in {}: {}", copy,
                    tmp.string(), std::strerror(errno)));
  }
  const fs::path dir = pattern;
  world.on_destroyed([dir] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  });
  for (std::size_t i = 0; i < moved.size(); ++i) {
    const fs::path from = moved[i].first;
    // Two files of the same name in different directories stay apart.
    const fs::path to = dir / fmt::format("{}-{}", i, from.filename().string());
    moved[i].second = to.string();
    for (const char* suffix : {"", "-wal"}) {
      std::error_code ec;
      const fs::path source = from.string() + suffix;
      if (!fs::exists(source, ec)) {
        if (*suffix != '\0') continue;  // no WAL: everything is in the file
        return Status::environment(
            fmt::format("cannot copy {} for copy {} of the world: the service has not created it",
                        source.string(), copy));
      }
      fs::copy_file(source, to.string() + suffix, ec);
      if (ec) {
        return Status::environment(fmt::format("cannot copy {} for copy {} of the world: {}",
                                               source.string(), copy, ec.message()));
      }
    }
  }
  return moved;
}

// Copy 0 is the world as declared; copy k >= 1 runs on the files copy_files() made.
Result<std::unique_ptr<World>> build_world(const std::shared_ptr<const ModelSpec>& spec,
                                           std::size_t copy = 0) {
  auto world = std::make_unique<World>();
  std::vector<std::pair<std::string, std::string>> moved;
  if (copy > 0) {
    auto m = copy_files(*spec, copy, *world);
    if (!m) return m.status();
    moved = std::move(*m);
  }
  auto copy_path = [&](const std::string& path) {
    for (const auto& [from, to] : moved) {
      if (from == path) return to;
    }
    return path;
  };
  for (const auto& [key, value] : spec->context) world->context().set(key, value);
  const ProcessSystem* port_source = nullptr;
  std::vector<const Database*> databases;
  for (const SystemSpec& system : spec->systems) {
    if (const auto* p = std::get_if<ProcessSpec>(&system)) {
      ProcessOptions options = p->options;
      options.db = copy_path(options.db);
      auto& process = world->emplace<ProcessSystem>(p->name, std::move(options));
      if (port_source == nullptr) port_source = &process;
      continue;
    }
    DatabaseSpec d = std::get<DatabaseSpec>(system);
    d.path = copy_path(d.path);
    auto driver = detail::driver_for(d);
    if (!driver) return driver.status();
    databases.push_back(&world->emplace<Database>(d.name, d.type, std::move(*driver)));
  }
  world->emplace<HttpApi>(spec, world->context(), port_source, std::move(databases));
  return world;
}

}  // namespace

HttpModel::HttpModel(ModelSpec spec)
    : Model(spec.name), spec_(std::make_shared<const ModelSpec>(std::move(spec))) {
  const std::shared_ptr<const ModelSpec> s = spec_;
  set_world([s] { return build_world(s); });
  set_world_copies([s](std::size_t copy) { return build_world(s, copy); });
  for (const std::string& key : s->state_keys) state_key(key);
  for (std::size_t i = 0; i < s->actions.size(); ++i) {
    const ActionSpec& a = s->actions[i];
    Action& act = action(a.name).action();
    act.description = a.description.empty()
                          ? fmt::format("{} {}", a.request.method, a.request.path.source())
                          : a.description;
    act.after = a.after;
    act.max_per_path = a.max_per_path;
    act.max_per_run = a.max_per_run;
    act.weight = a.weight;
    std::vector<Condition> others;
    for (const Condition& c : a.when) {
      if (c.kind == Condition::Kind::kBound) {
        act.requires_keys.push_back(c.key);
      } else {
        others.push_back(c);
      }
    }
    for (std::string& key : request_keys(a.request)) {
      if (std::find(act.requires_keys.begin(), act.requires_keys.end(), key) ==
          act.requires_keys.end()) {
        act.requires_keys.push_back(std::move(key));
      }
    }
    if (!others.empty()) {
      act.preconditions.push_back([others](const World&, const Context& ctx) {
        return detail::conditions_hold(others, ctx);
      });
    }
    act.run = [s, i](Step& step) {
      return HttpApi::of(step.world).run(s->actions[i], step.context);
    };
  }
  for (std::size_t i = 0; i < s->invariants.size(); ++i) {
    const InvariantSpec& inv = s->invariants[i];
    invariant(inv.name)
        .severity(inv.severity)
        .timing(inv.timing)
        .describe(describe_invariant(inv))
        .check([s, i](const World& world, const Context& ctx) {
          return HttpApi::of(world).check(s->invariants[i], ctx);
        });
  }
}

Result<std::unique_ptr<HttpModel>> load_model_file(const std::string& path) {
  auto spec = read_model_file(path);
  if (!spec) return spec.status();
  return std::make_unique<HttpModel>(std::move(*spec));
}

}  // namespace prowl::modelfile
