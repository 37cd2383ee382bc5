// report_bench: how long the graph reports take to render a run with a large recorded graph, and
// how large they are (docs/reports.md, "Render speed"). The runs are synthetic, N states each, in
// two shapes: `tree`, each state reached from its parent in a tree of three children per state
// and leaving by two more edges to states drawn with a fixed seed (3 transitions per state), and
// `lattice`, each state joined to the states 1, 2, 3, K, 2K and 3K before and after it (K the
// square root of N; 12 transitions per state), whose neighbourhoods are dense: the 500 states
// drawn around the paths have thousands of transitions between them, Graphviz's hard case. Each
// run has three bugs 10 to 38 steps deep, one of them an action that failed. Each format is
// rendered once per run, from the whole report: the graph view, the DOT text, and for HTML
// Graphviz's layout, under the default budget of 500 states.
//
// Usage: report_bench [--smoke] [--states N]...
//   --smoke   100,000 states only (CI)
//   default   100,000 and 1,000,000 states
// Prints one line per format, shape and size:
//   REPORT format=html graph=tree states=100000 seconds=0.103 bytes=379505 target_seconds=2
//          target_bytes=5000000 ok=yes
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "prowl/report/dot.hpp"
#include "prowl/report_html/html.hpp"

namespace {

using prowl::Edge;
using prowl::Finding;
using prowl::FindingKind;
using prowl::RunReport;
using prowl::StateId;

constexpr std::uint64_t kTargetBytes = 5'000'000;

// The path from the initial state down the tree to `state`: child j of s is 3s + 1 + j, reached by
// action j.
std::vector<prowl::TraceStep> path_to(std::uint64_t state, const RunReport& r) {
  std::vector<prowl::TraceStep> steps;
  while (state > 0) {
    const std::uint64_t child = (state - 1) % 3;
    steps.insert(steps.begin(), {r.coverage[child].name, state, "ok", ""});
    state = (state - 1) / 3;
  }
  return steps;
}

// The lattice's path to `state`, greedily by steps of 3K, K, 3 and 1 (actions 10, 6, 4, 0).
std::vector<prowl::TraceStep> lattice_path(std::uint64_t state, std::uint64_t k,
                                           const RunReport& r) {
  std::vector<prowl::TraceStep> steps;
  std::uint64_t at = 0;
  for (const auto& [size, action] : {std::pair{3 * k, 10}, {k, 6}, {3, 4}, {1, 0}}) {
    for (; at + size <= state; at += size) steps.push_back({r.coverage[action].name, at, "ok", ""});
  }
  return steps;
}

void add_bugs(RunReport& r, const std::vector<std::vector<prowl::TraceStep>>& paths) {
  for (std::size_t k = 0; k < paths.size(); ++k) {
    Finding f;
    f.kind = k == 2 ? FindingKind::kActionError : FindingKind::kInvariant;
    f.name = fmt::format("bug_{}", k);
    f.steps = paths[k];
    f.action = f.steps.back().action;
    f.message = "the synthetic bug";
    f.confirmed = true;
    r.findings.push_back(std::move(f));
  }
}

RunReport base_report(std::uint64_t states, int actions) {
  RunReport r;
  r.model = "synthetic";
  r.strategy = "bfs";
  r.seed = 1;
  for (int a = 0; a < actions; ++a) {
    r.coverage.push_back(
        {fmt::format("action_{}(arg={})", a, a * 7), states, states, states, 0, 0});
  }
  r.graph = prowl::ReportGraph{states, {}};
  return r;
}

void set_stats(RunReport& r) {
  r.stats.states = r.graph->states;
  r.stats.transitions = r.graph->edges.size();
  r.stats.steps = r.graph->edges.size();
}

RunReport lattice_report(std::uint64_t states) {
  RunReport r = base_report(states, 12);
  auto k = static_cast<std::int64_t>(std::sqrt(static_cast<double>(states)));
  const std::int64_t n = static_cast<std::int64_t>(states);
  const std::int64_t step[] = {1, -1, 2, -2, 3, -3, k, -k, 2 * k, -2 * k, 3 * k, -3 * k};
  std::vector<Edge>& edges = r.graph->edges;
  edges.reserve(12 * states);
  for (std::int64_t s = 0; s < n; ++s) {
    for (std::uint32_t j = 0; j < 12; ++j) {  // action j moves by step[j]
      edges.push_back({static_cast<StateId>(s), j, static_cast<StateId>((s + step[j] + n) % n)});
    }
  }
  const auto uk = static_cast<std::uint64_t>(k);
  add_bugs(r, {lattice_path(30 * uk + 5, uk, r), lattice_path(45 * uk + 20, uk, r),
               lattice_path(10 * uk + 100, uk, r)});
  set_stats(r);
  return r;
}

RunReport tree_report(std::uint64_t states) {
  RunReport r = base_report(states, 8);
  std::vector<Edge>& edges = r.graph->edges;
  edges.reserve(5 * states);
  std::mt19937_64 rng(42);
  for (std::uint64_t s = 0; s < states; ++s) {
    for (std::uint32_t j = 0; j < 3; ++j) {
      if (3 * s + 1 + j < states) {
        edges.push_back({static_cast<StateId>(s), j, static_cast<StateId>(3 * s + 1 + j)});
      }
    }
    for (std::uint32_t j = 3; j < 5; ++j) {
      edges.push_back({static_cast<StateId>(s), j + static_cast<std::uint32_t>(rng() % 4),
                       static_cast<StateId>(rng() % states)});
    }
  }
  add_bugs(r, {path_to(states - 1, r), path_to(states / 2, r), path_to(states / 3, r)});
  set_stats(r);
  return r;
}

// Renders `report` with `render` and prints its line; true when within the targets.
bool measure(const char* format, const char* shape, const RunReport& report, double target_seconds,
             const std::function<std::string(const RunReport&)>& render) {
  const auto start = std::chrono::steady_clock::now();
  const std::string text = render(report);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool ok = seconds < target_seconds && text.size() < kTargetBytes;
  std::printf(
      "REPORT format=%s graph=%s states=%llu seconds=%.3f bytes=%zu target_seconds=%g "
      "target_bytes=%llu ok=%s\n",
      format, shape, static_cast<unsigned long long>(report.graph->states), seconds, text.size(),
      target_seconds, static_cast<unsigned long long>(kTargetBytes), ok ? "yes" : "no");
  std::fflush(stdout);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strcmp(argv[i], "--states") == 0 && i + 1 < argc) {
      sizes.push_back(std::stoull(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: report_bench [--smoke] [--states N]...\n");
      return 2;
    }
  }
  if (sizes.empty())
    sizes = smoke ? std::vector<std::uint64_t>{100'000}
                  : std::vector<std::uint64_t>{100'000, 1'000'000};
  bool ok = true;
  for (const std::uint64_t states : sizes) {
    // The targets: 2 s up to 100,000 states, 10 s up to a million.
    const double target = states <= 100'000 ? 2.0 : 10.0;
    for (const char* shape : {"tree", "lattice"}) {
      const RunReport report =
          std::strcmp(shape, "tree") == 0 ? tree_report(states) : lattice_report(states);
      ok &= measure("html", shape, report, target,
                    [](const RunReport& r) { return prowl::to_html(r); });
      ok &= measure("dot", shape, report, target,
                    [](const RunReport& r) { return prowl::to_dot(r); });
    }
  }
  return ok ? 0 : 1;
}
