#include "prowl/learn/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "prowl/core/status.hpp"

namespace prowl::learn {

Score evaluate(Env& env, const Runner& run, int graphs, int seeds, std::uint64_t first) {
  PROWL_CHECK(graphs >= 1 && seeds >= 1, "evaluate: at least one graph and one seed");
  double sum = 0, squares = 0;
  for (int g = 0; g < graphs; ++g) {
    for (int s = 0; s < seeds; ++s) {
      env.reset(first + static_cast<std::uint64_t>(g));
      const double c = run(env, first * 1000 + static_cast<std::uint64_t>(g * seeds + s));
      sum += c;
      squares += c * c;
    }
  }
  Score score;
  score.episodes = static_cast<long>(graphs) * seeds;
  const double n = static_cast<double>(score.episodes);
  score.mean = sum / n;
  const double variance = std::max(0.0, squares / n - score.mean * score.mean);
  score.half_width = 1.96 * std::sqrt(variance / n);
  return score;
}

}  // namespace prowl::learn
