#include <optional>
#include <utility>

#include "programs.hpp"

namespace prowl::wc::examples {

namespace {

// A binary min-heap of (distance, node) with lazy deletion, as a textbook Dijkstra uses it: each
// comparison of two symbolic distances is a decision at one of two sites (sift-up, sift-down).
class MinHeap {
 public:
  explicit MinHeap(SymExec& ex) : ex_(ex) {}

  bool empty() const { return items_.empty(); }

  void push(z3::expr distance, int node) {
    items_.emplace_back(std::move(distance), node);
    for (std::size_t at = items_.size() - 1; at > 0;) {
      const std::size_t parent = (at - 1) / 2;
      if (!ex_.branch(PROWL_SITE, items_[at].first < items_[parent].first)) break;
      std::swap(items_[at], items_[parent]);
      at = parent;
    }
  }

  std::pair<z3::expr, int> pop() {
    std::pair<z3::expr, int> top = items_.front();
    items_.front() = items_.back();
    items_.pop_back();
    for (std::size_t at = 0;;) {
      std::size_t least = at;
      for (const std::size_t child : {2 * at + 1, 2 * at + 2}) {
        if (child < items_.size() &&
            ex_.branch(PROWL_SITE, items_[child].first < items_[least].first)) {
          least = child;
        }
      }
      if (least == at) break;
      std::swap(items_[at], items_[least]);
      at = least;
    }
    return top;
  }

 private:
  SymExec& ex_;
  std::vector<std::pair<z3::expr, int>> items_;
};

}  // namespace

void dijkstra(SymExec& ex, int n) {
  // The complete directed graph on n nodes; the weight of u -> v is w[u * (n - 1) + k].
  const std::vector<z3::expr> w = ex.array("w", n * (n - 1));
  const auto weight = [&](int u, int v) { return w[u * (n - 1) + (v < u ? v : v - 1)]; };
  // Negative weights are rejected, as a library's Dijkstra does.
  for (const z3::expr& x : w) {
    if (ex.branch(PROWL_SITE, x < 0)) return;
  }
  std::vector<std::optional<z3::expr>> dist(n);
  std::vector<bool> done(n, false);
  MinHeap heap(ex);
  dist[0] = ex.context().int_val(0);
  heap.push(*dist[0], 0);
  while (!heap.empty()) {
    const auto [d, u] = heap.pop();
    if (done[u]) continue;  // a stale entry: u was settled by a shorter one
    done[u] = true;
    for (int v = 0; v < n; ++v) {
      if (v == u || done[v]) continue;
      const z3::expr through = d + weight(u, v);
      // An unreached node is reached; a reached one only when the path through u is shorter.
      if (!dist[v] || ex.branch(PROWL_SITE, through < *dist[v])) {
        dist[v] = through;
        heap.push(through, v);
      }
    }
  }
}

}  // namespace prowl::wc::examples
