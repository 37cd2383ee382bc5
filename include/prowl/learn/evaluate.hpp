// Measuring an exploration policy on held-out graphs (docs/learned.md, "Figures"): the mean final
// coverage over graphs × seeds and its 95% interval, the same for every policy compared.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

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
// The same runs, each graph's mean over its seeds, by graph.
std::vector<double> graph_means(Env& env, const Runner& run, int graphs, int seeds,
                                std::uint64_t first);
// The mean of values (a graph's mean each) and its 95% interval. REQUIRES: values not empty.
Score score_of(const std::vector<double>& values, int seeds);
// The paired difference a − b over the same graphs, graph by graph, with its 95% interval: whether
// one policy beats another on these graphs. REQUIRES: a.size() == b.size() >= 1.
Score difference(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace prowl::learn
