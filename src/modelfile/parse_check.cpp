#include <algorithm>

#include <fmt/format.h>

#include "parser.hpp"
#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile::detail {

namespace {

constexpr std::string_view kObservationKeys[] = {"name", "get", "pointer", "sql", "database"};
constexpr std::string_view kInvariantKeys[] = {"name",   "description", "severity", "timing",
                                               "when",   "sql",         "database", "get",
                                               "status", "checks",      "response"};
constexpr std::string_view kCheckKeys[] = {"pointer", "equals",       "not_equals", "less_than",
                                           "at_most", "greater_than", "at_least",   "exists"};

struct OpName {
  std::string_view key;
  JsonCheck::Op op;
};
constexpr OpName kOps[] = {
    {"equals", JsonCheck::Op::kEquals},        {"not_equals", JsonCheck::Op::kNotEquals},
    {"less_than", JsonCheck::Op::kLess},       {"at_most", JsonCheck::Op::kAtMost},
    {"greater_than", JsonCheck::Op::kGreater}, {"at_least", JsonCheck::Op::kAtLeast},
    {"exists", JsonCheck::Op::kExists}};

}  // namespace

Status Parser::observation(const Item& item) {
  if (Status st = r_.expect_map({item.node, item.pos, "an observation"}); !st) return st;
  const YAML::Node name_node = item.node["name"];
  if (!name_node) return r_.error(item.pos, "an observation needs a name", "add name: NAME");
  auto name = r_.name(child(name_node, item.pos, "observation name"));
  if (!name) return name.status();
  ObservationSpec o;
  o.name = *name;
  o.pos = item.pos;
  std::string sql;
  std::string database;
  bool has_get = false;
  bool has_sql = false;
  bool has_pointer = false;
  Status st = r_.entries({item.node, item.pos, fmt::format("observation '{}'", o.name)},
                         kObservationKeys, [&](const std::string& key, const Item& v) -> Status {
                           if (key == "get") {
                             has_get = true;
                             auto t = r_.templ(v, nullptr, Reader::Raw::kAllowed);
                             if (!t) return t.status();
                             refer(*t, v);
                             o.path = std::move(*t);
                           } else if (key == "pointer") {
                             has_pointer = true;
                             return pointer(v, o.pointer);
                           } else if (key == "sql") {
                             has_sql = true;
                             auto t = literal(v);
                             if (!t) return t.status();
                             sql = *t;
                           } else if (key == "database") {
                             auto n = r_.name(v);
                             if (!n) return n.status();
                             database = *n;
                           }
                           return Status::ok();
                         });
  if (!st) return st;
  if (has_get == has_sql) {
    return r_.error(
        item.pos,
        fmt::format("observation '{}' needs either get: PATH or sql: SELECT ...", o.name));
  }
  if (has_sql) {
    if (has_pointer) {
      return r_.error(item.pos,
                      fmt::format("observation '{}': pointer applies to get:, not sql:", o.name));
    }
    sql_observations_.push_back({o.name, database, sql, item.pos});
    return Status::ok();
  }
  if (!database.empty()) {
    return r_.error(item.pos,
                    fmt::format("observation '{}': database applies to sql:, not get:", o.name));
  }
  spec_.observations.push_back(std::move(o));
  return Status::ok();
}

Status Parser::json_check(const Item& item, JsonCheck& out) {
  bool has_pointer = false;
  int ops = 0;
  Status st = r_.entries(item, kCheckKeys, [&](const std::string& key, const Item& v) -> Status {
    if (key == "pointer") {
      has_pointer = true;
      return pointer(v, out.pointer);
    }
    ++ops;
    for (const OpName& o : kOps) {
      if (o.key == key) out.op = o.op;
    }
    if (out.op == JsonCheck::Op::kExists) {
      auto b = r_.boolean(v);
      if (!b) return b.status();
      out.exists = *b;
      return Status::ok();
    }
    // {pointer: /other}: a value of the same body.
    if (v.node && v.node.IsMap() && v.node.size() == 1 && v.node["pointer"]) {
      return pointer(child(v.node["pointer"], v.pos, v.what + " pointer"), out.other_pointer);
    }
    auto j = r_.json(v);
    if (!j) return j.status();
    refer(*j, v);
    out.value = std::move(*j);
    return Status::ok();
  });
  if (!st) return st;
  if (!has_pointer) return r_.error(item.pos, fmt::format("{} needs a pointer", item.what));
  if (ops != 1) {
    return r_.error(item.pos,
                    fmt::format("{} needs exactly one comparison: equals, not_equals, less_than, "
                                "at_most, greater_than, at_least or exists",
                                item.what));
  }
  return Status::ok();
}

Status Parser::response_rule(const Item& item, ResponseRule& out) const {
  auto t = r_.text(item);
  if (!t) return t.status();
  if (*t == "no_5xx") {
    out.kind = ResponseRule::Kind::kNo5xx;
  } else if (*t == "json") {
    out.kind = ResponseRule::Kind::kJson;
  } else {
    const std::string near = closest_word(*t, {"no_5xx", "json"});
    return r_.error(
        item.pos, fmt::format("{}: unknown response rule '{}'", item.what, *t),
        near.empty() ? "the rules: no_5xx, json" : fmt::format("did you mean '{}'?", near));
  }
  return Status::ok();
}

// What an invariant's keys said beyond its spec, for the rules across its keys.
struct Parser::InvariantKeys {
  int kinds = 0;  // sql:, get: and response: given
  bool has_status = false;
  bool has_checks = false;
  bool has_timing = false;
  Ref database;
};

Status Parser::invariant(const Item& item) {
  if (Status st = r_.expect_map({item.node, item.pos, "an invariant"}); !st) return st;
  const YAML::Node name_node = item.node["name"];
  if (!name_node) return r_.error(item.pos, "an invariant needs a name", "add name: NAME");
  auto name = r_.name(child(name_node, item.pos, "invariant name"));
  if (!name) return name.status();
  InvariantSpec inv;
  inv.name = *name;
  inv.pos = item.pos;
  InvariantKeys seen;
  seen.database = {"", item.pos, fmt::format("invariant '{}'", inv.name)};
  Status st = r_.entries(
      {item.node, item.pos, fmt::format("invariant '{}'", inv.name)}, kInvariantKeys,
      [&](const std::string& key, const Item& v) { return invariant_field(key, v, inv, seen); });
  if (!st) return st;
  if (Status s = invariant_keys_fit(item, inv, seen); !s) return s;
  if (inv.kind == InvariantSpec::Kind::kHttp && !seen.has_status) inv.status.classes.push_back(2);
  if (inv.kind == InvariantSpec::Kind::kSql) {
    database_refs_.push_back(seen.database);
    database_ref_invariant_.push_back(spec_.invariants.size());
  }
  spec_.invariants.push_back(std::move(inv));
  return Status::ok();
}

Status Parser::invariant_field(const std::string& key, const Item& v, InvariantSpec& inv,
                               InvariantKeys& seen) {
  if (key == "description") {
    auto t = r_.text(v);
    if (!t) return t.status();
    inv.description = *t;
  } else if (key == "severity") {
    return invariant_severity(v, inv);
  } else if (key == "timing") {
    seen.has_timing = true;
    return invariant_timing(v, inv);
  } else if (key == "when") {
    return conditions(v, inv.when);
  } else if (key == "sql" || key == "get" || key == "response") {
    ++seen.kinds;
    return invariant_kind(key, v, inv);
  } else if (key == "database") {
    auto n = r_.name(v);
    if (!n) return n.status();
    seen.database.name = *n;
    seen.database.pos = v.pos;
  } else if (key == "status") {
    seen.has_status = true;
    return status_set(v, inv.status, /*allow_5xx=*/true);
  } else if (key == "checks") {
    seen.has_checks = true;
    return invariant_checks(v, inv);
  }
  return Status::ok();
}

Status Parser::invariant_severity(const Item& v, InvariantSpec& inv) const {
  auto t = r_.text(v);
  if (!t) return t.status();
  auto s = parse_severity(*t);
  if (!s) {
    return r_.error(v.pos, fmt::format("{} '{}' is not a severity", v.what, *t),
                    "one of: critical, high, medium, low");
  }
  inv.severity = *s;
  return Status::ok();
}

Status Parser::invariant_timing(const Item& v, InvariantSpec& inv) const {
  auto t = r_.text(v);
  if (!t) return t.status();
  if (*t == "before") {
    inv.timing = Timing::kBefore;
  } else if (*t == "after") {
    inv.timing = Timing::kAfter;
  } else if (*t == "both") {
    inv.timing = Timing::kBoth;
  } else {
    return r_.error(v.pos, fmt::format("{} '{}' is not a timing", v.what, *t),
                    "one of: before, after, both");
  }
  return Status::ok();
}

// sql:, get: or response:, what the invariant checks.
Status Parser::invariant_kind(const std::string& key, const Item& v, InvariantSpec& inv) {
  if (key == "response") {
    inv.kind = InvariantSpec::Kind::kResponse;
    return response_rule(v, inv.rule);
  }
  const bool sql = key == "sql";
  inv.kind = sql ? InvariantSpec::Kind::kSql : InvariantSpec::Kind::kHttp;
  auto t = r_.templ(v, nullptr, sql ? Reader::Raw::kRefused : Reader::Raw::kAllowed);
  if (!t) return t.status();
  refer(*t, v);
  (sql ? inv.sql : inv.path) = std::move(*t);
  return Status::ok();
}

Status Parser::invariant_checks(const Item& v, InvariantSpec& inv) {
  return r_.elements(v, /*single_ok=*/false, [&](const Item& e) -> Status {
    JsonCheck c;
    Item check{e.node, e.pos, fmt::format("invariant '{}': check", inv.name)};
    if (Status s = json_check(check, c); !s) return s;
    inv.checks.push_back(std::move(c));
    return Status::ok();
  });
}

// The rules across an invariant's keys: one kind, and the keys that belong to another kind.
Status Parser::invariant_keys_fit(const Item& item, const InvariantSpec& inv,
                                  const InvariantKeys& seen) const {
  if (seen.kinds != 1) {
    return r_.error(
        item.pos,
        fmt::format("invariant '{}' needs exactly one of sql:, get: or response:", inv.name),
        "sql: SELECT the offending rows; get: PATH with checks:; response: no_5xx");
  }
  if (inv.kind != InvariantSpec::Kind::kHttp && (seen.has_status || seen.has_checks)) {
    return r_.error(item.pos,
                    fmt::format("invariant '{}': status and checks apply to get:", inv.name));
  }
  if (inv.kind != InvariantSpec::Kind::kSql && !seen.database.name.empty()) {
    return r_.error(seen.database.pos,
                    fmt::format("invariant '{}': database applies to sql:", inv.name));
  }
  if (inv.kind != InvariantSpec::Kind::kResponse) return Status::ok();
  if (seen.has_timing && inv.timing != Timing::kAfter) {
    return r_.error(item.pos,
                    fmt::format("invariant '{}': a response rule is checked after each step; "
                                "its timing can only be after",
                                inv.name));
  }
  if (!inv.when.empty()) {
    return r_.error(item.pos,
                    fmt::format("invariant '{}': a response rule applies to every step; it "
                                "takes no when:",
                                inv.name));
  }
  return Status::ok();
}

}  // namespace prowl::modelfile::detail
