#include "prowl/world/restore_planner.hpp"

#include <algorithm>

namespace prowl {

RestorePlanner::RestorePlanner(World& world, const StateTree& tree, ReplayFn replay)
    : world_(world), tree_(tree), replay_(std::move(replay)) {}

Status RestorePlanner::begin(StateId root) {
  root_ = current_ = root;
  known_ = true;
  path_.assign(1, root);
  at_savepoint_ = true;
  if (world_.mode() == RestoreMode::kSnapshot) return discovered(root);
  return Status::ok();
}

void RestorePlanner::moved(StateId to) {
  current_ = to;
  at_savepoint_ = false;
}

Status RestorePlanner::discovered(StateId s) {
  if (world_.mode() != RestoreMode::kSnapshot) return Status::ok();
  if (snapshots_.size() <= s) snapshots_.resize(static_cast<std::size_t>(s) + 1, kNoSnapshot);
  auto snap = world_.save();
  if (!snap) return snap.status();
  snapshots_[s] = *snap;
  return Status::ok();
}

void RestorePlanner::release(StateId s) {
  if (world_.mode() != RestoreMode::kSnapshot || s == root_ || s >= snapshots_.size()) return;
  if (snapshots_[s] == kNoSnapshot) return;
  world_.release(snapshots_[s]);
  snapshots_[s] = kNoSnapshot;
}

void RestorePlanner::load_chain(StateId target) {
  chain_.clear();
  for (StateId s = target; s != kNoState; s = tree_.parent(s)) chain_.push_back(s);
  std::reverse(chain_.begin(), chain_.end());
}

Status RestorePlanner::replay_chain(std::size_t from_index) {
  const bool stack = world_.mode() == RestoreMode::kStack;
  for (std::size_t i = from_index + 1; i < chain_.size(); ++i) {
    const StateId to = chain_[i];
    Status st = replay_(chain_[i - 1], tree_.parent_action(to), to);
    ++replayed_;
    if (!st) {
      known_ = false;
      return st;
    }
    current_ = to;
    if (stack) {
      if (Status p = world_.push(); !p) return p;
      path_.push_back(to);
    }
  }
  at_savepoint_ = stack;
  return Status::ok();
}

Status RestorePlanner::go_to(StateId target) {
  if (known_ && current_ == target) {
    if (world_.mode() == RestoreMode::kStack && !at_savepoint_) {
      if (Status st = world_.push(); !st) return st;
      path_.push_back(target);
      at_savepoint_ = true;
    }
    return Status::ok();
  }
  switch (world_.mode()) {
    case RestoreMode::kSnapshot: {
      if (target < snapshots_.size() && snapshots_[target] != kNoSnapshot) {
        ++restores_;
        if (Status st = world_.restore(snapshots_[target]); !st) return st;
        current_ = target;
        known_ = true;
        return Status::ok();
      }
      // The snapshot was released: restore the nearest ancestor that has one, then replay.
      load_chain(target);
      std::size_t k = chain_.size() - 1;
      while (k > 0 && (chain_[k] >= snapshots_.size() || snapshots_[chain_[k]] == kNoSnapshot)) {
        --k;
      }
      ++restores_;
      if (Status st = world_.restore(snapshots_[chain_[k]]); !st) return st;
      current_ = chain_[k];
      known_ = true;
      return replay_chain(k);
    }
    case RestoreMode::kStack: {
      load_chain(target);
      std::size_t k = 0;
      const std::size_t limit = std::min(path_.size(), chain_.size());
      while (k + 1 < limit && path_[k + 1] == chain_[k + 1]) ++k;
      ++restores_;
      if (Status st = world_.rollback(k); !st) return st;
      path_.resize(k + 1);
      current_ = chain_[k];
      known_ = true;
      at_savepoint_ = true;
      return replay_chain(k);
    }
    case RestoreMode::kReset: {
      load_chain(target);
      std::size_t k = 0;
      bool on_path = false;
      if (known_) {
        auto it = std::find(chain_.begin(), chain_.end(), current_);
        if (it != chain_.end()) {
          k = static_cast<std::size_t>(it - chain_.begin());
          on_path = true;
        }
      }
      if (!on_path) {
        ++restores_;
        if (Status st = world_.reset(); !st) return st;
        current_ = chain_[0];
        known_ = true;
      }
      return replay_chain(k);
    }
  }
  return Status::ok();
}

}  // namespace prowl
