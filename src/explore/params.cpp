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
    out += params[p].first + "=" + render(params[p].second.values[c[p]]);
  }
  return out + ")";
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
