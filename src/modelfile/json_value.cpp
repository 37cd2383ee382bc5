#include "json_value.hpp"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace prowl::modelfile::detail {

std::optional<Value> to_value(const Json& json) {
  switch (json.type()) {
    case Json::value_t::null:
      return Value(std::monostate{});
    case Json::value_t::boolean:
      return Value(json.get<bool>());
    case Json::value_t::number_integer:
      return Value(json.get<std::int64_t>());
    case Json::value_t::number_unsigned: {
      const auto u = json.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return Value(static_cast<std::int64_t>(u));
      }
      return Value(static_cast<double>(u));
    }
    case Json::value_t::number_float:
      return Value(json.get<double>());
    case Json::value_t::string:
      return Value(json.get<std::string>());
    default:
      return std::nullopt;
  }
}

std::optional<Json> parse_json(std::string_view text) {
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::nullopt;
  return json;
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

const Json* find_pointer(const Json& doc, const std::string& pointer) {
  try {
    const Json::json_pointer ptr(pointer);
    return doc.contains(ptr) ? &doc.at(ptr) : nullptr;
  } catch (const Json::exception&) {
    // An array index too large for size_t: nothing is there.
    return nullptr;
  }
}

Order compare(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    // x87 long double has a 64-bit mantissa: every int64 and uint64 converts exactly.
    const auto x = a.get<long double>();
    const auto y = b.get<long double>();
    if (x < y) return Order::kLess;
    if (x > y) return Order::kGreater;
    return x == y ? Order::kEqual : Order::kUnordered;  // NaN
  }
  if (a.is_string() && b.is_string()) {
    const int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    return c < 0 ? Order::kLess : (c > 0 ? Order::kGreater : Order::kEqual);
  }
  return a == b ? Order::kEqual : Order::kUnordered;
}

std::string truncate_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back off continuation bytes (10xxxxxx) so that no character is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} more bytes)", text.substr(0, cut), text.size() - cut);
}

std::string one_line(std::string_view body, std::size_t max_bytes) {
  if (body.empty()) return "(empty)";
  nlohmann::ordered_json json =
      nlohmann::ordered_json::parse(body.begin(), body.end(), nullptr, false);
  if (!json.is_discarded()) {
    return truncate_utf8(
        json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace), max_bytes);
  }
  std::string text;
  text.reserve(body.size());
  for (char c : body) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      text += "\\n";
    } else if (c == '\r') {
      text += "\\r";
    } else if (c == '\t') {
      text += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      text += fmt::format("\\x{:02x}", u);
    } else {
      text += c;
    }
  }
  return truncate_utf8(text, max_bytes);
}

}  // namespace prowl::modelfile::detail
