// Parameters of an action (README, "Actions with parameters"): a name and a domain of values.
// An action with parameters stands for one action per combination of values, named with them —
// `put(key=1, value=0)` — so that exhaustive strategies run every combination from every state
// (and "exhausted" stays true), random ones draw among them, traces replay them by name, and the
// shrinker can move each value toward its domain's first.
//
//   model.action("put")
//       .param("key", prowl::one_of({0, 1, 2, 3}))
//       .param("value", prowl::range(0, 1))
//       .when([](const Lru& c, const prowl::Args& a) { return a.get<int>("key") != 3 || c.big(); })
//       .run([](Lru& c, const prowl::Args& a) { c.put(a.get<int>("key"), a.get<int>("value")); });
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "prowl/core/status.hpp"

namespace prowl {

// One value of a parameter: a whole number or a text.
using ParamValue = std::variant<std::int64_t, std::string>;

// The values a parameter takes, in order: the first is the simplest (the shrinker moves toward
// it).
struct Domain {
  std::vector<ParamValue> values;
};

// These values, in this order. REQUIRES: at least one, no two equal.
Domain one_of(std::initializer_list<std::int64_t> values);
Domain one_of(std::initializer_list<const char*> values);
Domain one_of(std::vector<std::string> values);
// lo, lo + 1, ..., hi. REQUIRES: lo <= hi, at most 65536 values.
Domain range(std::int64_t lo, std::int64_t hi);
// Throws LogicError unless the domain has a value and no two that name an action the same way
// (1 and "1" do).
void check_domain(const Domain& domain);

// A value as it appears in an action's name: a number in decimal; a text as it is when it is
// made of letters, digits and _ . -, else in double quotes with \ and " escaped.
std::string render(const ParamValue& value);

// The arguments of one step of an action with parameters.
class Args {
 public:
  Args() = default;
  explicit Args(std::vector<std::pair<std::string, ParamValue>> values)
      : values_(std::move(values)) {}

  // The value of parameter `name` as T: an integral type (its number; throws LogicError when it
  // does not fit) or std::string (its text). Throws LogicError when the action has no such
  // parameter, or the value is of the other kind.
  template <class T>
  T get(std::string_view name) const {
    return as<T>(at(name), name);
  }
  // The same by the parameter's position in the order of declaration (0 first): no name to
  // compare, for the hottest code. Throws LogicError when there is no such position.
  template <class T>
  T get(std::size_t position) const {
    if (position >= values_.size()) no_position(position);
    return as<T>(values_[position].second, values_[position].first);
  }
  const std::vector<std::pair<std::string, ParamValue>>& values() const { return values_; }

 private:
  const ParamValue& at(std::string_view name) const {
    for (const auto& [n, v] : values_) {
      if (n.size() == name.size() && n == name) return v;
    }
    no_such(name);
  }
  template <class T>
  T as(const ParamValue& v, std::string_view name) const {
    if constexpr (std::is_same_v<T, std::string>) {
      if (const auto* text = std::get_if<std::string>(&v)) return *text;
      wrong_kind(name, "a text");
    } else {
      static_assert(std::is_integral_v<T>, "Args::get<T>: T is an integral type or std::string");
      const auto* number = std::get_if<std::int64_t>(&v);
      if (number == nullptr) wrong_kind(name, "a number");
      if (!std::in_range<T>(*number)) out_of_range(name, *number);
      return static_cast<T>(*number);
    }
  }
  [[noreturn]] void no_such(std::string_view name) const;
  [[noreturn]] void no_position(std::size_t position) const;
  [[noreturn]] void wrong_kind(std::string_view name, const char* expected) const;
  [[noreturn]] void out_of_range(std::string_view name, std::int64_t value) const;

  std::vector<std::pair<std::string, ParamValue>> values_;
};

// An action with parameters as the model holds it: the actions it stands for are
// first .. first + count() - 1, one per combination, the last parameter's value changing fastest.
struct ActionFamily {
  std::string name;  // "put"
  std::vector<std::pair<std::string, Domain>> params;
  std::uint32_t first = 0;
  std::size_t count() const;
  // The values of combination k (0 <= k < count()), as indices into each domain.
  std::vector<std::size_t> choice(std::size_t k) const;
  // The combination of these indices.
  std::size_t index(const std::vector<std::size_t>& choice) const;
  // "put(key=1, value=0)" for combination k.
  std::string action_name(std::size_t k) const;
  Args args(std::size_t k) const;
};

// The most actions one action with parameters may stand for.
inline constexpr std::size_t kMaxCombinations = 65536;

}  // namespace prowl
