#include "prowl/strategy/weighted.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "prowl/core/status.hpp"

namespace prowl {

Weighted::Weighted(std::vector<double> weights, std::uint64_t seed)
    : weights_(std::move(weights)),
      rng_(seed),
      buckets_(weights_.size()),
      leaves_(std::bit_ceil(std::max<std::size_t>(1, weights_.size()))),
      tree_(2 * leaves_, 0.0) {
  for (std::size_t a = 0; a < weights_.size(); ++a) {
    PROWL_CHECK(std::isfinite(weights_[a]) && weights_[a] > 0,
                fmt::format("Weighted: the weight of action {} is {}; weights must be > 0", a,
                            weights_[a]));
  }
}

void Weighted::update(ActionId action) {
  std::size_t i = leaves_ + action;
  tree_[i] = weights_[action] * static_cast<double>(buckets_[action].size());
  for (i /= 2; i >= 1; i /= 2) tree_[i] = tree_[2 * i] + tree_[2 * i + 1];
}

void Weighted::notify(const Graph&, StateId state, std::span<const ActionId> enabled) {
  for (ActionId a : enabled) {
    PROWL_CHECK(a < weights_.size(),
                fmt::format("Weighted: action {} has no weight ({} weights)", a, weights_.size()));
    buckets_[a].push_back(state);
    update(a);
  }
}

std::optional<Pair> Weighted::pick(const Graph& graph) {
  while (tree_[1] > 0) {
    // Walk down the sum tree. A child with sum 0 is never entered, so rounding in r can only
    // shift the draw between non-empty buckets, never land on an empty one.
    double r = rng_.unit() * tree_[1];
    std::size_t i = 1;
    while (i < leaves_) {
      const double left = tree_[2 * i];
      const double right = tree_[2 * i + 1];
      if (right <= 0 || (left > 0 && r < left)) {
        i = 2 * i;
      } else {
        if (left > 0) r -= left;
        i = 2 * i + 1;
      }
    }
    const auto a = static_cast<ActionId>(i - leaves_);
    std::vector<StateId>& bucket = buckets_[a];
    const auto j = static_cast<std::size_t>(rng_.below(bucket.size()));
    const StateId s = bucket[j];
    bucket[j] = bucket.back();
    bucket.pop_back();
    update(a);
    // Only our own picks explore pairs; the check keeps a stale pair from reaching the explorer.
    if (graph.is_unexplored(s, a)) return Pair{s, a};
  }
  return std::nullopt;
}

}  // namespace prowl
