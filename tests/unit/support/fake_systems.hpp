// Fake systems for fast tests of the restore machinery: a vector of integers whose capabilities
// can be restricted to stack-only or reset-only, or include portable images, counting every
// operation (counts are not atomic: give none to a system several workers drive).
#pragma once

#include <string>
#include <vector>

#include "prowl/explore/model.hpp"
#include "prowl/world/system.hpp"
#include "prowl/world/world.hpp"

namespace prowl::testing {

struct OpCounts {
  int saves = 0, restores = 0, pushes = 0, rollbacks = 0, resets = 0, captures = 0, loads = 0;
};

class FakeSystem final : public System {
 public:
  FakeSystem(std::string name, Capabilities caps, std::size_t size, OpCounts* counts = nullptr)
      : System(std::move(name)), caps_(caps), values_(size, 0), counts_(counts) {}

  std::vector<int>& values() { return values_; }
  const std::vector<int>& values() const { return values_; }

  Capabilities capabilities() const override { return caps_; }
  Status observe(Hasher& h) const override {
    h.add_bytes(values_.data(), values_.size() * sizeof(int));
    return Status::ok();
  }
  Status begin() override {
    initial_ = values_;
    stack_.assign(1, values_);
    return Status::ok();
  }
  Result<SnapshotHandle> save() override {
    PROWL_CHECK(caps_.snapshot, "no snapshot");
    if (counts_) ++counts_->saves;
    snaps_.push_back(values_);
    return static_cast<SnapshotHandle>(snaps_.size() - 1);
  }
  Status restore(SnapshotHandle h) override {
    PROWL_CHECK(caps_.snapshot, "no snapshot");
    if (counts_) ++counts_->restores;
    values_ = snaps_[h];
    return Status::ok();
  }
  void release(SnapshotHandle) override {}
  Status push() override {
    PROWL_CHECK(caps_.stack, "no stack");
    if (counts_) ++counts_->pushes;
    stack_.push_back(values_);
    return Status::ok();
  }
  Status rollback(std::size_t depth) override {
    PROWL_CHECK(caps_.stack, "no stack");
    PROWL_CHECK(depth < stack_.size(), "rollback past the stack");
    if (counts_) ++counts_->rollbacks;
    values_ = stack_[depth];
    stack_.resize(depth + 1);
    return Status::ok();
  }
  Result<SystemImagePtr> capture() override {
    PROWL_CHECK(caps_.portable, "not portable");
    if (counts_) ++counts_->captures;
    auto image = std::make_shared<Image>();
    image->values = values_;
    return SystemImagePtr(std::move(image));
  }
  Status load(const SystemImagePtr& image) override {
    PROWL_CHECK(caps_.portable, "not portable");
    if (counts_) ++counts_->loads;
    values_ = dynamic_cast<const Image&>(*image).values;
    return Status::ok();
  }
  Status reset() override {
    PROWL_CHECK(caps_.reset, "no reset");
    if (counts_) ++counts_->resets;
    values_ = initial_;
    return Status::ok();
  }

 private:
  struct Image final : SystemImage {
    std::vector<int> values;
  };
  Capabilities caps_;
  std::vector<int> values_;
  std::vector<int> initial_;
  std::vector<std::vector<int>> snaps_;
  std::vector<std::vector<int>> stack_;
  OpCounts* counts_;
};

inline Capabilities snapshot_caps() { return {true, true, true, false}; }
inline Capabilities stack_only() { return {false, true, false, false}; }
inline Capabilities reset_only() { return {false, false, true, false}; }
// Every capability but cheap: a live target whose copies load each other's images.
inline Capabilities portable_caps() {
  return {.snapshot = true, .stack = true, .reset = true, .cheap = false, .portable = true};
}

// K counters in 0..N-1 over a FakeSystem with the given capabilities: inc_i and reset_i.
inline Model fake_counters_model(Capabilities caps, int k, int n, OpCounts* counts = nullptr) {
  Model model("fake_counters");
  model.set_world([=]() -> Result<std::unique_ptr<World>> {
    auto world = std::make_unique<World>();
    world->emplace<FakeSystem>("counters", caps, static_cast<std::size_t>(k), counts);
    return world;
  });
  // Copies for other workers count nothing: the counts are not shared between threads.
  model.set_world_copies([=](std::size_t) -> Result<std::unique_ptr<World>> {
    auto world = std::make_unique<World>();
    world->emplace<FakeSystem>("counters", caps, static_cast<std::size_t>(k));
    return world;
  });
  auto values = [](World& w) -> std::vector<int>& {
    return static_cast<FakeSystem&>(w.system(0)).values();
  };
  auto cvalues = [](const World& w) -> const std::vector<int>& {
    return static_cast<const FakeSystem&>(w.system(0)).values();
  };
  for (int i = 0; i < k; ++i) {
    model.action("inc_" + std::to_string(i))
        .when([=](const World& w, const Context&) { return cvalues(w)[i] < n - 1; })
        .run([=](Step& s) {
          ++values(s.world)[i];
          return Outcome::ok();
        });
    model.action("reset_" + std::to_string(i))
        .when([=](const World& w, const Context&) { return cvalues(w)[i] > 0; })
        .run([=](Step& s) {
          values(s.world)[i] = 0;
          return Outcome::ok();
        });
  }
  return model;
}

}  // namespace prowl::testing
