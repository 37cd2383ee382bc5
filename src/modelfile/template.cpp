#include "prowl/modelfile/template.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_value.hpp"

namespace prowl::modelfile {

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}
bool is_env_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_key(const Template::Part& p) {
  return p.kind == Template::Part::Kind::kKey || p.kind == Template::Part::Kind::kRaw;
}

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

void append_text(std::vector<Template::Part>& parts, std::string_view text) {
  if (text.empty()) return;
  if (!parts.empty() && parts.back().kind == Template::Part::Kind::kText) {
    parts.back().text += text;
  } else {
    parts.push_back({Template::Part::Kind::kText, std::string(text)});
  }
}

}  // namespace

Result<Template> Template::parse(std::string_view text) {
  Template t;
  t.source_ = std::string(text);
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t dollar = text.find('$', i);
    if (dollar == std::string_view::npos) {
      append_text(t.parts_, text.substr(i));
      break;
    }
    append_text(t.parts_, text.substr(i, dollar - i));
    if (text.substr(dollar, 3) == "$${") {
      append_text(t.parts_, "${");
      i = dollar + 3;
      continue;
    }
    if (text.substr(dollar, 2) != "${") {
      append_text(t.parts_, "$");
      i = dollar + 1;
      continue;
    }
    const std::size_t close = text.find('}', dollar + 2);
    if (close == std::string_view::npos) {
      return Status::invalid(fmt::format("'${{' without a closing '}}' in \"{}\"", text));
    }
    std::string_view name = text.substr(dollar + 2, close - dollar - 2);
    Part part{Part::Kind::kKey, {}};
    if (name.substr(0, 4) == "env:") {
      part.kind = Part::Kind::kEnv;
      name.remove_prefix(4);
    } else if (name.substr(0, 4) == "raw:") {
      part.kind = Part::Kind::kRaw;
      name.remove_prefix(4);
    }
    if (name.empty()) {
      return Status::invalid(fmt::format("empty reference '${{{}}}' in \"{}\"",
                                         text.substr(dollar + 2, close - dollar - 2), text));
    }
    const bool env = part.kind == Part::Kind::kEnv;
    const bool valid = is_name_start(name[0]) && std::all_of(name.begin(), name.end(), [&](char c) {
                         return env ? is_env_char(c) : is_key_char(c);
                       });
    if (!valid) {
      return Status::invalid(fmt::format(
          "'{}' in \"{}\" is not a {}", text.substr(dollar, close - dollar + 1), text,
          env ? "valid environment variable name (letters, digits and '_')"
              : "context key (letters, digits, '_', '-' and '.', starting with a letter or '_')"));
    }
    part.text = std::string(name);
    t.parts_.push_back(std::move(part));
    i = close + 1;
  }
  return t;
}

Template Template::literal(std::string text) {
  Template t;
  t.source_ = text;
  append_text(t.parts_, text);
  return t;
}

bool Template::is_literal() const {
  return std::all_of(parts_.begin(), parts_.end(),
                     [](const Part& p) { return p.kind == Part::Kind::kText; });
}

bool Template::has_env() const {
  return std::any_of(parts_.begin(), parts_.end(),
                     [](const Part& p) { return p.kind == Part::Kind::kEnv; });
}

const std::string* Template::first_raw() const {
  for (const Part& p : parts_) {
    if (p.kind == Part::Kind::kRaw) return &p.text;
  }
  return nullptr;
}

std::optional<std::string> Template::single_key() const {
  if (parts_.size() == 1 && parts_[0].kind == Part::Kind::kKey) return parts_[0].text;
  return std::nullopt;
}

std::vector<std::string> Template::keys() const {
  std::vector<std::string> out;
  for (const Part& p : parts_) {
    if (is_key(p) && std::find(out.begin(), out.end(), p.text) == out.end()) {
      out.push_back(p.text);
    }
  }
  return out;
}

const std::string* Template::missing(const Context& ctx) const {
  for (const Part& p : parts_) {
    if (is_key(p) && !ctx.has(p.text)) return &p.text;
  }
  return nullptr;
}

std::optional<std::string> Template::resolve_env(
    const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  std::vector<Part> parts;
  for (Part& p : parts_) {
    if (p.kind != Part::Kind::kEnv) {
      if (p.kind == Part::Kind::kText) {
        append_text(parts, p.text);
      } else {
        parts.push_back(std::move(p));
      }
      continue;
    }
    std::optional<std::string> value = lookup(p.text);
    if (!value) {
      std::string name = p.text;
      return name;  // parts_ is left as it was: the caller reports and gives up
    }
    append_text(parts, *value);
  }
  parts_ = std::move(parts);
  return std::nullopt;
}

std::string Template::text() const {
  std::string out;
  for (const Part& p : parts_) {
    PROWL_CHECK(!is_key(p), "Template::text with a context key");
    out += p.kind == Part::Kind::kEnv ? "${env:" + p.text + "}" : p.text;
  }
  return out;
}

std::string Template::render(const Context& ctx) const {
  return render(ctx, [](const Value& v) { return to_string(v); });
}

std::string Template::render_url(const Context& ctx) const {
  // Where the template's literal text has got to: the path, the query string, the fragment.
  bool path = true;
  std::string out;
  for (const Part& p : parts_) {
    PROWL_CHECK(p.kind != Part::Kind::kEnv,
                "Template::render_url with an unresolved environment reference");
    if (p.kind == Part::Kind::kText) {
      out += p.text;
      path = path && p.text.find_first_of("?#") == std::string::npos;
      continue;
    }
    const Value* v = ctx.find(p.text);
    PROWL_CHECK(v != nullptr, "Template::render_url: context key '" + p.text + "' is not bound");
    const std::string value = to_string(*v);
    if (p.kind == Part::Kind::kRaw) {
      out += value;
    } else if (path && (value == "." || value == "..")) {
      out += value == "." ? "%2E" : "%2E%2E";
    } else {
      out += percent_encode(value);
    }
  }
  return out;
}

std::string Template::render(const Context& ctx,
                             const std::function<std::string(const Value&)>& format) const {
  std::string out;
  for (const Part& p : parts_) {
    PROWL_CHECK(p.kind != Part::Kind::kEnv,
                "Template::render with an unresolved environment reference");
    if (p.kind == Part::Kind::kText) {
      out += p.text;
    } else {
      const Value* v = ctx.find(p.text);
      PROWL_CHECK(v != nullptr, "Template::render: context key '" + p.text + "' is not bound");
      out += format(*v);
    }
  }
  return out;
}

JsonTemplate::JsonTemplate(std::string skeleton, std::vector<Slot> slots)
    : skeleton_(std::move(skeleton)), slots_(std::move(slots)) {}

std::vector<std::string> JsonTemplate::keys() const {
  std::vector<std::string> out;
  for (const Slot& s : slots_) {
    for (std::string& k : s.value.keys()) {
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(std::move(k));
    }
  }
  return out;
}

const std::string* JsonTemplate::missing(const Context& ctx) const {
  for (const Slot& s : slots_) {
    if (const std::string* k = s.value.missing(ctx)) return k;
  }
  return nullptr;
}

std::string JsonTemplate::render(const Context& ctx) const {
  if (slots_.empty()) return skeleton_;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(skeleton_);
  for (const Slot& s : slots_) {
    nlohmann::ordered_json& at = doc[nlohmann::ordered_json::json_pointer(s.pointer)];
    if (std::optional<std::string> key = s.value.single_key()) {
      const Value* v = ctx.find(*key);
      PROWL_CHECK(v != nullptr, "JsonTemplate::render: context key '" + *key + "' is not bound");
      at = detail::to_json(*v);
    } else {
      at = s.value.render(ctx);
    }
  }
  // A context value from an environment variable or a response may not be UTF-8.
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

std::string sql_literal(const Value& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "NULL"; }
    std::string operator()(bool b) const { return b ? "TRUE" : "FALSE"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      if (!std::isfinite(d)) return "NULL";
      return fmt::format("{}", d);
    }
    std::string operator()(const std::string& s) const {
      std::string out = "'";
      for (char c : s) {
        out += c;
        if (c == '\'') out += '\'';
      }
      return out + "'";
    }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace prowl::modelfile
