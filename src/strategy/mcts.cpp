#include "prowl/strategy/mcts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "prowl/core/status.hpp"

namespace prowl {

Mcts::Mcts(double exploration_weight, double violation_reward, double new_state_reward,
           std::uint64_t seed)
    : exploration_weight_(exploration_weight),
      violation_reward_(violation_reward),
      new_state_reward_(new_state_reward),
      rng_(seed) {
  for (double v : {exploration_weight, violation_reward, new_state_reward}) {
    PROWL_CHECK(std::isfinite(v) && v >= 0,
                fmt::format("Mcts: parameters must be finite and >= 0, got {}", v));
  }
}

std::uint64_t Mcts::visits(StateId s) const {
  if (s == root_) return root_visits_;
  if (s >= nodes_.size() || nodes_[s].parent == kNoState) return 0;
  return nodes_[nodes_[s].parent].children[nodes_[s].slot].visits;
}

double Mcts::reward(StateId s) const {
  if (s == root_) return root_reward_;
  if (s >= nodes_.size() || nodes_[s].parent == kNoState) return 0;
  return nodes_[nodes_[s].parent].children[nodes_[s].slot].reward;
}

void Mcts::reserve(StateId s) {
  PROWL_CHECK(s != kNoState, "Mcts: kNoState is not a state");
  if (s >= nodes_.size()) nodes_.resize(static_cast<std::size_t>(s) + 1);
}

void Mcts::notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) {
  const StateId parent = state == graph.initial() ? kNoState : graph.parent(state);
  reserve(std::max(state, parent == kNoState ? state : parent));
  if (state == graph.initial()) root_ = state;
  Node& n = nodes_[state];
  PROWL_CHECK(!n.known, fmt::format("Mcts: state {} was notified twice", state));
  n.known = true;
  n.parent = parent;
  n.actions.assign(enabled.begin(), enabled.end());
  n.exhausted = enabled.empty();
  remaining_ += enabled.size();
  if (!enabled.empty()) open_.push_back(state);
  if (parent == kNoState) return;

  Node& p = nodes_[parent];
  n.slot = static_cast<std::uint32_t>(p.children.size());
  p.children.push_back({0.0, 0, state, n.exhausted});
  if (n.exhausted) {
    // A leaf from the start: its parent may have been waiting only for this step.
    if (!p.exhausted && p.actions.empty() && p.live == 0) mark_exhausted(parent);
    return;
  }
  if (p.exhausted) revive(parent);
  ++p.live;
}

void Mcts::set_exhausted(StateId s, bool exhausted) {
  Node& n = nodes_[s];
  n.exhausted = exhausted;
  if (n.parent == kNoState) return;
  Node& p = nodes_[n.parent];
  p.children[n.slot].exhausted = exhausted;
  if (exhausted) {
    --p.live;
  } else {
    ++p.live;
  }
}

void Mcts::revive(StateId s) {
  for (; s != kNoState && nodes_[s].exhausted; s = nodes_[s].parent) set_exhausted(s, false);
}

void Mcts::mark_exhausted(StateId s) {
  while (!nodes_[s].exhausted) {
    set_exhausted(s, true);
    const StateId parent = nodes_[s].parent;
    if (parent == kNoState) return;
    const Node& p = nodes_[parent];
    if (!p.actions.empty() || p.live > 0) return;
    s = parent;
  }
}

std::optional<Pair> Mcts::take(const Graph& graph, StateId s) {
  std::vector<ActionId>& actions = nodes_[s].actions;
  while (!actions.empty()) {
    const auto i = static_cast<std::size_t>(rng_.below(actions.size()));
    const ActionId a = actions[i];
    actions[i] = actions.back();
    actions.pop_back();
    --remaining_;
    // Only our own picks explore pairs; the check keeps a stale pair from reaching the explorer.
    if (graph.is_unexplored(s, a)) return Pair{s, a};
  }
  return std::nullopt;
}

const Mcts::Child* Mcts::select_child(const Node& n, std::uint64_t visits) const {
  const Child* best = nullptr;
  double best_score = -std::numeric_limits<double>::infinity();
  // C * sqrt(ln(N) / v) = (C * sqrt(ln N)) / sqrt(v): one log per node, no log per child.
  const double scale = exploration_weight_ *
                       std::sqrt(std::log(static_cast<double>(std::max<std::uint64_t>(1, visits))));
  for (const Child& c : n.children) {
    if (c.exhausted) continue;
    if (c.visits == 0) return &c;
    const auto v = static_cast<double>(c.visits);
    const double score = c.reward / v + scale / std::sqrt(v);
    if (score > best_score) {
      best = &c;
      best_score = score;
    }
  }
  return best;
}

std::optional<Pair> Mcts::pick(const Graph& graph) {
  while (remaining_ > 0) {
    if (root_ != kNoState && !nodes_[root_].exhausted) {
      StateId s = root_;
      std::uint64_t visits = root_visits_;
      for (;;) {
        Node& n = nodes_[s];
        if (!n.actions.empty()) {
          if (auto p = take(graph, s)) return p;
          continue;
        }
        const Child* child = select_child(n, visits);
        if (child == nullptr) {
          // Nothing left below s (a step that ended without feedback can leave it unmarked).
          mark_exhausted(s);
          break;
        }
        visits = child->visits;
        s = child->id;
      }
      continue;
    }
    // The walk reaches nothing more: take a pair of a state outside the tree.
    while (!open_.empty()) {
      const StateId s = open_.back();
      if (nodes_[s].actions.empty()) {
        open_.pop_back();
        continue;
      }
      if (auto p = take(graph, s)) {
        ++fallback_picks_;
        return p;
      }
    }
    PROWL_CHECK(remaining_ == 0, "Mcts: lost track of unexplored pairs");
  }
  return std::nullopt;
}

void Mcts::observe(const Graph&, const StepResult& result) {
  const StateId s = result.pair.state;
  if (s >= nodes_.size() || !nodes_[s].known) return;
  const double reward =
      (result.new_state ? new_state_reward_ : 0.0) + (result.violation ? violation_reward_ : 0.0);
  StateId x = s;
  for (StateId parent = nodes_[x].parent; parent != kNoState; parent = nodes_[x].parent) {
    Child& c = nodes_[parent].children[nodes_[x].slot];
    c.reward += reward;
    ++c.visits;
    x = parent;
  }
  if (x == root_) {
    root_reward_ += reward;
    ++root_visits_;
  }
  const Node& n = nodes_[s];
  if (!n.exhausted && n.actions.empty() && n.live == 0) mark_exhausted(s);
}

}  // namespace prowl
