// ReplaySystem<T>: an in-process C++ object that prowl never copies. Its only way back is reset():
// destroy the object and build a fresh one with the factory, in place; the RestorePlanner then
// replays the path to the state it wants. For classes that cannot be copied, or whose copy is
// shallow (a std::list with a map of iterators into it, raw owning pointers), which a
// MemorySystem<T> would corrupt. It costs a replay of the path for each state the explorer goes
// back to (README, "Objects that cannot be copied"). T needs neither a copy nor a move: the factory
// returns it by value, built straight into the system's storage. Not thread-safe.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "prowl/world/object_system.hpp"

namespace prowl {

template <class T>
class ReplaySystem final : public ObjectSystem<T> {
 public:
  using Factory = std::function<T()>;
  using ObserveFn = std::function<void(const T&, Hasher&)>;
  using DescribeFn = std::function<std::string(const T&)>;

  // Builds the first object at once. Throws what the factory throws.
  ReplaySystem(std::string name, Factory factory, ObserveFn observe = {}, DescribeFn describe = {})
      : ObjectSystem<T>(std::move(name)),
        factory_(std::move(factory)),
        observe_(std::move(observe)),
        describe_(std::move(describe)) {
    if constexpr (!DefaultObservable<T>) {
      PROWL_CHECK(static_cast<bool>(observe_),
                  "ReplaySystem '" + this->name() + "' needs an observe function for its type");
    }
    build();
  }

  Capabilities capabilities() const override { return {false, false, true, false, false}; }
  Status observe(Hasher& hasher) const override {
    if (!storage_)
      return Status::environment("'" + this->name() + "' has no object: building it failed");
    if constexpr (DefaultObservable<T>) {
      if (!observe_) {
        observe_value(*storage_, hasher);
        return Status::ok();
      }
    }
    observe_(*storage_, hasher);
    return Status::ok();
  }
  std::string describe() const override {
    return describe_ && storage_ ? describe_(*storage_) : std::string();
  }

  // The state at begin() is a fresh object's: an explored state must be one that building the
  // object and replaying its path reaches.
  Status begin() override { return reset(); }
  Status reset() override {
    try {
      this->object_ = nullptr;  // until a new one is built
      storage_.reset();
      build();
    } catch (const std::exception& e) {
      return Status::environment("'" + this->name() +
                                 "': building a fresh object threw: " + e.what());
    } catch (...) {
      return Status::environment("'" + this->name() + "': building a fresh object threw");
    }
    return Status::ok();
  }
  // How many objects the factory built.
  std::uint64_t built() const { return built_; }

 private:
  // Converts to T by calling the factory: emplace() builds the T it returns in place (no copy or
  // move, so T needs neither).
  struct Made {
    const Factory* factory;
    operator T() const { return (*factory)(); }  // NOLINT(google-explicit-constructor)
  };
  void build() {
    storage_.emplace(Made{&factory_});
    this->object_ = &*storage_;
    ++built_;
  }

  Factory factory_;
  ObserveFn observe_;
  DescribeFn describe_;
  std::optional<T> storage_;
  std::uint64_t built_ = 0;
};

}  // namespace prowl
