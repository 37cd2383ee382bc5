#include "prowl/core/context.hpp"

#include <algorithm>
#include <atomic>

#include <fmt/format.h>

namespace prowl {

std::string to_string(const Value& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return fmt::format("{}", d); }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

namespace {
template <class V>
auto lower(V& v, std::string_view key) {
  return std::lower_bound(v.begin(), v.end(), key,
                          [](const Context::Entry& e, std::string_view k) { return e.first < k; });
}
}  // namespace

const Value* Context::find(std::string_view key) const {
  if (!data_) return nullptr;
  auto it = lower(*data_, key);
  return it != data_->end() && it->first == key ? &it->second : nullptr;
}

std::vector<Context::Entry>& Context::mutable_data() {
  if (!data_) {
    data_ = std::make_shared<std::vector<Entry>>();
  } else if (data_.use_count() > 1) {
    data_ = std::make_shared<std::vector<Entry>>(*data_);
  } else {
    // The last other owner (possibly on another thread: workers share states' contexts) may
    // have just let go; what it read happened before the writes that follow.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  // The shared_ptr holds a const view; this Context is now the only owner.
  return const_cast<std::vector<Entry>&>(*data_);
}

void Context::set(std::string_view key, Value value) {
  auto& v = mutable_data();
  auto it = lower(v, key);
  if (it != v.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    v.emplace(it, std::string(key), std::move(value));
  }
}

void Context::erase(std::string_view key) {
  if (!has(key)) return;
  auto& v = mutable_data();
  v.erase(lower(v, key));
}

void Context::observe(std::span<const std::string> keys, Hasher& hasher) const {
  for (const auto& key : keys) {
    const Value* v = find(key);
    hasher.add(key);
    if (v == nullptr) {
      hasher.add_u64(~0ULL);
      continue;
    }
    hasher.add_u64(v->index());
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::string>) {
            hasher.add(std::string_view(x));
          } else if constexpr (!std::is_same_v<X, std::monostate>) {
            hasher.add(x);
          }
        },
        *v);
  }
}

bool operator==(const Context& a, const Context& b) {
  if (a.data_ == b.data_) return true;
  auto ea = a.entries();
  auto eb = b.entries();
  return std::equal(ea.begin(), ea.end(), eb.begin(), eb.end());
}

}  // namespace prowl
