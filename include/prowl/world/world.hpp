// World: the systems under test plus the Context of bindings, seen as one state that can be
// observed, saved and restored. The World picks its restore mode from the weakest capability of
// its systems (snapshot > stack > reset) and emulates the weaker operations with the stronger
// ones, so the RestorePlanner sees one of three uniform modes. The World owns its systems.
// Driven from one thread.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/context.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/core/status.hpp"
#include "prowl/world/system.hpp"

namespace prowl {

enum class RestoreMode { kSnapshot, kStack, kReset };
std::string_view to_string(RestoreMode mode);

using WorldSnapshot = std::uint32_t;

// A state of a whole world, its context and each system's image, that every copy of the world
// (built by the same model for another worker) can load. Immutable once captured.
struct WorldImage {
  Context context;
  std::vector<SystemImagePtr> systems;  // in the order the systems were added
};

class World {
 public:
  World() = default;
  // A world destroyed while begun (a run that failed half-way) is ended first, so its systems go
  // back to the initial state.
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Runs fn when the world is destroyed, after its systems (the services stopped, the files
  // closed): for what the world's builder made for it, such as a temporary directory.
  void on_destroyed(std::function<void()> fn) { on_destroyed_.push_back(std::move(fn)); }

  // What building or beginning this world did that the user should know, such as a database
  // put back from a run that did not end: one line each. The explorer adds them to its report's
  // warnings.
  void add_note(std::string note) { notes_.push_back(std::move(note)); }
  const std::vector<std::string>& notes() const { return notes_; }

  // Adds a system; the World owns it. REQUIRES: before begin(), unique name.
  System& add(std::unique_ptr<System> system);
  template <class S, class... Args>
  S& emplace(Args&&... args) {
    return static_cast<S&>(add(std::make_unique<S>(std::forward<Args>(args)...)));
  }

  std::size_t size() const { return systems_.size(); }
  System& system(std::size_t i) { return *systems_[i]; }
  const System& system(std::size_t i) const { return *systems_[i]; }
  System* find(std::string_view name);

  Context& context() { return context_; }
  const Context& context() const { return context_; }

  RestoreMode mode() const { return mode_; }
  // True when every system saves and restores at about the cost of a memcpy.
  bool cheap() const { return cheap_; }
  // True in snapshot mode when every system is portable (known after begin()): copies of this
  // world can load each other's images.
  bool portable() const { return portable_; }
  // The first system that is not portable (nullptr when all are).
  const System* first_not_portable() const;

  // Makes the current state (systems and context) the initial state. Call once before exploring.
  // Begins the systems in the order they were added; when one fails, those already begun are
  // ended (in order) before its Status is returned, as end() would have.
  Status begin();
  // Returns every system to the initial state and releases snapshots and savepoints.
  Status end();

  // Every system's observation, in the order the systems were added.
  Status observe(Hasher& hasher) const;
  // Each system's describe(), one "name: text" line per system that supports it.
  std::string describe() const;
  // The first system that died by itself (System::died()), and what ended it; nullptr and "" when
  // every system works.
  std::pair<const System*, std::string> dead_system() const;
  // The first system with a death it recovered from by itself and nobody reported
  // (System::take_unreported_death()), and what ended it; nullptr and "" when none. Takes it.
  std::pair<const System*, std::string> take_unreported_death();

  // kSnapshot mode only.
  Result<WorldSnapshot> save();
  Status restore(WorldSnapshot snapshot);
  void release(WorldSnapshot snapshot);
  std::size_t live_snapshots() const { return snap_context_.size() - snap_free_.size(); }
  // The handle system i keeps for a world snapshot, and the snapshot's context: for callers that
  // restore a byte-image system themselves (the explorer's fast path).
  SnapshotHandle system_handle(WorldSnapshot snapshot, std::size_t i) const {
    return snap_handles_[snapshot * systems_.size() + i];
  }
  void restore_context(WorldSnapshot snapshot) {
    if (!context_.shares(snap_context_[snapshot])) context_ = snap_context_[snapshot];
  }

  // portable() only: the current state as an image, and back to an image this world or a copy of
  // it captured.
  Result<std::shared_ptr<const WorldImage>> capture();
  Status load(const WorldImage& image);

  // kSnapshot and kStack modes. Savepoint 0 is the initial state.
  Status push();
  Status rollback(std::size_t depth);
  std::size_t depth() const { return stack_context_.size() - 1; }

  // Any mode: back to the initial state. Drops savepoints above 0.
  Status reset();

 private:
  std::vector<std::unique_ptr<System>> systems_;
  std::vector<std::function<void()>> on_destroyed_;
  std::vector<std::string> notes_;
  std::vector<Capabilities> caps_;
  Context context_;
  Context initial_context_;
  RestoreMode mode_ = RestoreMode::kSnapshot;
  bool cheap_ = true;
  bool portable_ = false;
  bool begun_ = false;

  // Snapshot records: context and one handle per system, flattened.
  std::vector<Context> snap_context_;
  std::vector<SnapshotHandle> snap_handles_;
  std::vector<WorldSnapshot> snap_free_;

  // Savepoint stack: context per level; systems without stack capability keep snapshot handles
  // (one row of size() handles per level above 0).
  std::vector<Context> stack_context_;
  std::vector<SnapshotHandle> stack_handles_;
  // Snapshot handle of each system's initial state, for systems that reset by restoring.
  std::vector<SnapshotHandle> initial_handles_;
};

}  // namespace prowl
