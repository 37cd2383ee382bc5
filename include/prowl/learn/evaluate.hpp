// Measuring an exploration policy on held-out graphs (docs/learned.md, "Figures"): the mean final
// coverage over graphs × seeds and its 95% interval, the same for every policy compared.
#pragma once

#include <cstdint>
#include <functional>

#include "prowl/learn/env.hpp"

namespace prowl::learn {

struct Score {
  double mean = 0;
  double half_width = 0;  // of the 95% interval: 1.96 standard errors of the graphs' means
  long episodes = 0;
};

// Runs a policy on an env already reset, with a seed for its choices; returns the coverage.
using Runner = std::function<double(Env&, std::uint64_t)>;

// Graph g (0 .. graphs-1) is env.reset(first + g); its seed s (0 .. seeds-1) is
// first·1000 + g·seeds + s. REQUIRES: graphs >= 1, seeds >= 1.
Score evaluate(Env& env, const Runner& run, int graphs, int seeds, std::uint64_t first);

}  // namespace prowl::learn
