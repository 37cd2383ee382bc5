// What a learned exploration policy sees of an Env or any other View (docs/learned.md,
// "Features"): per offered move, and per state for the critic. Computed from the moves and the
// memory only, never from a hidden graph, so that the same features describe any environment.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "prowl/learn/env.hpp"

namespace prowl::learn {

// For each memory node, the known-route distance to the nearest node with untried moves (-1 when
// none is reachable): breadth first from every such node over the reversed known moves.
std::vector<int> frontier_distance(const Memory& m);

// For each memory node, its position if the moves' labels were displacements that commute, and a
// label and the label of a move that undid it (the memory knows u -a-> v and v -b-> u) opposite:
// dead reckoning, which holds on a grid (a maze's directions) and for a model whose actions add to
// and take from counters. One coordinate per label and its opposite. Empty when the memory
// contradicts it: two routes give a node two positions, two nodes share one, a move leads where it
// started, a label undoes itself, or a label and one that undid it already have coordinates that
// are not one and opposite; and when a move has no label.
struct LabelPositions {
  std::vector<std::vector<int>> of;  // by memory node, `axes` coordinates each
  int axes = 0;
  std::vector<std::pair<std::string, std::pair<int, int>>> labels;  // label -> (coordinate, ±1)
  // Where the move labelled `label` leads from memory node `from`, if the label is known.
  std::optional<std::vector<int>> after(int from, const std::string& label) const;
};
std::optional<LabelPositions> label_positions(const Memory& m);

// frontier_distance() to the nearest node with a promising untried move: one that `positions`
// does not place on a node of the memory (every untried move is promising at a node whose labels
// the memory does not know, and everywhere when `positions` is empty).
std::vector<int> promising_distance(const Memory& m,
                                    const std::optional<LabelPositions>& positions);

// The name of this feature set, recorded in policy files and checked when they are loaded.
inline constexpr std::string_view kMoveFeatureSet = "moves-v3";

// Per move: 1; whether its target is unknown (untried); whether it is back; for a known target,
// its visits (log(1 + v)), whether it has untried moves, and the known-route distance from it to
// the nearest node with untried moves (1 / (1 + d); 0 when there is none); the current node's
// untried moves (/ 4); the share of the budget spent; the share of this episode's moves with its
// label that reached a new node (0 when there were none); whether there were none; for an untried
// move, whether label_positions() puts its target on a node of the memory; for a known target, the
// known-route distance from it to the nearest node with a promising untried move (1 / (1 + d); 0
// when there is none; promising_distance()). (moves-v1 had the first 8: labels that name actions,
// as a model's do, tell which actions keep finding states; moves-v2 the first 10.)
inline constexpr int kMoveFeatures = 12;
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
