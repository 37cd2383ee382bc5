// Shop::handle: the HTTP API as a function, shared by the server (main.cpp) and in-process
// callers, so both speak exactly the same API.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shop_api/shop.hpp"

namespace shop {
namespace {

// "/orders/7/pay" -> {"orders", "7", "pay"}. An empty segment ("//", a trailing "/") is kept, so
// such paths match no route.
std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') return out;
  path.remove_prefix(1);
  while (true) {
    const auto slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// A positive decimal id of at most 18 digits (so it fits an int64 and SQL integers).
std::optional<std::int64_t> parse_id(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t id = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    id = id * 10 + (c - '0');
  }
  if (id == 0) return std::nullopt;
  return id;
}

// The JSON object in a request body, or the reason it is not one.
std::optional<nlohmann::json> parse_object(std::string_view body, std::string* error) {
  if (body.empty()) {
    *error = "a JSON object body is required";
    return std::nullopt;
  }
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    *error = "the body is not valid JSON";
    return std::nullopt;
  }
  if (!parsed.is_object()) {
    *error = "the body must be a JSON object";
    return std::nullopt;
  }
  return parsed;
}

// The integer member `key` of `object`; `fallback` when it is absent and a fallback is given.
std::optional<std::int64_t> integer_member(const nlohmann::json& object, const char* key,
                                           std::optional<std::int64_t> fallback,
                                           std::string* error) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (!fallback) *error = std::string("\"") + key + "\" is required";
    return fallback;
  }
  if (!it->is_number_integer() ||
      (it->is_number_unsigned() &&
       it->get<std::uint64_t>() >
           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
    *error = std::string("\"") + key + "\" must be an integer";
    return std::nullopt;
  }
  return it->get<std::int64_t>();
}

}  // namespace

Reply Shop::handle(std::string_view method, std::string_view target, std::string_view body) {
  const std::string_view path = target.substr(0, target.find('?'));
  const std::vector<std::string_view> seg = segments(path);
  const bool get = method == "GET" || method == "HEAD";
  const bool post = method == "POST";
  const auto not_allowed = [&](std::string_view allow) {
    Reply reply = error_reply(
        405, "method " + std::string(method) + " is not allowed on " + std::string(path));
    reply.body["allow"] = allow;
    return reply;
  };
  const auto no_route = [&] { return error_reply(404, "no such resource: " + std::string(path)); };
  if (seg.empty()) return no_route();

  if (seg.size() == 1 && (seg[0] == "health" || seg[0] == "stats")) {
    if (!get) return not_allowed("GET");
    return seg[0] == "health" ? health() : stats();
  }

  if (seg[0] == "products") {
    if (seg.size() == 1) return get ? products() : not_allowed("GET");
    const auto id = parse_id(seg[1]);
    if (!id) return no_route();
    if (seg.size() == 2) return get ? product(*id) : not_allowed("GET");
    if (seg.size() != 3 || seg[2] != "restock") return no_route();
    if (!post) return not_allowed("POST");
    std::string error;
    const auto object = parse_object(body, &error);
    if (!object) return error_reply(400, error);
    const auto qty = integer_member(*object, "qty", std::nullopt, &error);
    if (!qty) return error_reply(400, error);
    return restock(*id, *qty);
  }

  if (seg[0] == "orders") {
    if (seg.size() == 1) {
      if (get) return orders();
      if (!post) return not_allowed("GET, POST");
      std::string error;
      const auto object = parse_object(body, &error);
      if (!object) return error_reply(400, error);
      const auto product_id = integer_member(*object, "product_id", std::nullopt, &error);
      if (!product_id) return error_reply(400, error);
      const auto qty = integer_member(*object, "qty", 1, &error);
      if (!qty) return error_reply(400, error);
      return create_order(*product_id, *qty);
    }
    const auto id = parse_id(seg[1]);
    if (!id) return no_route();
    if (seg.size() == 2) return get ? order(*id) : not_allowed("GET");
    if (seg.size() != 3) return no_route();
    const std::string_view action = seg[2];
    if (action != "pay" && action != "cancel" && action != "ship" && action != "refund") {
      return no_route();
    }
    if (!post) return not_allowed("POST");
    if (action == "pay") return pay(*id);
    if (action == "cancel") return cancel(*id);
    if (action == "ship") return ship(*id);
    return refund(*id);
  }
  return no_route();
}

}  // namespace shop
