#include "prowl/learn/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "prowl/core/status.hpp"

namespace prowl::learn {

Score evaluate(Env& env, const Runner& run, int graphs, int seeds, std::uint64_t first) {
  PROWL_CHECK(graphs >= 1 && seeds >= 1, "evaluate: at least one graph and one seed");
  // A graph's seeds share its layout, so they are not independent: the interval is over the
  // graphs' means.
  double sum = 0, squares = 0;
  for (int g = 0; g < graphs; ++g) {
    double graph_sum = 0;
    for (int s = 0; s < seeds; ++s) {
      env.reset(first + static_cast<std::uint64_t>(g));
      graph_sum += run(env, first * 1000 + static_cast<std::uint64_t>(g * seeds + s));
    }
    const double mean = graph_sum / seeds;
    sum += mean;
    squares += mean * mean;
  }
  Score score;
  score.episodes = static_cast<long>(graphs) * seeds;
  const double n = static_cast<double>(graphs);
  score.mean = sum / n;
  const double variance =
      graphs > 1 ? std::max(0.0, (squares - n * score.mean * score.mean) / (n - 1)) : 0.0;
  score.half_width = 1.96 * std::sqrt(variance / n);
  return score;
}

}  // namespace prowl::learn
