#include "prowl/learn/baselines.hpp"

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"

namespace prowl::learn {

namespace {

// The indexes of the offered moves whose targets are unknown.
std::vector<std::size_t> untried(const Env& env) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < env.moves().size(); ++i) {
    if (env.moves()[i].target < 0 && !env.moves()[i].back) out.push_back(i);
  }
  return out;
}

std::size_t pick(Rng& rng, const std::vector<std::size_t>& from) {
  return from[rng.below(from.size())];
}

// The first move of a shortest known route from the current memory node to `to` (BFS over the
// memory's edges, which are the moves the agent knows the targets of); moves().size() if none.
std::size_t toward(const Env& env, int to) {
  const Memory& m = env.memory();
  for (std::size_t i = 0; i < env.moves().size(); ++i) {
    if (env.moves()[i].target == to) return i;
  }
  std::vector<int> first(static_cast<std::size_t>(m.nodes()), -1);  // node -> the move index
  std::deque<int> queue;
  for (std::size_t i = 0; i < env.moves().size(); ++i) {
    const int t = env.moves()[i].target;
    if (t >= 0 && first[static_cast<std::size_t>(t)] < 0) {
      first[static_cast<std::size_t>(t)] = static_cast<int>(i);
      queue.push_back(t);
    }
  }
  while (!queue.empty()) {
    const int node = queue.front();
    queue.pop_front();
    if (node == to) return static_cast<std::size_t>(first[static_cast<std::size_t>(node)]);
    for (const Memory::Edge& e : m.edges[static_cast<std::size_t>(node)]) {
      if (e.to >= 0 && first[static_cast<std::size_t>(e.to)] < 0) {
        first[static_cast<std::size_t>(e.to)] = first[static_cast<std::size_t>(node)];
        queue.push_back(e.to);
      }
    }
  }
  return env.moves().size();
}

// When no known route leads where a policy wants to go (a route through several `back`s, which
// the memory does not hold): the back move if offered, else a random one.
std::size_t fallback(const Env& env, Rng& rng) {
  for (std::size_t i = 0; i < env.moves().size(); ++i) {
    if (env.moves()[i].back) return i;
  }
  return rng.below(env.moves().size());
}

// The nearest node with untried moves, breadth first: from the current node's known moves
// (back included), then over the memory's edges; -1 when none is known to be reachable.
int nearest_frontier(const Env& env) {
  const Memory& m = env.memory();
  if (m.untried[static_cast<std::size_t>(m.current)] > 0) return m.current;
  std::vector<char> seen(static_cast<std::size_t>(m.nodes()), 0);
  seen[static_cast<std::size_t>(m.current)] = 1;
  std::deque<int> queue;
  for (const Move& move : env.moves()) {
    if (move.target >= 0 && !seen[static_cast<std::size_t>(move.target)]) {
      seen[static_cast<std::size_t>(move.target)] = 1;
      queue.push_back(move.target);
    }
  }
  while (!queue.empty()) {
    const int node = queue.front();
    queue.pop_front();
    if (m.untried[static_cast<std::size_t>(node)] > 0) return node;
    for (const Memory::Edge& e : m.edges[static_cast<std::size_t>(node)]) {
      if (e.to >= 0 && !seen[static_cast<std::size_t>(e.to)]) {
        seen[static_cast<std::size_t>(e.to)] = 1;
        queue.push_back(e.to);
      }
    }
  }
  return -1;
}

}  // namespace

double run_random(Env& env, std::uint64_t seed) {
  Rng rng(seed);
  while (!env.done() && !env.moves().empty()) env.step(rng.below(env.moves().size()));
  return env.coverage();
}

double run_randdfs(Env& env, std::uint64_t seed) {
  Rng rng(seed);
  // The depth-first parent of each memory node: where the agent was when it first got there.
  std::vector<int> parent(1, -1);
  while (!env.done() && !env.moves().empty()) {
    const std::vector<std::size_t> fresh = untried(env);
    const int here = env.memory().current;
    std::size_t move = env.moves().size();
    if (!fresh.empty()) {
      move = pick(rng, fresh);
    } else if (parent[static_cast<std::size_t>(here)] >= 0) {
      move = toward(env, parent[static_cast<std::size_t>(here)]);
    }
    if (move == env.moves().size()) move = fallback(env, rng);
    env.step(move);
    parent.resize(static_cast<std::size_t>(env.memory().nodes()), -1);
    const int now = env.memory().current;
    if (now != here && now != 0 && parent[static_cast<std::size_t>(now)] < 0) {
      parent[static_cast<std::size_t>(now)] = here;
    }
  }
  return env.coverage();
}

double run_greedy(Env& env, std::uint64_t seed) {
  Rng rng(seed);
  while (!env.done() && !env.moves().empty()) {
    const std::vector<std::size_t> fresh = untried(env);
    if (!fresh.empty()) {
      env.step(pick(rng, fresh));
      continue;
    }
    const int goal = nearest_frontier(env);
    std::size_t move = goal < 0 ? env.moves().size() : toward(env, goal);
    if (move == env.moves().size()) move = fallback(env, rng);
    env.step(move);
  }
  return env.coverage();
}

double run_qtable(Env& env, std::uint64_t seed, const QtableOptions& options) {
  Rng rng(seed);
  const std::uint64_t graph = env.graph_seed();
  const bool history = options.state == QState::kHistory;
  std::unordered_map<std::string, double> q;
  // kNode: the graph node alone, as the paper's baseline. kHistory adds the step, the nodes
  // visited (coverage's reward depends on them) and the back stack (where `back` leads).
  std::string visited, stack;
  const auto key = [&](std::size_t move) {
    std::string k = std::to_string(env.graph_node());
    if (history) k += "/" + std::to_string(env.steps()) + "/" + visited + "/" + stack;
    return k + "/" + env.moves()[move].label;
  };
  const auto best = [&](double& value) {
    std::size_t choice = 0;
    value = -1;
    for (std::size_t i = 0; i < env.moves().size(); ++i) {
      const auto it = q.find(key(i));
      const double v = it == q.end() ? 0 : it->second;
      if (v > value) value = v, choice = i;
    }
    return choice;
  };
  // One episode from the graph's start: ε-greedy and learning, or greedy (ε = 0) and not.
  std::vector<std::size_t> walk;
  const auto episode = [&](double epsilon) {
    const bool learn = epsilon > 0;
    env.reset(graph);
    walk.clear();
    visited.assign(static_cast<std::size_t>(env.graph_nodes()), '0');
    visited[static_cast<std::size_t>(env.graph_node())] = '1';
    stack.clear();
    while (!env.done() && !env.moves().empty()) {
      double unused = 0;
      const std::size_t move = rng.unit() < epsilon ? rng.below(env.moves().size()) : best(unused);
      const std::string k = learn ? key(move) : std::string();
      const int from = env.graph_node();
      const int depth = env.back_depth();
      const double reward = env.step(move);
      walk.push_back(move);
      visited[static_cast<std::size_t>(env.graph_node())] = '1';
      // The back stack as the env keeps it (a move that stays where it is pushes too).
      if (env.back_depth() < depth) {
        stack.erase(stack.rfind(','));
      } else if (env.back_depth() > depth) {
        stack += "," + std::to_string(from);
      }
      if (!learn) continue;
      double next = 0;
      if (!env.done() && !env.moves().empty()) best(next);
      double& value = q[k];
      value += 0.5 * (reward + next - value);
    }
    return env.coverage();
  };
  // The greedy run after each training episode; the best of them is the one reported (the
  // paper's "best performance it can reach"), and played again last so that the env ends in it.
  double reached = episode(0);
  std::vector<std::size_t> best_walk = walk;
  for (int e = 0; e < options.episodes; ++e) {
    episode(std::max(0.05, 1.0 - static_cast<double>(e) / (0.8 * options.episodes)));
    if (const double c = episode(0); c > reached) reached = c, best_walk = walk;
  }
  env.reset(graph);
  for (std::size_t move : best_walk) env.step(move);
  return env.coverage();
}

namespace {

class Optimum {
 public:
  explicit Optimum(const Env& env) : env_(env) {}

  int best(int start) {
    best_ = 1;
    search(start, std::uint64_t{1} << start, env_.budget(), 1);
    return best_;
  }

 private:
  void search(int node, std::uint64_t visited, int left, int covered) {
    best_ = std::max(best_, covered);
    const int reachable_more = env_.graph_nodes() - covered;
    if (covered + std::min(left, reachable_more) <= best_ || left == 0) return;
    // The whole state as the key (a hash alone could collide and prune the optimum away).
    std::string key(reinterpret_cast<const char*>(&visited), sizeof visited);
    key += static_cast<char>(node);
    key += static_cast<char>(left);
    for (int s : stack_) key += static_cast<char>(s);
    if (!seen_.insert(std::move(key)).second) return;
    const auto& edges = env_.graph()[static_cast<std::size_t>(node)];
    // New nodes first: a good walk early prunes the rest.
    for (const bool fresh : {true, false}) {
      for (const auto& e : edges) {
        if (e.to < 0 || (((visited >> e.to) & 1) == 0) != fresh) continue;
        if (env_.has_back()) stack_.push_back(node);
        search(e.to, visited | (std::uint64_t{1} << e.to), left - 1, covered + (fresh ? 1 : 0));
        if (env_.has_back()) stack_.pop_back();
      }
    }
    if (env_.has_back() && !stack_.empty()) {
      const int parent = stack_.back();
      stack_.pop_back();
      search(parent, visited, left - 1, covered);
      stack_.push_back(parent);
    }
  }

  const Env& env_;
  int best_ = 1;
  std::vector<int> stack_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

double optimal_coverage(const Env& env) {
  PROWL_CHECK(env.graph_nodes() >= 1 && env.graph_nodes() <= 64,
              "optimal_coverage: a reset env of at most 64 nodes");
  Optimum search(env);
  return static_cast<double>(search.best(env.graph_node())) / env.graph_nodes();
}

}  // namespace prowl::learn
