// The graph distributions of the paper's benchmarks: MAZE6 and ER-APP (docs/learned.md).
#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "prowl/core/rng.hpp"
#include "prowl/learn/env.hpp"

namespace prowl::learn {

namespace {

class Maze6 : public Env {
 public:
  static constexpr int kSide = 6;
  explicit Maze6(Mode mode) : Env(mode, kSide * kSide, false) {}
  std::string name() const override { return "maze6"; }
  std::unique_ptr<Env> fresh() const override { return std::make_unique<Maze6>(mode()); }

 private:
  int draw(std::uint64_t seed, std::vector<std::vector<GraphEdge>>& out) override {
    Rng rng(seed);
    constexpr int n = kSide * kSide;
    // open[cell][direction]: north, east, south, west.
    std::vector<std::array<bool, 4>> open(n, {false, false, false, false});
    std::vector<bool> seen(n, false);
    const auto neighbour = [](int cell, int d) {
      const int r = cell / kSide, c = cell % kSide;
      const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
      const int nr = r + dr[d], nc = c + dc[d];
      return nr < 0 || nr >= kSide || nc < 0 || nc >= kSide ? -1 : nr * kSide + nc;
    };
    // Recursive backtracker (depth first with a random unvisited neighbour): a perfect maze.
    std::vector<int> stack{static_cast<int>(rng.below(n))};
    seen[static_cast<std::size_t>(stack.back())] = true;
    while (!stack.empty()) {
      const int cell = stack.back();
      int choices[4], count = 0;
      for (int d = 0; d < 4; ++d) {
        const int next = neighbour(cell, d);
        if (next >= 0 && !seen[static_cast<std::size_t>(next)]) choices[count++] = d;
      }
      if (count == 0) {
        stack.pop_back();
        continue;
      }
      const int d = choices[rng.below(static_cast<std::uint64_t>(count))];
      const int next = neighbour(cell, d);
      open[static_cast<std::size_t>(cell)][static_cast<std::size_t>(d)] = true;
      open[static_cast<std::size_t>(next)][static_cast<std::size_t>((d + 2) % 4)] = true;
      seen[static_cast<std::size_t>(next)] = true;
      stack.push_back(next);
    }
    static const char* const kLabels[4] = {"north", "east", "south", "west"};
    out.assign(n, {});
    for (int cell = 0; cell < n; ++cell) {
      for (int d = 0; d < 4; ++d) {
        const int next = neighbour(cell, d);
        if (next < 0) continue;  // the outer boundary is known: never offered
        out[static_cast<std::size_t>(cell)].push_back(
            {kLabels[d],
             open[static_cast<std::size_t>(cell)][static_cast<std::size_t>(d)] ? next : -1, -1});
      }
    }
    // The reverse of each open edge (the maze is undirected).
    for (int cell = 0; cell < n; ++cell) {
      for (GraphEdge& e : out[static_cast<std::size_t>(cell)]) {
        if (e.to < 0) continue;
        const auto& back = out[static_cast<std::size_t>(e.to)];
        for (std::size_t i = 0; i < back.size(); ++i) {
          if (back[i].to == cell) e.reverse = static_cast<int>(i);
        }
      }
    }
    return static_cast<int>(rng.below(n));
  }
};

class ErApp : public Env {
 public:
  ErApp() : Env(Mode::kVision, 15, true) {}
  std::string name() const override { return "er-app"; }
  std::unique_ptr<Env> fresh() const override { return std::make_unique<ErApp>(); }

 private:
  int draw(std::uint64_t seed, std::vector<std::vector<GraphEdge>>& out) override {
    Rng rng(seed);
    const int n = 15 + static_cast<int>(rng.below(6));
    std::vector<std::vector<char>> edge(static_cast<std::size_t>(n), std::vector<char>(n, 0));
    for (int u = 0; u < n; ++u) {
      for (int v = 0; v < n; ++v) {
        if (u != v && rng.unit() < 0.1) edge[u][v] = 1;
      }
    }
    // A random spanning arborescence from the start: each node, in a random order, gets an edge
    // from one already reached.
    const int start = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
    std::vector<int> order;
    for (int v = 0; v < n; ++v) {
      if (v != start) order.push_back(v);
    }
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    std::vector<int> reached{start};
    for (int v : order) {
      edge[static_cast<std::size_t>(reached[rng.below(reached.size())])][v] = 1;
      reached.push_back(v);
    }
    out.assign(static_cast<std::size_t>(n), {});
    for (int u = 0; u < n; ++u) {
      for (int v = 0; v < n; ++v) {
        if (!edge[u][v]) continue;
        auto& edges = out[static_cast<std::size_t>(u)];
        edges.push_back({"action " + std::to_string(edges.size()), v, -1});
      }
    }
    return start;
  }
};

}  // namespace

std::unique_ptr<Env> make_maze6(Mode mode) { return std::make_unique<Maze6>(mode); }

std::unique_ptr<Env> make_er_app() { return std::make_unique<ErApp>(); }

Result<std::unique_ptr<Env>> make_env(std::string_view name, Mode mode) {
  if (name == "maze6") return make_maze6(mode);
  if (name == "er-app") {
    if (mode == Mode::kBump) {
      return Status::invalid("er-app has no walls to bump into: its mode is vision");
    }
    return make_er_app();
  }
  return Status::invalid("unknown environment '" + std::string(name) +
                         "' (the environments: maze6, er-app)");
}

}  // namespace prowl::learn
