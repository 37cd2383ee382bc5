// What a learned exploration policy sees of an Env or any other View (docs/learned.md,
// "Features"): per offered move, and per state for the critic. Computed from the moves and the
// memory only, never from a hidden graph, so that the same features describe any environment.
#pragma once

#include <string_view>
#include <vector>

#include <Eigen/Dense>

#include "prowl/learn/env.hpp"

namespace prowl::learn {

// For each memory node, the known-route distance to the nearest node with untried moves (-1 when
// none is reachable): breadth first from every such node over the reversed known moves.
std::vector<int> frontier_distance(const Memory& m);

// The name of this feature set, recorded in policy files and checked when they are loaded.
inline constexpr std::string_view kMoveFeatureSet = "moves-v2";

// Per move: 1; whether its target is unknown (untried); whether it is back; for a known target,
// its visits (log(1 + v)), whether it has untried moves, and the known-route distance from it to
// the nearest node with untried moves (1 / (1 + d); 0 when there is none); the current node's
// untried moves (/ 4); the share of the budget spent; the share of this episode's moves with its
// label that reached a new node (0 when there were none); whether there were none. (moves-v1 had
// the first 8: labels that name actions, as a model's do, tell which actions keep finding states.)
inline constexpr int kMoveFeatures = 10;
std::vector<Eigen::VectorXd> move_features(const View& view);
// The same with frontier_distance(*view.memory) computed already (for several views of one memory).
std::vector<Eigen::VectorXd> move_features(const View& view, const std::vector<int>& distance);
// The same features as the columns of one matrix (kMoveFeatures rows, a column per move).
Eigen::MatrixXd move_feature_columns(const View& view, const std::vector<int>& distance);

// Per state: 1; the share of the budget spent; the coverage so far; the share of the memory's
// nodes with untried moves.
inline constexpr int kStateFeatures = 4;
Eigen::VectorXd state_features(const View& view);

}  // namespace prowl::learn
