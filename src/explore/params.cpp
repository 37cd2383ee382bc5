#include "prowl/explore/params.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace prowl {

namespace {

Domain checked(Domain d) {
  check_domain(d);
  return d;
}

}  // namespace

void check_domain(const Domain& domain) {
  PROWL_CHECK(!domain.values.empty(), "a parameter's domain has at least one value");
  PROWL_CHECK(domain.slots == 0 || (domain.slots == domain.values.size() && domain.in_state),
              "a domain the state gives has its places and a way to work out its values: make "
              "it with state_domain() or from_state()");
  std::set<std::string> seen;
  for (const ParamValue& v : domain.values) seen.insert(render(v));
  PROWL_CHECK(seen.size() == domain.values.size(),
              "a parameter's domain has no value twice (1 and \"1\" count as the same)");
}

Domain one_of(std::initializer_list<std::int64_t> values) {
  return checked({std::vector<ParamValue>(values.begin(), values.end())});
}

Domain one_of(std::initializer_list<const char*> values) {
  Domain d;
  for (const char* v : values) d.values.emplace_back(std::string(v));
  return checked(std::move(d));
}

Domain one_of(std::vector<std::string> values) {
  Domain d;
  for (std::string& v : values) d.values.emplace_back(std::move(v));
  return checked(std::move(d));
}

Domain range(std::int64_t lo, std::int64_t hi) {
  PROWL_CHECK(lo <= hi, "range(lo, hi): lo <= hi");
  PROWL_CHECK(static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) < kMaxCombinations,
              "range(lo, hi): at most 65536 values");
  Domain d;
  for (std::int64_t v = lo;; ++v) {
    d.values.emplace_back(v);
    if (v == hi) break;
  }
  return d;
}

Domain state_domain(std::size_t places, StateValues in_state, std::string source) {
  PROWL_CHECK(places >= 1 && places <= 256, "a domain the state gives has 1 to 256 places");
  PROWL_CHECK(static_cast<bool>(in_state), "a domain the state gives needs a way to work it out");
  Domain d;
  for (std::size_t i = 0; i < places; ++i) d.values.emplace_back(static_cast<std::int64_t>(i));
  d.slots = places;
  d.in_state = std::move(in_state);
  d.source = std::move(source);
  return d;
}

std::string render(const ParamValue& value) {
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  const std::string& text = std::get<std::string>(value);
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
  if (plain) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + '"';
}

void Args::no_such(std::string_view name) const {
  std::string known;
  for (const auto& [n, v] : values_) known += (known.empty() ? "" : ", ") + n;
  throw LogicError(fmt::format("Args::get(\"{}\"): the action has no such parameter (it has: {})",
                               name, known.empty() ? "none" : known));
}

void Args::no_position(std::size_t position) const {
  throw LogicError(fmt::format("Args::get({}): the action has {} parameter{}", position,
                               values_.size(), values_.size() == 1 ? "" : "s"));
}

void Args::wrong_kind(std::string_view name, const char* expected) const {
  throw LogicError(
      fmt::format("Args::get(\"{}\"): the value {} is not {}", name, render(at(name)), expected));
}

void Args::out_of_range(std::string_view name, std::int64_t value) const {
  throw LogicError(
      fmt::format("Args::get(\"{}\"): the value {} does not fit the type asked for", name, value));
}

std::size_t ActionFamily::count() const {
  std::size_t n = 1;
  for (const auto& [name, domain] : params) n *= domain.values.size();
  return n;
}

std::vector<std::size_t> ActionFamily::choice(std::size_t k) const {
  std::vector<std::size_t> c(params.size());
  for (std::size_t p = params.size(); p-- > 0;) {
    const std::size_t size = params[p].second.values.size();
    c[p] = k % size;
    k /= size;
  }
  return c;
}

std::size_t ActionFamily::index(const std::vector<std::size_t>& choice) const {
  std::size_t k = 0;
  for (std::size_t p = 0; p < params.size(); ++p) {
    k = k * params[p].second.values.size() + choice[p];
  }
  return k;
}

std::string ActionFamily::action_name(std::size_t k) const {
  const std::vector<std::size_t> c = choice(k);
  std::string out = name + "(";
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (p > 0) out += ", ";
    const Domain& d = params[p].second;
    out +=
        params[p].first + "=" + (d.slots > 0 ? "#" + std::to_string(c[p]) : render(d.values[c[p]]));
  }
  return out + ")";
}

bool ActionFamily::in_state() const {
  return std::any_of(params.begin(), params.end(),
                     [](const auto& p) { return p.second.slots > 0; });
}

namespace {

Result<std::vector<ParamValue>> values_in(const Domain& d, const World& world,
                                          const Context& context) {
  try {
    return d.in_state(world, context);
  } catch (const std::exception& e) {
    return Status::invalid(e.what());
  } catch (...) {
    return Status::invalid("unknown exception");
  }
}

}  // namespace

std::optional<std::vector<std::vector<ParamValue>>> ActionFamily::state_values(
    const World& world, const Context& context, std::string* error) const {
  std::vector<std::vector<ParamValue>> out(params.size());
  // Every domain is worked out before any is judged: a failure is never hidden by another
  // parameter's empty place.
  for (std::size_t p = 0; p < params.size(); ++p) {
    const auto& [param, d] = params[p];
    if (d.slots == 0) continue;
    auto got = values_in(d, world, context);
    if (!got) {
      if (error != nullptr) {
        *error =
            fmt::format("the values of parameter '{}' of '{}' ({}) could not be worked out: {}",
                        param, name, d.source, got.status().message());
      }
      return std::nullopt;
    }
    out[p] = std::move(*got);
  }
  for (std::size_t p = 0; p < params.size(); ++p) {
    const auto& [param, d] = params[p];
    if (d.slots == 0 || out[p].size() <= d.slots) continue;
    if (error != nullptr) {
      *error = fmt::format(
          "parameter '{}' of '{}' ({}) has {} values in this state, more than its {} places: "
          "give it at least {} places",
          param, name, d.source, out[p].size(), d.slots, out[p].size());
    }
    return std::nullopt;
  }
  return out;
}

std::optional<Args> ActionFamily::args_of(std::size_t k,
                                          const std::vector<std::vector<ParamValue>>& state) const {
  const std::vector<std::size_t> c = choice(k);
  std::vector<std::pair<std::string, ParamValue>> values;
  values.reserve(params.size());
  for (std::size_t p = 0; p < params.size(); ++p) {
    const auto& [param, d] = params[p];
    if (d.slots == 0) {
      values.emplace_back(param, d.values[c[p]]);
    } else if (c[p] < state[p].size()) {
      values.emplace_back(param, state[p][c[p]]);
    } else {
      return std::nullopt;
    }
  }
  return Args(std::move(values));
}

std::optional<Args> ActionFamily::args_in(std::size_t k, const World& world, const Context& context,
                                          std::string* error) const {
  const auto state = state_values(world, context, error);
  if (!state) return std::nullopt;
  return args_of(k, *state);
}

namespace {

std::string labelled(const std::string& name, const Args& args) {
  std::string out = name + "(";
  for (const auto& [param, value] : args.values()) {
    if (out.size() > name.size() + 1) out += ", ";
    out += param + "=" + render(value);
  }
  return out + ")";
}

}  // namespace

std::string ActionFamily::name_in(std::size_t k, const World& world, const Context& context) const {
  const std::optional<Args> args = args_in(k, world, context);
  return args ? labelled(name, *args) : action_name(k);
}

std::optional<std::size_t> ActionFamily::find_in(std::string_view label, const World& world,
                                                 const Context& context) const {
  const auto state = state_values(world, context, nullptr);
  if (!state) return std::nullopt;
  for (std::size_t k = 0; k < count(); ++k) {
    const std::optional<Args> args = args_of(k, *state);
    if (args && labelled(name, *args) == label) return k;
  }
  return std::nullopt;
}

Args ActionFamily::args(std::size_t k) const {
  const std::vector<std::size_t> c = choice(k);
  std::vector<std::pair<std::string, ParamValue>> values;
  for (std::size_t p = 0; p < params.size(); ++p) {
    values.emplace_back(params[p].first, params[p].second.values[c[p]]);
  }
  return Args(std::move(values));
}

}  // namespace prowl
