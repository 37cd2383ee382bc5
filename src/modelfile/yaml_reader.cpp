#include "yaml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "json_value.hpp"
#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile {

std::string closest_word(std::string_view word, const std::vector<std::string>& known) {
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                          std::tolower(static_cast<unsigned char>(b[j - 1]));
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
        diagonal = up;
      }
    }
    return row[b.size()];
  };
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& k : known) {
    const std::size_t d = distance(word, k);
    if (d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  if (!best.empty() || word.size() < 3) return best;
  // "order" for "order_id": one is the start of the other.
  for (const std::string& k : known) {
    if (k.size() >= 3 && (k.starts_with(word) || word.starts_with(k))) return k;
  }
  return {};
}

namespace detail {

namespace {

bool plain(const YAML::Node& node) { return node.Tag() == "?"; }

bool is_null_text(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> bool_text(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

std::optional<std::int64_t> int_text(const std::string& s) {
  if (s.empty()) return std::nullopt;
  const std::size_t start = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (start == s.size() || !std::all_of(s.begin() + static_cast<std::ptrdiff_t>(start), s.end(),
                                        [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::optional<double> float_text(const std::string& s) {
  if (s.empty()) return std::nullopt;
  // Digits, one '.', an exponent: no hex, inf or nan.
  bool digit = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
      return std::nullopt;
    }
  }
  if (!digit) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string value_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "empty";
    default:
      return fmt::format("'{}'", node.Scalar());
  }
}

}  // namespace

Item child(const YAML::Node& node, SourcePos fallback, std::string what) {
  SourcePos pos = fallback;
  if (node && !node.IsNull() && node.Mark().line >= 0) {
    pos = {node.Mark().line + 1, node.Mark().column + 1};
  }
  return {node, pos, std::move(what)};
}

Reader::Reader(std::string file, std::filesystem::path base_dir, bool resolve_env)
    : file_(std::move(file)), base_dir_(std::move(base_dir)), resolve_env_(resolve_env) {}

SourcePos Reader::pos(const YAML::Node& node) const {
  if (!node || node.Mark().line < 0) return {1, 1};
  return {node.Mark().line + 1, node.Mark().column + 1};
}

Status Reader::error(SourcePos at, std::string_view message, std::string_view hint) const {
  std::string text = fmt::format("{}:{}:{}: {}", file_, at.line, at.column, message);
  if (!hint.empty()) text += fmt::format("\n  hint: {}", hint);
  return Status::invalid(std::move(text));
}

Status Reader::expect_map(const Item& item) const {
  if (item.node && item.node.IsMap()) return Status::ok();
  return error(item.pos, fmt::format("{} must be a mapping (key: value lines), not {}", item.what,
                                     value_kind(item.node)));
}

Status Reader::entries(const Item& item, std::span<const std::string_view> known,
                       const EntryFn& fn) const {
  if (Status st = expect_map(item); !st) return st;
  std::vector<std::string> known_list(known.begin(), known.end());
  std::set<std::string> seen;
  // Keys first, all of them: a typo is reported before a value it would have explained.
  for (const auto& entry : item.node) {
    const YAML::Node& key = entry.first;
    const SourcePos at = pos(key);
    if (!key.IsScalar()) return error(at, fmt::format("{}: a key must be a plain name", item.what));
    const std::string& name = key.Scalar();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const std::string where = item.what.empty() ? "at the top level" : "in " + item.what;
      const std::string near = closest_word(name, known_list);
      return error(at, fmt::format("unknown key '{}' {}", name, where),
                   near.empty() ? fmt::format("the keys here are: {}", fmt::join(known, ", "))
                                : fmt::format("did you mean '{}'?", near));
    }
    if (!seen.insert(name).second) {
      return error(at, fmt::format("key '{}' appears twice {}", name,
                                   item.what.empty() ? "at the top level" : "in " + item.what));
    }
  }
  for (const auto& entry : item.node) {
    const std::string& name = entry.first.Scalar();
    Item value = child(entry.second, pos(entry.first),
                       item.what.empty() ? name : fmt::format("{}: {}", item.what, name));
    if (Status st = fn(name, value); !st) return st;
  }
  return Status::ok();
}

Status Reader::elements(const Item& item, bool single_ok,
                        const std::function<Status(const Item&)>& fn) const {
  if (!item.node || item.node.IsNull()) return Status::ok();
  if (!item.node.IsSequence()) {
    if (single_ok) return fn(item);
    return error(item.pos,
                 fmt::format("{} must be a list, not {}", item.what, value_kind(item.node)));
  }
  for (std::size_t i = 0; i < item.node.size(); ++i) {
    if (Status st = fn(child(item.node[i], item.pos, item.what)); !st) return st;
  }
  return Status::ok();
}

Result<std::string> Reader::text(const Item& item) const {
  if (!item.node || !item.node.IsScalar()) {
    return error(item.pos, fmt::format("{} must be a single value, not {}", item.what,
                                       value_kind(item.node)));
  }
  return item.node.Scalar();
}

Result<std::string> Reader::name(const Item& item) const {
  auto t = text(item);
  if (!t) return t;
  const std::string& s = *t;
  const bool ok =
      !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
      std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
      });
  if (!ok) {
    return error(item.pos, fmt::format("{} '{}' is not a valid name", item.what, s),
                 "use letters, digits, '_', '-' and '.', starting with a letter or '_'");
  }
  return t;
}

Result<std::int64_t> Reader::integer(const Item& item, std::int64_t min, std::int64_t max) const {
  auto t = text(item);
  if (!t) return t.status();
  const auto v = int_text(*t);
  if (!v || !plain(item.node)) {
    return error(item.pos, fmt::format("{} must be an integer, not '{}'", item.what, *t));
  }
  if (*v < min || *v > max) {
    return error(item.pos, fmt::format("{} must lie in {}..{}, not {}", item.what, min, max, *v));
  }
  return *v;
}

Result<double> Reader::number(const Item& item) const {
  auto t = text(item);
  if (!t) return t.status();
  const auto v = float_text(*t);
  if (!v || !plain(item.node)) {
    return error(item.pos, fmt::format("{} must be a number, not '{}'", item.what, *t));
  }
  return *v;
}

Result<bool> Reader::boolean(const Item& item) const {
  auto t = text(item);
  if (!t) return t.status();
  const auto v = bool_text(*t);
  if (!v || !plain(item.node)) {
    return error(item.pos, fmt::format("{} must be true or false, not '{}'", item.what, *t));
  }
  return *v;
}

Result<std::chrono::milliseconds> Reader::duration(const Item& item) const {
  auto t = text(item);
  if (!t) return t.status();
  const std::string& s = *t;
  double scale = 0;
  std::string number;
  if (s.size() > 2 && s.ends_with("ms")) {
    scale = 1;
    number = s.substr(0, s.size() - 2);
  } else if (s.size() > 1 && s.ends_with("s")) {
    scale = 1000;
    number = s.substr(0, s.size() - 1);
  }
  const auto v = float_text(number);
  if (scale == 0 || !v || *v <= 0 || number[0] == '-' || number[0] == '+') {
    return error(
        item.pos,
        fmt::format("{} must be a positive duration such as 250ms or 2s, not '{}'", item.what, s),
        int_text(s) ? "give the unit: ms or s" : std::string_view{});
  }
  const double ms = *v * scale;
  if (ms < 1 || ms > 24.0 * 3600 * 1000) {
    return error(item.pos,
                 fmt::format("{} must lie between 1ms and 24 hours, not '{}'", item.what, s));
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(ms)));
}

Result<std::vector<std::string>> Reader::texts(const Item& item) const {
  std::vector<std::string> out;
  Status st = elements(item, /*single_ok=*/true, [&](const Item& e) -> Status {
    auto t = text(e);
    if (!t) return t.status();
    out.push_back(std::move(*t));
    return Status::ok();
  });
  if (!st) return st;
  return out;
}

Result<Value> Reader::value(const Item& item) const {
  if (!item.node || item.node.IsNull()) return Value(std::monostate{});
  auto t = text(item);
  if (!t) return t.status();
  if (!plain(item.node)) return Value(*t);
  if (is_null_text(*t)) return Value(std::monostate{});
  if (auto b = bool_text(*t)) return Value(*b);
  if (auto i = int_text(*t)) return Value(*i);
  if (auto d = float_text(*t)) return Value(*d);
  return Value(*t);
}

Result<Template> Reader::templ(const Item& item, std::vector<std::string>* secrets, Raw raw) const {
  auto t = text(item);
  if (!t) return t.status();
  auto parsed = Template::parse(*t);
  if (!parsed) return error(item.pos, fmt::format("{}: {}", item.what, parsed.status().message()));
  if (const std::string* key = parsed->first_raw(); key != nullptr && raw == Raw::kRefused) {
    return error(
        item.pos,
        fmt::format("{}: ${{raw:{}}} can only be used in a path or a query value", item.what, *key),
        fmt::format("${{raw:KEY}} puts a value into a URL without percent-encoding it; "
                    "here write ${{{}}}",
                    *key));
  }
  if (!resolve_env_) return parsed;
  std::vector<std::string> values;
  auto missing = parsed->resolve_env([&](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    values.emplace_back(v);
    return std::string(v);
  });
  if (missing) {
    return error(item.pos,
                 fmt::format("{}: environment variable {} is not set", item.what, *missing),
                 fmt::format("export {}=... before running prowl", *missing));
  }
  if (secrets != nullptr) {
    for (std::string& v : values) {
      if (!v.empty()) secrets->push_back(std::move(v));
    }
  }
  return parsed;
}

Status Reader::json_node(const Item& item, const std::string& pointer, nlohmann::ordered_json& out,
                         std::vector<JsonTemplate::Slot>& slots) const {
  const YAML::Node& node = item.node;
  if (!node || node.IsNull()) {
    out = nullptr;
    return Status::ok();
  }
  if (node.IsMap()) {
    out = nlohmann::ordered_json::object();
    std::set<std::string> seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        return error(pos(entry.first),
                     fmt::format("{}: an object key must be a string", item.what));
      }
      const std::string& key = entry.first.Scalar();
      if (!seen.insert(key).second) {
        return error(pos(entry.first), fmt::format("{}: key '{}' appears twice", item.what, key));
      }
      nlohmann::ordered_json value;
      Item sub = child(entry.second, pos(entry.first), item.what);
      if (Status st = json_node(sub, pointer + "/" + pointer_token(key), value, slots); !st) {
        return st;
      }
      out[key] = std::move(value);
    }
    return Status::ok();
  }
  if (node.IsSequence()) {
    out = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < node.size(); ++i) {
      nlohmann::ordered_json value;
      Item sub = child(node[i], item.pos, item.what);
      if (Status st = json_node(sub, pointer + "/" + std::to_string(i), value, slots); !st) {
        return st;
      }
      out.push_back(std::move(value));
    }
    return Status::ok();
  }
  auto v = value(item);
  if (!v) return v.status();
  if (!std::holds_alternative<std::string>(*v)) {
    out = std::visit(
        [](const auto& x) -> nlohmann::ordered_json {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            return nullptr;
          } else {
            return x;
          }
        },
        *v);
    return Status::ok();
  }
  auto t = templ(item);
  if (!t) return t.status();
  if (t->is_literal()) {
    std::string s;
    for (const auto& p : t->parts()) s += p.text;
    out = std::move(s);
  } else {
    out = t->source();
    slots.push_back({pointer, std::move(*t)});
  }
  return Status::ok();
}

Result<JsonTemplate> Reader::json(const Item& item) const {
  nlohmann::ordered_json doc;
  std::vector<JsonTemplate::Slot> slots;
  if (Status st = json_node(item, "", doc, slots); !st) return st;
  return JsonTemplate(doc.dump(), std::move(slots));
}

std::string Reader::absolute(const std::string& path) const {
  if (path.empty()) return path;
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (base_dir_ / p).lexically_normal().string();
}

}  // namespace detail
}  // namespace prowl::modelfile
