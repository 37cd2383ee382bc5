// Context: typed bindings that actions set and read (a created order id, a token). A Context is
// saved and restored with the state it belongs to; keys the model marks as state keys are part of
// the state's identity. Copying is O(1): the bindings are shared until one copy is written
// (copy-on-write). Not thread-safe to mutate; distinct copies may be used from distinct threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "prowl/core/fingerprint.hpp"
#include "prowl/core/status.hpp"

namespace prowl {

using Value = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

// "null", "true", "42", "1.5" or the string itself.
std::string to_string(const Value& value);

class Context {
 public:
  using Entry = std::pair<std::string, Value>;

  bool empty() const { return !data_ || data_->empty(); }
  std::size_t size() const { return data_ ? data_->size() : 0; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  // The value bound to key, or nullptr.
  const Value* find(std::string_view key) const;

  // REQUIRES: key is bound to a value of type T (int for any integral T).
  template <class T>
  T get(std::string_view key) const {
    const Value* v = find(key);
    PROWL_CHECK(v != nullptr, "context has no key '" + std::string(key) + "'");
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      PROWL_CHECK(std::holds_alternative<std::int64_t>(*v),
                  "context key '" + std::string(key) + "' is not an integer");
      return static_cast<T>(std::get<std::int64_t>(*v));
    } else {
      PROWL_CHECK(std::holds_alternative<T>(*v),
                  "context key '" + std::string(key) + "' has another type");
      return std::get<T>(*v);
    }
  }

  void set(std::string_view key, Value value);
  template <class T>
  requires std::is_integral_v<T> &&
      (!std::is_same_v<T, bool>)void set(std::string_view key, T value) {
    set(key, Value(static_cast<std::int64_t>(value)));
  }
  void set(std::string_view key, const char* value) { set(key, Value(std::string(value))); }
  void erase(std::string_view key);

  // Entries sorted by key.
  std::span<const Entry> entries() const {
    return data_ ? std::span<const Entry>(*data_) : std::span<const Entry>();
  }

  // Adds the given keys (bound or not) and their values to a fingerprint.
  void observe(std::span<const std::string> keys, Hasher& hasher) const;

  friend bool operator==(const Context& a, const Context& b);
  // True when both share the same bindings (a copy not written since): O(1).
  bool shares(const Context& other) const { return data_ == other.data_; }

 private:
  std::vector<Entry>& mutable_data();
  std::shared_ptr<const std::vector<Entry>> data_;
};

}  // namespace prowl
