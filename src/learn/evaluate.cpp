#include "prowl/learn/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "prowl/core/status.hpp"

namespace prowl::learn {

std::vector<double> graph_means(Env& env, const Runner& run, int graphs, int seeds,
                                std::uint64_t first) {
  PROWL_CHECK(graphs >= 1 && seeds >= 1, "evaluate: at least one graph and one seed");
  std::vector<double> means;
  for (int g = 0; g < graphs; ++g) {
    double graph_sum = 0;
    for (int s = 0; s < seeds; ++s) {
      env.reset(first + static_cast<std::uint64_t>(g));
      graph_sum += run(env, first * 1000 + static_cast<std::uint64_t>(g * seeds + s));
    }
    means.push_back(graph_sum / seeds);
  }
  return means;
}

Score score_of(const std::vector<double>& values, int seeds) {
  PROWL_CHECK(!values.empty(), "score_of: at least one value");
  // A graph's seeds share its layout, so they are not independent: the interval is over the
  // graphs' means.
  double sum = 0, squares = 0;
  for (double v : values) {
    sum += v;
    squares += v * v;
  }
  Score score;
  const double n = static_cast<double>(values.size());
  score.episodes = static_cast<long>(values.size()) * seeds;
  score.mean = sum / n;
  const double variance =
      values.size() > 1 ? std::max(0.0, (squares - n * score.mean * score.mean) / (n - 1)) : 0.0;
  score.half_width = 1.96 * std::sqrt(variance / n);
  return score;
}

Score evaluate(Env& env, const Runner& run, int graphs, int seeds, std::uint64_t first) {
  return score_of(graph_means(env, run, graphs, seeds, first), seeds);
}

Score difference(const std::vector<double>& a, const std::vector<double>& b) {
  PROWL_CHECK(!a.empty() && a.size() == b.size(), "difference: the same graphs");
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  Score score = score_of(d, 1);
  score.episodes = 0;
  return score;
}

}  // namespace prowl::learn
