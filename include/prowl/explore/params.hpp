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

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "prowl/core/status.hpp"

namespace prowl {

class World;
class Context;

// One value of a parameter: a whole number or a text.
using ParamValue = std::variant<std::int64_t, std::string>;

// A domain's values as the current state gives them, in order (an error: they could not be
// worked out, say a failed query).
using StateValues = std::function<Result<std::vector<ParamValue>>(const World&, const Context&)>;

// The values a parameter takes, in order: the first is the simplest (the shrinker moves toward
// it).
//
// A domain the state gives (prowl::from_state; from_sql: and from_context: in model files) has
// `slots` places instead: value i of the current state goes to place i, and an action stands for
// each place, enabled in the states that have a value there. Its name shows the place, `#0`,
// until a step runs it: then it shows the value (`remove(key=#1)` ran as `remove(key=7)`), and a
// trace names the value, which replays in whatever place the replayed state has it. A state with
// more values than places fails the action in place #0 with a message that says to give more.
struct Domain {
  std::vector<ParamValue> values;  // a given domain; the places 0 .. slots - 1 otherwise
  std::size_t slots = 0;           // 0: given values
  StateValues in_state{};          // when slots > 0
  std::string source{};            // where the values come from, for messages ("from_state")
};

// These values, in this order. REQUIRES: at least one, no two equal.
Domain one_of(std::initializer_list<std::int64_t> values);
Domain one_of(std::initializer_list<const char*> values);
Domain one_of(std::vector<std::string> values);
// lo, lo + 1, ..., hi. REQUIRES: lo <= hi, at most 65536 values.
Domain range(std::int64_t lo, std::int64_t hi);
// The values of `values_of(state)`, worked out in each state, in at most `places` places
// (REQUIRES: 1 to 256). ObjectModel's param() takes it, for an action on the object:
//   .param("key", prowl::from_state([](const Lru& c) { return c.keys(); }))
// values_of returns a range of whole numbers or of std::string (a std::vector, a std::set, ...);
// duplicates count once; an exception from it fails the step that needed the values.
template <class F>
struct FromState {
  F values_of;
  std::size_t places;
};
template <class F>
FromState<F> from_state(F values_of, std::size_t places = 8) {
  return {std::move(values_of), places};
}
// A domain of `places` places whose values `in_state` gives (for models' own state-given
// domains); `source` names it in messages.
Domain state_domain(std::size_t places, StateValues in_state, std::string source);
// A value as it appears in an action's name: a number in decimal; a text as it is when it is
// made of letters, digits and _ . -, else in double quotes with \ and " escaped, a newline as \n
// and other control characters as \xNN (values from a system under test show as one line).
std::string render(const ParamValue& value);

// The values of a range, as ParamValues in order, each once (1 and "1" count as one: they name
// an action the same way). Whole numbers that do not fit an int64 throw LogicError.
template <class Range>
std::vector<ParamValue> to_param_values(const Range& range) {
  std::vector<ParamValue> out;
  std::set<std::string> seen;
  for (const auto& v : range) {
    using V = std::decay_t<decltype(v)>;
    static_assert(!std::is_same_v<V, bool> && !std::is_same_v<V, char>,
                  "from_state: values are whole numbers or strings, not bool or char");
    ParamValue p;
    if constexpr (std::is_integral_v<V>) {
      if (!std::in_range<std::int64_t>(v))
        throw LogicError("from_state: a value does not fit int64");
      p = static_cast<std::int64_t>(v);
    } else {
      p = std::string(v);
    }
    if (seen.insert(render(p)).second) out.push_back(std::move(p));
  }
  return out;
}

// Throws LogicError unless the domain has a value and no two that name an action the same way
// (1 and "1" do).
void check_domain(const Domain& domain);

// The arguments of one step of an action with parameters.
class Args {
 public:
  Args() = default;
  explicit Args(std::vector<std::pair<std::string, ParamValue>> values)
      : values_(std::move(values)) {
    for (std::size_t i = 0; i < values_.size() && i < kInline; ++i) {
      if (const auto* n = std::get_if<std::int64_t>(&values_[i].second)) {
        inline_[i] = *n;
        numbers_ = static_cast<std::uint8_t>(numbers_ | (1u << i));
        if (std::in_range<std::int32_t>(*n)) {
          ints_ = static_cast<std::uint8_t>(ints_ | (1u << i));
        }
      }
    }
  }

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
    if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int32_t>) {
      // The first numbers are kept beside the list: no name, no variant, no pointer to follow,
      // and for an int one bit says it fits (else it is an error: get_listed throws).
      if (position < kInline) {
        if (((ints_ >> position) & 1u) != 0) return static_cast<T>(inline_[position]);
        fail_listed<T>(position);
      }
    } else if constexpr (std::is_integral_v<T>) {
      if (position < kInline && ((numbers_ >> position) & 1u) != 0 &&
          std::in_range<T>(inline_[position])) {
        return static_cast<T>(inline_[position]);
      }
    }
    return get_listed<T>(position);
  }
  const std::vector<std::pair<std::string, ParamValue>>& values() const { return values_; }

 private:
  // The rest of get(position), out of line so that the fast path inlines where it is called.
  template <class T>
  [[gnu::noinline]] T get_listed(std::size_t position) const {
    if (position >= values_.size()) no_position(position);
    return as<T>(values_[position].second, values_[position].first);
  }
  // get_listed where it can only throw (an int the inline values do not have).
  template <class T>
  [[noreturn, gnu::noinline, gnu::cold]] void fail_listed(std::size_t position) const {
    (void)get_listed<T>(position);
    throw LogicError("Args::get: unreachable");
  }
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

  static constexpr std::size_t kInline = 4;
  std::vector<std::pair<std::string, ParamValue>> values_;
  std::array<std::int64_t, kInline> inline_{};
  std::uint8_t numbers_ = 0;  // bit i: value i is a number, in inline_[i]
  std::uint8_t ints_ = 0;     // bit i: and it fits an int32
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

  // Whether a parameter's domain is given by the state (Domain::slots).
  bool in_state() const;
  // The arguments of combination k in the current state: the given values as args(k) has them,
  // and for each state-given domain the state's value at the combination's place. Nothing when
  // a place is empty in this state, or when a state's values could not be worked out (then
  // `error` says why, if not null).
  std::optional<Args> args_in(std::size_t k, const World& world, const Context& context,
                              std::string* error = nullptr) const;
  // "remove(key=7)": the name of combination k with the current state's values; action_name(k)
  // when a place is empty.
  std::string name_in(std::size_t k, const World& world, const Context& context) const;
  // The combination named `label` (name_in's form) in the current state, if any.
  std::optional<std::size_t> find_in(std::string_view label, const World& world,
                                     const Context& context) const;

 private:
  // Each state-given domain's values in the current state (empty for a given domain), or
  // nothing: a domain that could not be worked out or has more values than places.
  std::optional<std::vector<std::vector<ParamValue>>> state_values(const World& world,
                                                                   const Context& context,
                                                                   std::string* error) const;
  std::optional<Args> args_of(std::size_t k,
                              const std::vector<std::vector<ParamValue>>& state) const;
};

// The most actions one action with parameters may stand for.
inline constexpr std::size_t kMaxCombinations = 65536;

}  // namespace prowl
