// A small undirected tree as an exploration environment, for the learn tests.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "prowl/learn/env.hpp"

namespace prowl::learn {

// The tree of the given edges (u, v) over nodes 0..edges.size(), start 0, vision mode.
class Tree : public Env {
 public:
  Tree(std::vector<std::pair<int, int>> edges, int budget)
      : Env(Mode::kVision, budget, false), edges_(std::move(edges)) {}
  std::string name() const override { return "tree"; }
  std::unique_ptr<Env> fresh() const override { return std::make_unique<Tree>(edges_, budget()); }

  // The seeds of every reset, in order (this env's, not its fresh() copies').
  std::vector<std::uint64_t> seeds;

 private:
  int draw(std::uint64_t seed, std::vector<std::vector<GraphEdge>>& out) override {
    seeds.push_back(seed);
    out.assign(edges_.size() + 1, {});
    for (const auto& [u, v] : edges_) {
      auto& at_u = out[static_cast<std::size_t>(u)];
      auto& at_v = out[static_cast<std::size_t>(v)];
      at_u.push_back({"to " + std::to_string(v), v, static_cast<int>(at_v.size())});
      at_v.push_back({"to " + std::to_string(u), u, static_cast<int>(at_u.size()) - 1});
    }
    return 0;
  }
  std::vector<std::pair<int, int>> edges_;
};

}  // namespace prowl::learn
