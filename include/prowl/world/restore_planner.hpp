// RestorePlanner: brings the World to any explored state by the cheapest route its restore mode
// allows, so that every strategy works with every system:
//   snapshot  restore the state's snapshot (or the nearest ancestor's, then replay the rest);
//   stack     roll back to the deepest savepoint shared by the current path and the target's
//             path, then replay the rest of the target's path, pushing a savepoint per step;
//   reset     replay from the current state when it lies on the target's path, else reset and
//             replay the whole path.
// It counts the actions it re-executes. The planner does not own the World or the tree; it is
// driven from the explorer's thread, only between actions.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "prowl/core/chunked_vector.hpp"
#include "prowl/world/state_tree.hpp"
#include "prowl/world/world.hpp"

namespace prowl {

class RestorePlanner {
 public:
  // Re-executes `action` from state `from`; must leave the world at state `to` or fail (a
  // Status with code kInternal when the system did not reach the same state).
  using ReplayFn = std::function<Status(StateId from, ActionId action, StateId to)>;

  RestorePlanner(World& world, const StateTree& tree, ReplayFn replay);

  // The world is at the initial state `root`. REQUIRES: world.begin() was called.
  Status begin(StateId root);
  // The world ran an action from the current state and is now at `to`.
  void moved(StateId to);
  // The caller wrote state s into the world directly (snapshot mode: the explorer's byte-image
  // path); the world is at s.
  void placed(StateId s) {
    current_ = s;
    known_ = true;
    at_savepoint_ = false;
  }
  // The world is at the new state s: keep what is needed to come back to it.
  Status discovered(StateId s);
  // No strategy will ask for s again: free its snapshot.
  void release(StateId s);
  // The world's state is unknown (an action failed half-way); the next go_to restores.
  void invalidate() { known_ = false; }

  // Brings the world to `target`.
  Status go_to(StateId target);

  StateId current() const { return known_ ? current_ : kNoState; }
  // Snapshot mode: the snapshot kept for s, or kNone when it has none.
  static constexpr std::uint32_t kNone = 0xffffffffu;
  std::uint32_t snapshot_of(StateId s) const {
    return s < snapshots_.size() ? snapshots_[s] : kNone;
  }
  std::uint64_t replayed() const { return replayed_; }
  std::uint64_t restores() const { return restores_; }

 private:
  Status replay_chain(std::size_t from_index);
  void load_chain(StateId target);

  static constexpr std::uint32_t kNoSnapshot = kNone;

  World& world_;
  const StateTree& tree_;
  ReplayFn replay_;
  StateId root_ = kNoState;
  StateId current_ = kNoState;
  bool known_ = false;
  // snapshot mode: snapshot per state.
  detail::ChunkedVector<std::uint32_t> snapshots_;
  // stack mode: path_[d] is the state saved at savepoint d; at_savepoint_ when current_ is
  // path_.back() and nothing ran since.
  std::vector<StateId> path_;
  bool at_savepoint_ = true;
  // scratch: states root..target of the target's path.
  std::vector<StateId> chain_;
  std::uint64_t replayed_ = 0;
  std::uint64_t restores_ = 0;
};

}  // namespace prowl
