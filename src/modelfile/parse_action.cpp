#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "parser.hpp"

namespace prowl::modelfile::detail {

namespace {

constexpr std::string_view kActionKeys[] = {
    "name", "description", "method",       "path",        "query",  "headers",
    "body", "timeout",     "ok",           "rejected",    "bind",   "unbind",
    "when", "after",       "max_per_path", "max_per_run", "weight", "params"};

constexpr std::string_view kHttpMethods[] = {"GET",    "POST", "PUT",    "PATCH",
                                             "DELETE", "HEAD", "OPTIONS"};

constexpr std::string_view kParamsHint =
    "write params: {NAME: {one_of: [1, 2, 3]}}, {NAME: {int: [LO, HI]}}, {NAME: {from_sql: "
    "SELECT ...}} or {NAME: {from_context: [KEY, ...]}}";
constexpr std::string_view kStateDomainKeys[] = {"from_sql", "from_context", "database", "places"};

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

}  // namespace

void Parser::refer(const Template& t, const Item& item) {
  for (std::string& k : t.keys()) key_refs_.push_back({std::move(k), item.pos, item.what});
}

void Parser::refer(const JsonTemplate& t, const Item& item) {
  for (std::string& k : t.keys()) key_refs_.push_back({std::move(k), item.pos, item.what});
}

Status Parser::pointer(const Item& item, std::string& out) const {
  auto t = r_.text(item);
  if (!t) return t.status();
  const std::string& p = *t;
  bool valid = p.empty() || p[0] == '/';
  for (std::size_t i = 0; valid && i < p.size(); ++i) {
    if (p[i] == '~') valid = i + 1 < p.size() && (p[i + 1] == '0' || p[i + 1] == '1');
  }
  if (!valid) {
    return r_.error(item.pos, fmt::format("{} '{}' is not a JSON Pointer", item.what, p),
                    "a JSON Pointer starts with '/', as in /id or /items/0/price (\"\" is the "
                    "whole body; write ~1 for '/' and ~0 for '~' in a key)");
  }
  out = p;
  return Status::ok();
}

Status Parser::status_set(const Item& item, StatusSet& out, bool allow_5xx) const {
  return r_.elements(item, /*single_ok=*/true, [&](const Item& e) -> Status {
    auto t = r_.text(e);
    if (!t) return t.status();
    const std::string& s = *t;
    int code = 0;
    int cls = 0;
    if (s.size() == 3 && s[0] >= '1' && s[0] <= '5' && (s[1] == 'x' || s[1] == 'X') &&
        (s[2] == 'x' || s[2] == 'X')) {
      cls = s[0] - '0';
    } else if (s.size() == 3 && std::all_of(s.begin(), s.end(), ::isdigit) && s[0] >= '1' &&
               s[0] <= '5') {
      code = std::stoi(s);
    } else {
      return r_.error(e.pos, fmt::format("{}: '{}' is not an HTTP status", e.what, s),
                      "write a status such as 201, or a class such as 4xx");
    }
    if (!allow_5xx && (cls == 5 || code >= 500)) {
      return r_.error(
          e.pos, fmt::format("{}: {} cannot be listed: a 5xx answer is always an error", e.what, s),
          "an unlisted status makes the step an action_error finding; to report 5xx "
          "answers under a name and severity of your own, add an invariant with "
          "response: no_5xx");
    }
    if (code != 0) {
      if (std::find(out.codes.begin(), out.codes.end(), code) != out.codes.end()) {
        return r_.error(e.pos, fmt::format("{}: {} is listed twice", e.what, code));
      }
      out.codes.push_back(code);
    } else {
      if (std::find(out.classes.begin(), out.classes.end(), cls) != out.classes.end()) {
        return r_.error(e.pos, fmt::format("{}: {}xx is listed twice", e.what, cls));
      }
      out.classes.push_back(cls);
    }
    return Status::ok();
  });
}

Status Parser::conditions(const Item& item, std::vector<Condition>& out) {
  static constexpr std::string_view kConditionKeys[] = {"bound", "unbound", "equals", "not_equals"};
  return r_.entries(item, kConditionKeys, [&](const std::string& key, const Item& v) -> Status {
    if (key == "bound" || key == "unbound") {
      const auto kind = key == "bound" ? Condition::Kind::kBound : Condition::Kind::kUnbound;
      return r_.elements(v, /*single_ok=*/true, [&](const Item& e) -> Status {
        auto n = r_.name(e);
        if (!n) return n.status();
        key_refs_.push_back({*n, e.pos, e.what});
        out.push_back({kind, *n, {}});
        return Status::ok();
      });
    }
    const auto kind = key == "equals" ? Condition::Kind::kEquals : Condition::Kind::kNotEquals;
    if (Status st = r_.expect_map(v); !st) return st;
    for (const auto& entry : v.node) {
      auto n = r_.name({entry.first, r_.pos(entry.first), v.what + " key"});
      if (!n) return n.status();
      key_refs_.push_back({*n, r_.pos(entry.first), v.what});
      auto value = r_.value(child(entry.second, r_.pos(entry.first), v.what + ": " + *n));
      if (!value) return value.status();
      out.push_back({kind, *n, std::move(*value)});
    }
    return Status::ok();
  });
}

Status Parser::request_field(const std::string& key, const Item& v, RequestSpec& request) {
  if (key == "method") {
    auto t = r_.text(v);
    if (!t) return t.status();
    request.method = upper(*t);
    if (std::find(std::begin(kHttpMethods), std::end(kHttpMethods), request.method) ==
        std::end(kHttpMethods)) {
      return r_.error(v.pos, fmt::format("{} '{}' is not an HTTP method", v.what, *t),
                      fmt::format("one of: {}", fmt::join(kHttpMethods, ", ")));
    }
  } else if (key == "path") {
    auto t = r_.templ(v, nullptr, Reader::Raw::kAllowed);
    if (!t) return t.status();
    refer(*t, v);
    request.path = std::move(*t);
  } else if (key == "query") {
    if (Status st = r_.expect_map(v); !st) return st;
    for (const auto& entry : v.node) {
      const std::string name = entry.first.Scalar();
      Item value = child(entry.second, r_.pos(entry.first), fmt::format("{} {}", v.what, name));
      auto t = r_.templ(value, nullptr, Reader::Raw::kAllowed);
      if (!t) return t.status();
      refer(*t, value);
      request.query.emplace_back(name, std::move(*t));
    }
  } else if (key == "headers") {
    return headers(v, request.headers, /*allow_keys=*/true);
  } else if (key == "body") {
    auto j = r_.json(v);
    if (!j) return j.status();
    refer(*j, v);
    request.body = std::move(*j);
  } else if (key == "timeout") {
    auto d = r_.duration(v);
    if (!d) return d.status();
    request.timeout = *d;
  }
  return Status::ok();
}

// What an action's keys said beyond its spec, for the rules across its keys.
struct Parser::ActionKeys {
  bool has_path = false;
  bool has_ok = false;
};

Status Parser::action(const Item& item) {
  if (Status st = r_.expect_map({item.node, item.pos, "an action"}); !st) return st;
  const YAML::Node name_node = item.node["name"];
  if (!name_node) return r_.error(item.pos, "an action needs a name", "add name: NAME");
  auto name = r_.name(child(name_node, item.pos, "action name"));
  if (!name) return name.status();
  ActionSpec a;
  a.name = *name;
  a.pos = item.pos;
  ActionKeys seen;
  const std::size_t first_ref = key_refs_.size();
  Status st = r_.entries(
      {item.node, item.pos, fmt::format("action '{}'", a.name)}, kActionKeys,
      [&](const std::string& key, const Item& v) { return action_field(key, v, a, seen); });
  if (!st) return st;
  // The action's own parameters are bound wherever it reads them.
  key_refs_.erase(
      std::remove_if(key_refs_.begin() + static_cast<std::ptrdiff_t>(first_ref), key_refs_.end(),
                     [&](const Ref& ref) {
                       return std::any_of(a.params.begin(), a.params.end(),
                                          [&](const auto& p) { return p.first == ref.name; });
                     }),
      key_refs_.end());
  if (!seen.has_path) {
    return r_.error(item.pos, fmt::format("action '{}' has no path", a.name),
                    "add path: /the/endpoint (appended to base_url)");
  }
  if (!seen.has_ok) a.ok.classes.push_back(2);
  if (Status s = ok_and_rejected_differ(item, a); !s) return s;
  action_pos_.push_back(r_.pos(name_node));
  spec_.actions.push_back(std::move(a));
  return Status::ok();
}

Status Parser::action_field(const std::string& key, const Item& v, ActionSpec& a,
                            ActionKeys& seen) {
  if (key == "name") return Status::ok();
  if (key == "method" || key == "path" || key == "query" || key == "headers" || key == "body" ||
      key == "timeout") {
    seen.has_path = seen.has_path || key == "path";
    return request_field(key, v, a.request);
  }
  if (key == "description") {
    auto t = r_.text(v);
    if (!t) return t.status();
    a.description = *t;
  } else if (key == "ok" || key == "rejected") {
    seen.has_ok = seen.has_ok || key == "ok";
    return status_set(v, key == "ok" ? a.ok : a.rejected, /*allow_5xx=*/false);
  } else if (key == "bind") {
    return bindings(v, a);
  } else if (key == "unbind") {
    return names(v, key_refs_, a.unbind);
  } else if (key == "when") {
    return conditions(v, a.when);
  } else if (key == "after") {
    return names(v, after_refs_, a.after);
  } else if (key == "max_per_path" || key == "max_per_run") {
    auto n = r_.integer(v, 1, 1'000'000'000);
    if (!n) return n.status();
    (key == "max_per_path" ? a.max_per_path : a.max_per_run) = static_cast<std::uint32_t>(*n);
  } else if (key == "params") {
    return params(v, a);
  } else if (key == "weight") {
    auto w = r_.number(v);
    if (!w) return w.status();
    if (!(*w > 0)) return r_.error(v.pos, fmt::format("{} must be > 0, not {}", v.what, *w));
    a.weight = *w;
  }
  return Status::ok();
}

// bind: {KEY: POINTER, ...}: the context keys the action's answer binds.
Status Parser::bindings(const Item& v, ActionSpec& a) {
  if (Status e = r_.expect_map(v); !e) return e;
  for (const auto& entry : v.node) {
    auto k = r_.name({entry.first, r_.pos(entry.first), v.what + " key"});
    if (!k) return k.status();
    Binding b{*k, {}};
    if (Status p = pointer(
            child(entry.second, r_.pos(entry.first), fmt::format("{} {}", v.what, *k)), b.pointer);
        !p) {
      return p;
    }
    bound_by_.emplace_back(*k, a.name);
    a.bind.push_back(std::move(b));
  }
  return Status::ok();
}

// params: {NAME: {one_of: [V, ...]} | {int: [LO, HI]}, ...}
Status Parser::params(const Item& v, ActionSpec& a) {
  if (Status e = r_.expect_map(v); !e) return e;
  std::size_t combinations = 1;
  for (const auto& entry : v.node) {
    auto k = r_.name({entry.first, r_.pos(entry.first), v.what + " key"});
    if (!k) return k.status();
    const Item d = child(entry.second, r_.pos(entry.first), fmt::format("{} {}", v.what, *k));
    for (const auto& [existing, ignored] : a.params) {
      if (existing == *k) {
        return r_.error(r_.pos(entry.first),
                        fmt::format("{}: parameter '{}' is declared twice", v.what, *k));
      }
    }
    ActionSpec::StateSource source;
    auto values = domain(d, source);
    if (!values) return values.status();
    if (values->slots > 0) {
      source.param = *k;
      for (const std::string& key : source.keys) key_refs_.push_back({key, source.pos, d.what});
      a.state_sources.push_back(std::move(source));
    }
    combinations *= values->values.size();
    if (combinations > kMaxCombinations) {
      return r_.error(
          d.pos,
          fmt::format("action '{}': its parameters make more than 65536 combinations", a.name),
          "give the parameters fewer values");
    }
    a.params.emplace_back(*k, std::move(*values));
  }
  if (a.params.empty()) return r_.error(v.pos, fmt::format("{} is empty", v.what), kParamsHint);
  return Status::ok();
}

Result<Domain> Parser::state_domain(const Item& v, ActionSpec::StateSource& source) const {
  std::int64_t places = 0;  // not given: 8 for from_sql:, one per key for from_context:
  bool sql = false;
  bool context = false;
  source.pos = v.pos;
  Status st = r_.entries(v, kStateDomainKeys, [&](const std::string& key, const Item& e) -> Status {
    if (key == "from_sql") {
      auto text = r_.text(e);
      if (!text) return text.status();
      if (text->empty()) return r_.error(e.pos, fmt::format("{} is empty", e.what), kParamsHint);
      source.sql = *text;
      sql = true;
    } else if (key == "from_context") {
      context = true;
      Status st = r_.elements(e, /*single_ok=*/true, [&](const Item& k) -> Status {
        auto name = r_.name(k);
        if (!name) return name.status();
        source.keys.push_back(*name);
        return Status::ok();
      });
      if (st && source.keys.empty()) {
        return r_.error(e.pos, fmt::format("{} lists no context key", e.what),
                        "write from_context: [KEY, ...] with the keys whose values it takes");
      }
      return st;
    } else if (key == "database") {
      auto name = r_.name(e);
      if (!name) return name.status();
      source.database = *name;
    } else {
      auto n = r_.integer(e, 1, 256);
      if (!n) return n.status();
      places = *n;
    }
    return Status::ok();
  });
  if (!st) return st;
  if (sql && context) {
    return r_.error(v.pos, fmt::format("{} has both from_sql: and from_context:", v.what),
                    "give each parameter one source of values");
  }
  if (context && !source.database.empty()) {
    return r_.error(v.pos,
                    fmt::format("{}: database: goes with from_sql:, not from_context:", v.what));
  }
  if (places == 0) places = sql ? 8 : static_cast<std::int64_t>(source.keys.size());
  // The places; HttpModel connects them to the state's values.
  Domain d;
  for (std::int64_t i = 0; i < places; ++i) d.values.emplace_back(i);
  d.slots = static_cast<std::size_t>(places);
  d.source = sql ? "from_sql" : "from_context";
  return d;
}

Result<Domain> Parser::domain(const Item& v, ActionSpec::StateSource& source) const {
  if (Status e = r_.expect_map(v); !e)
    return r_.error(v.pos, fmt::format("{} is not a domain", v.what), kParamsHint);
  for (const auto& entry : v.node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
    if (key == "from_sql" || key == "from_context") return state_domain(v, source);
  }
  if (v.node.size() != 1) {
    return r_.error(
        v.pos,
        fmt::format("{} needs exactly one of one_of:, int:, from_sql: or from_context:", v.what),
        kParamsHint);
  }
  auto key = r_.name({v.node.begin()->first, r_.pos(v.node.begin()->first), v.what + " key"});
  if (!key) return key.status();
  const std::string kind = *key;
  const Item list = child(v.node.begin()->second, r_.pos(v.node.begin()->first),
                          fmt::format("{} {}", v.what, kind));
  Domain d;
  if (kind == "int") {
    if (!list.node.IsSequence() || list.node.size() != 2) {
      return r_.error(list.pos, fmt::format("{} is not [LO, HI]", list.what), kParamsHint);
    }
    auto lo =
        r_.integer(child(list.node[0], list.pos, list.what + " LO"), -1'000'000'000, 1'000'000'000);
    if (!lo) return lo.status();
    auto hi = r_.integer(child(list.node[1], list.pos, list.what + " HI"), *lo, *lo + 65535);
    if (!hi) return hi.status();
    return range(*lo, *hi);
  }
  if (kind != "one_of") {
    return r_.error(v.pos, fmt::format("{}: unknown domain '{}'", v.what, kind), kParamsHint);
  }
  Status st = r_.elements(list, /*single_ok=*/false, [&](const Item& e) -> Status {
    auto value = r_.value(e);
    if (!value) return value.status();
    ParamValue p;
    if (const auto* n = std::get_if<std::int64_t>(&*value)) {
      p = *n;
    } else if (const auto* t = std::get_if<std::string>(&*value)) {
      p = *t;
    } else {
      return r_.error(e.pos, fmt::format("{}: a value is a whole number or a string", e.what),
                      "quote other values to make them strings");
    }
    // 1 and "1" would name the same action.
    if (std::any_of(d.values.begin(), d.values.end(),
                    [&](const ParamValue& q) { return render(q) == render(p); })) {
      return r_.error(e.pos, fmt::format("{}: {} is listed twice", list.what, render(p)));
    }
    d.values.push_back(std::move(p));
    return Status::ok();
  });
  if (!st) return st;
  if (d.values.empty())
    return r_.error(list.pos, fmt::format("{} is empty", list.what), kParamsHint);
  return d;
}

Status Parser::names(const Item& v, std::vector<Ref>& refs, std::vector<std::string>& out) {
  return r_.elements(v, /*single_ok=*/true, [&](const Item& e) -> Status {
    auto n = r_.name(e);
    if (!n) return n.status();
    refs.push_back({*n, e.pos, e.what});
    out.push_back(*n);
    return Status::ok();
  });
}

Status Parser::ok_and_rejected_differ(const Item& item, const ActionSpec& a) const {
  for (int code : a.ok.codes) {
    if (std::find(a.rejected.codes.begin(), a.rejected.codes.end(), code) !=
        a.rejected.codes.end()) {
      return r_.error(item.pos,
                      fmt::format("action '{}': {} is both ok and rejected", a.name, code));
    }
  }
  for (int cls : a.ok.classes) {
    if (std::find(a.rejected.classes.begin(), a.rejected.classes.end(), cls) !=
        a.rejected.classes.end()) {
      return r_.error(item.pos,
                      fmt::format("action '{}': {}xx is both ok and rejected", a.name, cls));
    }
  }
  return Status::ok();
}

}  // namespace prowl::modelfile::detail
