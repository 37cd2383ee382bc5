#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "parser.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/systems/postgres.hpp"
#include "yaml_bounds.hpp"

namespace prowl::modelfile {

namespace detail {

namespace {

constexpr std::string_view kTopKeys[] = {
    "name",    "description", "base_url",   "timeout",   "connect_timeout",
    "headers", "context",     "state_keys", "systems",   "reset",
    "actions", "observe",     "invariants", "body_limit"};

}  // namespace

Result<std::string> Parser::literal(const Item& item) const {
  auto t = r_.templ(item);
  if (!t) return t.status();
  if (const std::vector<std::string> keys = t->keys(); !keys.empty()) {
    return r_.error(item.pos,
                    fmt::format("{}: context keys such as '${{{}}}' cannot be used here", item.what,
                                keys.front()),
                    "the context only exists while exploring; here only ${env:NAME} works");
  }
  return t->text();
}

bool Parser::unresolved(const std::string& text) const {
  return !r_.resolves_env() && text.find("${env:") != std::string::npos;
}

Status Parser::check_header_value(const Item& value, const Template& t) const {
  std::string_view problem = header_value_problem(t.source());
  if (!problem.empty()) {
    return r_.error(
        value.pos,
        fmt::format("{}: the value holds {}, which a header cannot carry", value.what, problem),
        "a header value is one line: look for \\r, \\n or \\0 in double quotes, "
        "or a | or > block");
  }
  // The literal text is clean: an environment variable brought it (unless none is read).
  if (!r_.resolves_env()) return Status::ok();
  auto parsed = Template::parse(t.source());
  for (const Template::Part& p : parsed->parts()) {
    if (p.kind != Template::Part::Kind::kEnv) continue;
    const char* v = std::getenv(p.text.c_str());
    problem = header_value_problem(v != nullptr ? v : "");
    if (!problem.empty()) {
      return r_.error(value.pos,
                      fmt::format("{}: environment variable {} holds {}, which a header cannot "
                                  "carry",
                                  value.what, p.text, problem));
    }
  }
  return Status::ok();
}

Status Parser::headers(const Item& item, std::vector<HeaderSpec>& out, bool allow_keys) {
  if (Status st = r_.expect_map(item); !st) return st;
  for (const auto& entry : item.node) {
    if (!entry.first.IsScalar() || entry.first.Scalar().empty()) {
      return r_.error(r_.pos(entry.first), fmt::format("{}: a header needs a name", item.what));
    }
    const std::string& name = entry.first.Scalar();
    for (const HeaderSpec& h : out) {
      if (strcasecmp(h.name.c_str(), name.c_str()) == 0) {
        return r_.error(r_.pos(entry.first),
                        fmt::format("{}: header '{}' appears twice", item.what, name));
      }
    }
    Item value = child(entry.second, r_.pos(entry.first), fmt::format("{} '{}'", item.what, name));
    std::vector<std::string> secrets;
    auto t = r_.templ(value, &secrets);
    if (!t) return t.status();
    if (Status st = check_header_value(value, *t); !st) return st;
    if (!allow_keys && !t->keys().empty()) {
      return r_.error(value.pos,
                      fmt::format("{}: context keys such as '${{{}}}' cannot be used here",
                                  value.what, t->keys().front()),
                      "headers sent with every request are fixed for the run; set a header that "
                      "depends on the context in the action's own headers");
    }
    if (allow_keys) refer(*t, value);
    out.push_back({name, std::move(*t), !secrets.empty()});
    for (std::string& s : secrets) spec_.secrets.push_back(std::move(s));
  }
  return Status::ok();
}

Status Parser::top_level(const Item& root) {
  return r_.entries(root, kTopKeys, [&](const std::string& key, const Item& v) -> Status {
    if (key == "name") {
      auto n = r_.name(v);
      if (!n) return n.status();
      spec_.name = *n;
    } else if (key == "description") {
      auto t = r_.text(v);
      if (!t) return t.status();
      spec_.description = *t;
    } else if (key == "base_url") {
      auto t = literal(v);
      if (!t) return t.status();
      spec_.base_url = *t;
      base_url_pos_ = v.pos;
      if (!spec_.base_url.starts_with("http://") && !spec_.base_url.starts_with("https://") &&
          !unresolved(spec_.base_url)) {
        return r_.error(
            v.pos, fmt::format("base_url '{}' is not an http:// or https:// URL", spec_.base_url),
            "for example http://127.0.0.1:{port} (the port of the process system)");
      }
    } else if (key == "timeout" || key == "connect_timeout") {
      auto d = r_.duration(v);
      if (!d) return d.status();
      (key == "timeout" ? spec_.timeout : spec_.connect_timeout) = *d;
    } else if (key == "headers") {
      return headers(v, spec_.headers, /*allow_keys=*/false);
    } else if (key == "body_limit") {
      auto n = r_.integer(v, 16, 1 << 20);
      if (!n) return n.status();
      spec_.body_limit = static_cast<std::size_t>(*n);
    } else if (key == "context") {
      if (Status st = r_.expect_map(v); !st) return st;
      for (const auto& entry : v.node) {
        auto n = r_.name({entry.first, r_.pos(entry.first), "context key"});
        if (!n) return n.status();
        for (const auto& [k, value] : spec_.context) {
          if (k == *n) {
            return r_.error(r_.pos(entry.first), fmt::format("context key '{}' is set twice", k));
          }
        }
        auto value = r_.value(child(entry.second, r_.pos(entry.first), "context: " + *n));
        if (!value) return value.status();
        spec_.context.emplace_back(*n, std::move(*value));
      }
    } else if (key == "state_keys") {
      return r_.elements(v, /*single_ok=*/true, [&](const Item& e) -> Status {
        auto n = r_.name(e);
        if (!n) return n.status();
        if (std::find(spec_.state_keys.begin(), spec_.state_keys.end(), *n) !=
            spec_.state_keys.end()) {
          return r_.error(e.pos, fmt::format("state key '{}' is listed twice", *n));
        }
        spec_.state_keys.push_back(*n);
        key_refs_.push_back({*n, e.pos, "state_keys"});
        return Status::ok();
      });
    } else if (key == "systems") {
      return r_.elements(v, /*single_ok=*/false, [&](const Item& e) { return system(e); });
    } else if (key == "reset") {
      return reset_hook(v);
    } else if (key == "actions") {
      if (!v.node || !v.node.IsSequence()) {
        return r_.error(v.pos, "actions must be a list of actions (- name: ...)");
      }
      return r_.elements(v, /*single_ok=*/false, [&](const Item& e) { return action(e); });
    } else if (key == "observe") {
      return r_.elements(v, /*single_ok=*/false, [&](const Item& e) { return observation(e); });
    } else if (key == "invariants") {
      return r_.elements(v, /*single_ok=*/false, [&](const Item& e) { return invariant(e); });
    }
    return Status::ok();
  });
}

std::string Parser::known_keys_hint(const std::string& key) const {
  std::vector<std::string> known;
  for (const auto& [k, v] : spec_.context) known.push_back(k);
  for (const auto& [k, action] : bound_by_) known.push_back(k);
  const std::string near = closest_word(key, known);
  if (!near.empty()) {
    for (const auto& [k, action] : bound_by_) {
      if (k == near) return fmt::format("did you mean '{}'? (bound by action '{}')", near, action);
    }
    return fmt::format("did you mean '{}'? (set in context:)", near);
  }
  if (known.empty()) {
    return "no action binds a key: add bind: {KEY: /json/pointer} to the action that creates it";
  }
  return fmt::format("the keys that are bound: {}", fmt::join(known, ", "));
}

Status Parser::check_keys() const {
  auto known = [&](const std::string& key) {
    for (const auto& [k, v] : spec_.context) {
      if (k == key) return true;
    }
    for (const auto& [k, a] : bound_by_) {
      if (k == key) return true;
    }
    return false;
  };
  for (const Ref& ref : key_refs_) {
    if (!known(ref.name)) {
      return r_.error(ref.pos,
                      fmt::format("{}: context key '{}' is never bound: no action binds it and "
                                  "context: does not set it",
                                  ref.what, ref.name),
                      known_keys_hint(ref.name));
    }
  }
  return Status::ok();
}

Status Parser::check_databases() {
  std::vector<std::string> names;
  for (const SystemSpec& s : spec_.systems) {
    if (const auto* d = std::get_if<DatabaseSpec>(&s)) names.push_back(d->name);
  }
  auto resolve = [&](const std::string& wanted, SourcePos pos,
                     const std::string& what) -> Result<std::string> {
    if (wanted.empty()) {
      if (names.size() == 1) return names[0];
      return r_.error(
          pos,
          names.empty() ? fmt::format("{} needs a database, but the model declares none", what)
                        : fmt::format("{}: which database? the model declares {}", what,
                                      fmt::join(names, ", ")),
          names.empty() ? "add a sqlite or postgres system under systems:" : "add database: NAME");
    }
    if (std::find(names.begin(), names.end(), wanted) != names.end()) return wanted;
    const std::string near = closest_word(wanted, names);
    return r_.error(pos, fmt::format("{}: no database system is named '{}'", what, wanted),
                    near.empty() ? fmt::format("the databases: {}", fmt::join(names, ", "))
                                 : fmt::format("did you mean '{}'?", near));
  };
  for (std::size_t i = 0; i < database_refs_.size(); ++i) {
    const Ref& ref = database_refs_[i];
    auto name = resolve(ref.name, ref.pos, ref.what);
    if (!name) return name.status();
    spec_.invariants[database_ref_invariant_[i]].database = *name;
  }
  for (ActionSpec& a : spec_.actions) {
    for (ActionSpec::StateSource& source : a.state_sources) {
      if (source.sql.empty()) continue;
      auto name = resolve(source.database, source.pos,
                          fmt::format("action '{}': parameter '{}'", a.name, source.param));
      if (!name) return name.status();
      source.database = *name;
    }
  }
  for (const SqlObservation& o : sql_observations_) {
    auto name = resolve(o.database, o.pos, fmt::format("observation '{}'", o.name));
    if (!name) return name.status();
    for (SystemSpec& s : spec_.systems) {
      auto* d = std::get_if<DatabaseSpec>(&s);
      if (d && d->name == *name) d->queries.emplace_back(o.name, o.sql);
    }
  }
  return Status::ok();
}

Status Parser::resolve_sqlite_paths() {
  const ProcessSpec* with_db = nullptr;
  for (const SystemSpec& s : spec_.systems) {
    const auto* p = std::get_if<ProcessSpec>(&s);
    if (p && !p->options.db.empty() && with_db == nullptr) with_db = p;
  }
  for (SystemSpec& s : spec_.systems) {
    auto* d = std::get_if<DatabaseSpec>(&s);
    if (d == nullptr || d->type != "sqlite") continue;
    if (d->path.empty() || d->path == "{db}") {
      if (with_db == nullptr) {
        return r_.error(d->pos, fmt::format("system '{}' (sqlite) has no path", d->name),
                        "give path: FILE, or db: FILE to the process system that creates it");
      }
      d->path = with_db->options.db;
    } else {
      d->path = r_.absolute(d->path);
    }
  }
  // A service given a database file that no sqlite system restores would keep every change the
  // exploration made to it: that file would be the user's, changed for good.
  for (const SystemSpec& s : spec_.systems) {
    const auto* p = std::get_if<ProcessSpec>(&s);
    if (p == nullptr || p->options.db.empty() || p->db_copy) continue;
    const bool restored =
        std::any_of(spec_.systems.begin(), spec_.systems.end(), [&](const SystemSpec& other) {
          const auto* d = std::get_if<DatabaseSpec>(&other);
          return d != nullptr && d->type == "sqlite" && d->path == p->options.db;
        });
    if (!restored) {
      return r_.error(
          p->pos,
          fmt::format("system '{}' gives its service the file {} (db:), but no sqlite system "
                      "restores it: every change the exploration made would stay in it",
                      p->name, p->options.db),
          "add a system - {type: sqlite} (its path is this db), or db_copy: true to work on a "
          "private copy of the file");
    }
  }
  return Status::ok();
}

Status Parser::finish() {
  // DSN passwords are secrets like header tokens: redacted in every report and message.
  for (const SystemSpec& system : spec_.systems) {
    const std::string& dsn = std::visit(
        [](const auto& x) -> const std::string& {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, ProcessSpec>) {
            return x.options.dsn;
          } else {
            return x.dsn;
          }
        },
        system);
    for (std::string& secret : dsn_secrets(dsn)) {
      if (std::find(spec_.secrets.begin(), spec_.secrets.end(), secret) == spec_.secrets.end()) {
        spec_.secrets.push_back(std::move(secret));
      }
    }
  }
  if (spec_.name.empty()) {
    spec_.name = std::filesystem::path(r_.file()).stem().string();
    if (spec_.name.empty()) spec_.name = "model";
  }
  if (spec_.base_url.empty()) {
    return r_.error(root_pos_, "the model has no base_url",
                    "for example base_url: http://127.0.0.1:{port}");
  }
  const bool has_process =
      std::any_of(spec_.systems.begin(), spec_.systems.end(),
                  [](const SystemSpec& s) { return std::holds_alternative<ProcessSpec>(s); });
  if (spec_.base_url.find("{port}") != std::string::npos && !has_process) {
    return r_.error(base_url_pos_, "base_url uses {port}, but no process system gives a port",
                    "declare the service under systems: with type: process, or write the port");
  }
  if (spec_.actions.empty()) {
    return r_.error(root_pos_, "the model has no actions", "add actions: - name: ... path: ...");
  }
  if (spec_.systems.empty() && !spec_.reset) {
    return r_.error(root_pos_, "nothing can bring the service back to its initial state",
                    "declare a process system (restarted), a sqlite or postgres system "
                    "(restored), or a reset: request");
  }
  std::vector<std::string> action_names;
  for (std::size_t i = 0; i < spec_.actions.size(); ++i) {
    const std::string& n = spec_.actions[i].name;
    if (std::find(action_names.begin(), action_names.end(), n) != action_names.end()) {
      return r_.error(action_pos_[i], fmt::format("two actions are named '{}'", n),
                      "action names must be unique");
    }
    action_names.push_back(n);
  }
  for (const Ref& ref : after_refs_) {
    if (std::find(action_names.begin(), action_names.end(), ref.name) == action_names.end()) {
      const std::string near = closest_word(ref.name, action_names);
      return r_.error(ref.pos, fmt::format("{}: no action is named '{}'", ref.what, ref.name),
                      near.empty() ? fmt::format("the actions: {}", fmt::join(action_names, ", "))
                                   : fmt::format("did you mean '{}'?", near));
    }
  }
  std::set<std::string> names;
  for (const InvariantSpec& inv : spec_.invariants) {
    if (!names.insert(inv.name).second) {
      return r_.error(inv.pos, fmt::format("two invariants are named '{}'", inv.name));
    }
  }
  names.clear();
  for (const ObservationSpec& o : spec_.observations) {
    if (!names.insert(o.name).second) {
      return r_.error(o.pos, fmt::format("two observations are named '{}'", o.name));
    }
  }
  for (const SqlObservation& o : sql_observations_) {
    if (!names.insert(o.name).second) {
      return r_.error(o.pos, fmt::format("two observations are named '{}'", o.name));
    }
  }
  if (Status st = check_keys(); !st) return st;
  if (Status st = resolve_sqlite_paths(); !st) return st;
  return check_databases();
}

Result<ModelSpec> Parser::run(const YAML::Node& root) {
  spec_.file = r_.file();
  spec_.list_only = !r_.resolves_env();
  if (!root || !root.IsMap()) {
    return r_.error({1, 1}, "a model file is a mapping with base_url, systems, actions, ...",
                    "see docs/model-file.md for a complete example");
  }
  root_pos_ = r_.pos(root);
  if (Status st = top_level({root, root_pos_, ""}); !st) return st;
  if (Status st = finish(); !st) return st;
  return std::move(spec_);
}

}  // namespace detail

namespace {

// `size`: "5000000 bytes".
Status model_file_too_large(const std::string& file, std::string_view size) {
  return Status::invalid(fmt::format("{}: the model file is {}; model files are limited to {} MiB",
                                     file, size, kMaxModelFileBytes >> 20));
}

}  // namespace

Result<ModelSpec> parse_model(std::string_view text, const std::string& file,
                              const std::string& base_dir, ReadOptions options) {
  if (text.size() > kMaxModelFileBytes) {
    return model_file_too_large(file, fmt::format("{} bytes", text.size()));
  }
  detail::Reader reader(file, base_dir, options.resolve_env);
  // Every string of a model ends up in JSON, which must be UTF-8.
  if (Status st = detail::check_utf8(text, reader); !st) return st;
  // Before anything expands an alias or recurses into the document.
  if (Status st = detail::check_yaml_bounds(text, reader); !st) return st;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return detail::yaml_syntax_error(e, reader);
  }
  detail::Parser parser(reader);
  return parser.run(root);
}

Result<ModelSpec> read_model_file(const std::string& path, ReadOptions options) {
  std::ifstream in(path, std::ios::binary);
  auto unreadable = [&] {
    return Status::invalid(fmt::format("cannot read model file '{}': {}", path,
                                       std::error_code(errno, std::generic_category()).message()));
  };
  if (!in) return unreadable();
  // A regular file too large is refused unread; anything else (a pipe) is read up to one byte
  // past the limit.
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxModelFileBytes)
    return model_file_too_large(path, fmt::format("{} bytes", size));
  std::string text;
  std::vector<char> chunk(64 * 1024);
  while (text.size() <= kMaxModelFileBytes && in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return unreadable();
  if (text.size() > kMaxModelFileBytes) {
    return model_file_too_large(path, fmt::format("more than {} bytes", kMaxModelFileBytes));
  }
  std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
  return parse_model(text, path, dir.string(), options);
}

}  // namespace prowl::modelfile
