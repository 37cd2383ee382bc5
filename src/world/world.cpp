#include "prowl/world/world.hpp"

#include <fmt/format.h>

namespace prowl {

std::string_view to_string(RestoreMode mode) {
  switch (mode) {
    case RestoreMode::kSnapshot:
      return "snapshot";
    case RestoreMode::kStack:
      return "stack";
    case RestoreMode::kReset:
      return "reset";
  }
  return "reset";
}

World::~World() {
  if (begun_) (void)end();  // best effort: a failure here has nowhere to go
  // Last added, first destroyed: a system may use those added before it.
  while (!systems_.empty()) systems_.pop_back();
  for (auto& fn : on_destroyed_) fn();
}

System& World::add(std::unique_ptr<System> system) {
  PROWL_CHECK(!begun_, "systems must be added before World::begin()");
  PROWL_CHECK(system != nullptr, "null system");
  PROWL_CHECK(find(system->name()) == nullptr, "duplicate system name '" + system->name() + "'");
  systems_.push_back(std::move(system));
  return *systems_.back();
}

System* World::find(std::string_view name) {
  for (auto& s : systems_) {
    if (s->name() == name) return s.get();
  }
  return nullptr;
}

Status World::begin() {
  PROWL_CHECK(!begun_, "World::begin() called twice");
  caps_.clear();
  bool all_snapshot = true;
  bool all_stack = true;
  cheap_ = true;
  portable_ = true;
  for (auto& s : systems_) {
    Capabilities c = s->capabilities();
    if (!c.snapshot && !c.stack && !c.reset) {
      return Status::invalid(
          fmt::format("system '{}' declares no capability (snapshot, stack or reset)", s->name()));
    }
    caps_.push_back(c);
    all_snapshot = all_snapshot && c.snapshot;
    all_stack = all_stack && (c.snapshot || c.stack);
    cheap_ = cheap_ && c.cheap;
    portable_ = portable_ && c.portable;
  }
  mode_ = all_snapshot ? RestoreMode::kSnapshot
                       : (all_stack ? RestoreMode::kStack : RestoreMode::kReset);
  portable_ = portable_ && mode_ == RestoreMode::kSnapshot;
  // A begin that fails half-way ends the systems already begun, in order: they go back to where
  // they were and drop what they hold for the run (a database's recovery record must not outlive
  // a run that ended, or a later recovery would undo the user's changes since).
  auto end_first = [&](std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) (void)systems_[k]->end();  // the first failure is the news
  };
  for (std::size_t k = 0; k < systems_.size(); ++k) {
    if (Status st = systems_[k]->begin(); !st) {
      end_first(k);
      return st;
    }
  }
  initial_handles_.assign(systems_.size(), 0);
  for (std::size_t i = 0; i < systems_.size(); ++i) {
    // A system without savepoints rolls back to level 0 (and, if it cannot reset, resets) by
    // restoring a copy of its initial state.
    if (caps_[i].snapshot && !caps_[i].stack) {
      auto h = systems_[i]->save();
      if (!h) {
        end_first(systems_.size());
        return h.status();
      }
      initial_handles_[i] = *h;
    }
  }
  initial_context_ = context_;
  stack_context_.assign(1, context_);
  stack_handles_.clear();
  begun_ = true;
  return Status::ok();
}

Status World::end() {
  if (!begun_) return Status::ok();
  // With savepoints or snapshots, rolling back to level 0 is cheap and exact. In reset mode each
  // system's end() returns it to the initial state itself (a service simply stops): resetting
  // first would restart a service only to stop it.
  Status result = mode_ == RestoreMode::kReset ? Status::ok() : rollback(0);
  context_ = initial_context_;
  for (std::size_t i = 0; i < systems_.size(); ++i) {
    Status st;
    if (mode_ == RestoreMode::kReset && !caps_[i].reset) {
      // A system that cannot reset is brought back by its savepoint 0 or its initial snapshot.
      st = caps_[i].stack ? systems_[i]->rollback(0) : systems_[i]->restore(initial_handles_[i]);
    }
    if (st) st = systems_[i]->end();
    if (result && !st) result = st;
  }
  snap_context_.clear();
  snap_handles_.clear();
  snap_free_.clear();
  stack_handles_.clear();
  begun_ = false;
  return result;
}

std::pair<const System*, std::string> World::dead_system() const {
  for (const auto& s : systems_) {
    if (std::string why = s->died(); !why.empty()) return {s.get(), std::move(why)};
  }
  return {nullptr, {}};
}

std::pair<const System*, std::string> World::take_unreported_death() {
  for (const auto& s : systems_) {
    if (std::string why = s->take_unreported_death(); !why.empty())
      return {s.get(), std::move(why)};
  }
  return {nullptr, {}};
}

Status World::observe(Hasher& hasher) const {
  for (const auto& s : systems_) {
    if (Status st = s->observe(hasher); !st) return st;
  }
  return Status::ok();
}

std::string World::describe() const {
  std::string out;
  for (const auto& s : systems_) {
    std::string text = s->describe();
    if (text.empty()) continue;
    if (!out.empty()) out += '\n';
    out += systems_.size() == 1 ? text : s->name() + ": " + text;
  }
  return out;
}

Result<WorldSnapshot> World::save() {
  PROWL_CHECK(mode_ == RestoreMode::kSnapshot, "World::save() needs snapshot mode");
  const std::size_t n = systems_.size();
  WorldSnapshot id;
  if (!snap_free_.empty()) {
    id = snap_free_.back();
    snap_free_.pop_back();
    snap_context_[id] = context_;
  } else {
    id = static_cast<WorldSnapshot>(snap_context_.size());
    snap_context_.push_back(context_);
    snap_handles_.resize(snap_handles_.size() + n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    auto h = systems_[i]->save();
    if (!h) return h.status();
    snap_handles_[id * n + i] = *h;
  }
  return id;
}

Status World::restore(WorldSnapshot snapshot) {
  const std::size_t n = systems_.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (Status st = systems_[i]->restore(snap_handles_[snapshot * n + i]); !st) return st;
  }
  restore_context(snapshot);
  return Status::ok();
}

void World::release(WorldSnapshot snapshot) {
  const std::size_t n = systems_.size();
  for (std::size_t i = 0; i < n; ++i) systems_[i]->release(snap_handles_[snapshot * n + i]);
  snap_context_[snapshot] = Context();
  snap_free_.push_back(snapshot);
}

const System* World::first_not_portable() const {
  for (const auto& s : systems_) {
    const Capabilities c = s->capabilities();
    if (!c.portable || !c.snapshot) return s.get();
  }
  return nullptr;
}

Result<std::shared_ptr<const WorldImage>> World::capture() {
  PROWL_CHECK(portable_, "World::capture() needs portable systems in snapshot mode");
  auto image = std::make_shared<WorldImage>();
  image->context = context_;
  image->systems.reserve(systems_.size());
  for (auto& s : systems_) {
    auto part = s->capture();
    if (!part) return part.status();
    image->systems.push_back(std::move(*part));
  }
  return std::shared_ptr<const WorldImage>(std::move(image));
}

Status World::load(const WorldImage& image) {
  PROWL_CHECK(portable_, "World::load() needs portable systems in snapshot mode");
  PROWL_CHECK(image.systems.size() == systems_.size(),
              "World::load() of an image of another kind of world");
  for (std::size_t i = 0; i < systems_.size(); ++i) {
    if (Status st = systems_[i]->load(image.systems[i]); !st) return st;
  }
  if (!context_.shares(image.context)) context_ = image.context;
  return Status::ok();
}

Status World::push() {
  PROWL_CHECK(mode_ != RestoreMode::kReset, "World::push() needs snapshot or stack mode");
  const std::size_t n = systems_.size();
  stack_handles_.resize(stack_handles_.size() + n);
  SnapshotHandle* row = stack_handles_.data() + stack_handles_.size() - n;
  for (std::size_t i = 0; i < n; ++i) {
    if (caps_[i].stack) {
      if (Status st = systems_[i]->push(); !st) return st;
    } else {
      auto h = systems_[i]->save();
      if (!h) return h.status();
      row[i] = *h;
    }
  }
  stack_context_.push_back(context_);
  return Status::ok();
}

Status World::rollback(std::size_t d) {
  PROWL_CHECK(mode_ != RestoreMode::kReset, "World::rollback() needs snapshot or stack mode");
  PROWL_CHECK(d <= depth(), "rollback above the current savepoint");
  const std::size_t n = systems_.size();
  for (std::size_t i = 0; i < n; ++i) {
    Status st;
    if (caps_[i].stack) {
      st = systems_[i]->rollback(d);
    } else {
      // Levels above d are dropped; level d is restored (level 0 is the initial snapshot).
      for (std::size_t level = depth(); level > d; --level) {
        systems_[i]->release(stack_handles_[(level - 1) * n + i]);
      }
      st = systems_[i]->restore(d == 0 ? initial_handles_[i] : stack_handles_[(d - 1) * n + i]);
    }
    if (!st) return st;
  }
  stack_handles_.resize(d * n);
  stack_context_.resize(d + 1);
  context_ = stack_context_.back();
  return Status::ok();
}

Status World::reset() {
  if (mode_ != RestoreMode::kReset) return rollback(0);
  for (std::size_t i = 0; i < systems_.size(); ++i) {
    Status st;
    if (caps_[i].reset) {
      st = systems_[i]->reset();
    } else if (caps_[i].stack) {
      st = systems_[i]->rollback(0);
    } else {
      st = systems_[i]->restore(initial_handles_[i]);
    }
    if (!st) return st;
  }
  context_ = initial_context_;
  return Status::ok();
}

}  // namespace prowl
