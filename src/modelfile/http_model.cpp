#include "prowl/modelfile/http_model.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "database.hpp"
#include "file_copies.hpp"
#include "http_api.hpp"
#include "prowl/core/escape.hpp"
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

// Copy 0 is the world as declared (on private copies of the files of db_copy processes); copy
// k >= 1 runs on the files place_files() copied for it.
Result<std::unique_ptr<World>> build_world(const std::shared_ptr<const ModelSpec>& spec,
                                           const std::shared_ptr<detail::PrivateCopies>& privates,
                                           std::size_t copy = 0) {
  PROWL_CHECK(!spec->list_only,
              fmt::format("model file {} was read for listing only (ReadOptions::resolve_env = "
                          "false): it cannot be run",
                          spec->file));
  auto world = std::make_unique<World>();
  // The run's hold on each database, taken before any service starts: a second run stops here,
  // before its service touches the database, and a run that was killed is recovered while nothing
  // has the database open. (Copies for other workers live in temporary directories of their own.)
  std::map<std::string, std::shared_ptr<DatabaseGuard>> guards;
  if (copy == 0) {
    // What runs that were killed left in the temporary directory goes first, whether or not this
    // run makes copies of its own.
    std::error_code ec;
    const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
    if (!ec) {
      for (const std::string& name : detail::remove_stale_copies(tmp)) {
        world->add_note(fmt::format("removed {}, a worker copy of a run that did not end",
                                    (tmp / name).string()));
      }
    }
    for (const SystemSpec& system : spec->systems) {
      const auto* d = std::get_if<DatabaseSpec>(&system);
      if (d == nullptr) continue;
      auto guard = d->type == "sqlite" ? guard_sqlite(d->path) : guard_postgres(d->dsn);
      if (!guard) return guard.status();
      if (!(*guard)->recovered().empty()) world->add_note((*guard)->recovered());
      guards[d->name] = std::move(*guard);
    }
  }
  auto placed = detail::place_files(*spec, copy, *world, privates);
  if (!placed) return placed.status();
  const std::vector<std::pair<std::string, std::string>> moved = std::move(*placed);
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
      // What the model file holds secret (header tokens) is never shown in the service's messages.
      options.secrets.insert(options.secrets.end(), spec->secrets.begin(), spec->secrets.end());
      auto& process = world->emplace<ProcessSystem>(p->name, std::move(options));
      if (port_source == nullptr) port_source = &process;
      continue;
    }
    DatabaseSpec d = std::get<DatabaseSpec>(system);
    const std::string original = d.path;
    d.path = copy_path(d.path);
    detail::DriverSetup setup{spec->file, nullptr, copy == 0};
    // A database the service works on in a private copy (db_copy) was held only while the copy
    // was made: the user's file is not written, so another run may use it meanwhile.
    if (auto g = guards.find(d.name); g != guards.end() && d.path == original) {
      setup.guard = g->second;
    }
    auto driver = detail::driver_for(d, std::move(setup));
    if (!driver) return driver.status();
    databases.push_back(&world->emplace<Database>(d.name, d.type, std::move(*driver)));
  }
  world->emplace<HttpApi>(spec, world->context(), port_source, std::move(databases));
  return world;
}

// One combination's arguments as the values its request and conditions read.
using ContextValues = std::vector<std::pair<std::string, Value>>;
ContextValues context_values(const Args& args) {
  ContextValues values;
  for (const auto& [name, value] : args.values()) {
    if (const auto* n = std::get_if<std::int64_t>(&value)) {
      values.emplace_back(name, Value(*n));
    } else {
      values.emplace_back(name, Value(std::get<std::string>(value)));
    }
  }
  return values;
}

}  // namespace

// Action `index` becomes the family of spec action i's parameters: one action per combination,
// whose `when:` conditions and request read the combination's values beside the bound keys.
void HttpModel::add_param_actions(std::size_t i, std::size_t index,
                                  std::vector<Condition> conditions) {
  const std::shared_ptr<const ModelSpec> s = spec_;
  const ActionSpec& a = s->actions[i];
  Action& common = actions()[index];
  // The parameters are no context keys: nothing needs to bind them.
  std::erase_if(common.requires_keys, [&](const std::string& key) {
    return std::any_of(a.params.begin(), a.params.end(),
                       [&](const auto& p) { return p.first == key; });
  });
  const Action prototype = common;
  const std::size_t f = add_family(static_cast<ActionId>(index));
  family(f).params = a.params;
  // A from_sql: or from_context: parameter reads the state's values through the world's HttpApi.
  for (const ActionSpec::StateSource& source : a.state_sources) {
    for (auto& [name, d] : family(f).params) {
      if (name != source.param) continue;
      d.in_state = [source](const World& w, const Context& ctx) {
        return HttpApi::of(w).state_values(source, ctx);
      };
      // The query is shown on one line, escaped, in messages and --list-actions.
      d.source = source.sql.empty() ? fmt::format("from_context: {}", fmt::join(source.keys, ", "))
                                    : fmt::format("from_sql: {}", escape_text(source.sql));
    }
  }
  const ActionFamily& fam = family(f);
  // A state-given domain's values are worked out from a copy of the family in each state.
  const auto in_state = fam.in_state() ? std::make_shared<const ActionFamily>(fam) : nullptr;
  std::vector<Action> made;
  for (std::size_t k = 0; k < fam.count(); ++k) {
    Action c = prototype;
    c.name = fam.action_name(k);
    // Combination k's values where it runs: given, or the state's (none: its place is empty, or
    // the values cannot be had, and then `error` says why).
    auto values_at = [fixed = in_state ? ContextValues() : context_values(fam.args(k)), in_state,
                      k](const World& w, const Context& ctx,
                         std::string* error) -> std::optional<ContextValues> {
      if (!in_state) return fixed;
      const std::optional<Args> args = in_state->args_in(k, w, ctx, error);
      if (!args) return std::nullopt;
      return context_values(*args);
    };
    if (!conditions.empty()) {
      c.preconditions.push_back([conditions, values_at](const World& w, const Context& ctx) {
        // Values that cannot be had: the place's gate decides, and the run says why.
        std::string error;
        const std::optional<ContextValues> values = values_at(w, ctx, &error);
        if (!values) return !error.empty();
        Context view = ctx;
        for (const auto& [key, value] : *values) view.set(key, value);
        return detail::conditions_hold(conditions, view);
      });
    }
    c.run = [s, i, values_at](Step& step) {
      const std::optional<ContextValues> values = values_at(step.world, step.context, nullptr);
      if (!values) return Outcome::skipped("no value at this place in this state");
      return HttpApi::of(step.world).run(s->actions[i], step.context, *values);
    };
    made.push_back(std::move(c));
  }
  set_family_actions(f, std::move(made));
}

HttpModel::HttpModel(ModelSpec spec)
    : Model(spec.name), spec_(std::make_shared<const ModelSpec>(std::move(spec))) {
  const std::shared_ptr<const ModelSpec> s = spec_;
  auto privates = std::make_shared<detail::PrivateCopies>();
  set_world([s, privates] { return build_world(s, privates); });
  set_world_copies([s, privates](std::size_t copy) { return build_world(s, privates, copy); });
  for (const std::string& key : s->state_keys) state_key(key);
  for (std::size_t i = 0; i < s->actions.size(); ++i) {
    const ActionSpec& a = s->actions[i];
    const std::size_t index = add_action(a.name);
    Action& act = actions()[index];
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
    if (!a.params.empty()) {
      add_param_actions(i, index, std::move(others));
      continue;
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
        .declared_at({s->file, static_cast<std::uint32_t>(inv.pos.line)})
        .check([s, i](const World& world, const Context& ctx) {
          return HttpApi::of(world).check(s->invariants[i], ctx);
        });
  }
}

Result<std::unique_ptr<HttpModel>> load_model_file(const std::string& path, ReadOptions options) {
  auto spec = read_model_file(path, options);
  if (!spec) return spec.status();
  return std::make_unique<HttpModel>(std::move(*spec));
}

}  // namespace prowl::modelfile
