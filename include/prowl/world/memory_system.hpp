// MemorySystem<T>: an in-process C++ object as a System. Snapshots are copies of the value, so it
// has every capability and they are cheap. T must be copyable. The observation is T's bytes when T
// has unique object representations (no padding, no pointers to follow), an ADL function
// `void prowl_observe(const T&, prowl::Hasher&)` when one exists, or the function given.
// Not thread-safe.
#pragma once

#include <functional>
#include <type_traits>
#include <vector>

#include "prowl/world/object_system.hpp"

namespace prowl {

template <class T>
class MemorySystem final : public ObjectSystem<T> {
 public:
  using ObserveFn = std::function<void(const T&, Hasher&)>;
  using DescribeFn = std::function<std::string(const T&)>;

  MemorySystem(std::string name, T initial, ObserveFn observe = {}, DescribeFn describe = {})
      : ObjectSystem<T>(std::move(name)),
        initial_(initial),
        value_(std::move(initial)),
        observe_(std::move(observe)),
        describe_(std::move(describe)) {
    this->object_ = &value_;
    if constexpr (!DefaultObservable<T>) {
      PROWL_CHECK(static_cast<bool>(observe_),
                  "MemorySystem '" + this->name() + "' needs an observe function for its type");
    }
  }

  Capabilities capabilities() const override { return {true, true, true, true}; }
  Status observe(Hasher& hasher) const override {
    if constexpr (DefaultObservable<T>) {
      if (!observe_) {
        observe_value(value_, hasher);  // the common case, without a std::function call
        return Status::ok();
      }
    }
    observe_(value_, hasher);
    return Status::ok();
  }
  std::string describe() const override { return describe_ ? describe_(value_) : std::string(); }

  Status begin() override {
    initial_ = value_;
    stack_.assign(1, value_);
    return Status::ok();
  }
  Status end() override {
    value_ = initial_;
    stack_.clear();
    arena_.clear();
    free_.clear();
    return Status::ok();
  }

  Result<SnapshotHandle> save() override {
    if (!free_.empty()) {
      SnapshotHandle h = free_.back();
      free_.pop_back();
      arena_[h] = value_;
      return h;
    }
    arena_.push_back(value_);
    return static_cast<SnapshotHandle>(arena_.size() - 1);
  }
  Status restore(SnapshotHandle handle) override {
    value_ = arena_[handle];
    return Status::ok();
  }
  void release(SnapshotHandle handle) override { free_.push_back(handle); }

  Status push() override {
    stack_.push_back(value_);
    return Status::ok();
  }
  Status rollback(std::size_t depth) override {
    PROWL_CHECK(depth < stack_.size(), "rollback past the savepoint stack");
    value_ = stack_[depth];
    stack_.resize(depth + 1);
    return Status::ok();
  }
  Status reset() override {
    value_ = initial_;
    return Status::ok();
  }

  ByteImage byte_image() override {
    if constexpr (kBytesObserved) {
      if (!observe_) return {reinterpret_cast<unsigned char*>(&value_), sizeof(T)};
    }
    return {};
  }
  const unsigned char* snapshot_bytes(SnapshotHandle handle) const override {
    return reinterpret_cast<const unsigned char*>(&arena_[handle]);
  }

  std::size_t live_snapshots() const { return arena_.size() - free_.size(); }

 private:
  static constexpr bool kBytesObserved = std::is_trivially_copyable_v<T> &&
                                         std::has_unique_object_representations_v<T> &&
                                         !HasProwlObserve<T>;
  T initial_;
  T value_;
  ObserveFn observe_;
  DescribeFn describe_;
  std::vector<T> arena_;
  std::vector<SnapshotHandle> free_;
  std::vector<T> stack_;
};

}  // namespace prowl
