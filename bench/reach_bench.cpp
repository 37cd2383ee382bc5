// reach_bench: symbolic reachability (prowl reach) on the systems of examples/reach, with the
// explicit engine beside it (docs/symbolic.md, "Figures"). One line per system:
//
//   REACH system=NAME status=S depth=D iterations=K seconds=T
//   XCHECK system=NAME sym_states=N bfs_states=N sym_depth=D bfs_depth=D agree=yes bfs_seconds=T
//          [bfs_shortest:FINDING=Nsteps...]
//   EXPLICIT system=counters_k6_n10 states=N depth=D seconds=T   (prowl's BFS on the C++ model)
//
// usage: reach_bench [--smoke] [--time-limit S] [--image MODE] [FILE.yaml...]
// With no file: counter2, its p=1 variant, counters K=3 and K=6 N=10, orders NORD=2 NPRICE=2
// (and its refund-twice bug), orders-1e6 and its bug. --smoke: counter2, its variant, K=3
// and orders NORD=2.
// A cross-checked system with a bug is searched to its fixpoint, so that its state counts and
// shortest findings are compared with the explicit BFS's.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/models.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/symbolic/cross_check.hpp"
#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/system_file.hpp"

namespace {

struct Case {
  std::string file;
  bool cross_check;
};

int run_case(const Case& c, const prowl::sym::ReachOptions& base) {
  z3::context context;
  prowl::Result<prowl::sym::SystemFile> file = prowl::sym::read_system_file(context, c.file);
  if (!file) {
    std::fprintf(stderr, "%s\n", file.status().message().c_str());
    return 2;
  }
  prowl::sym::ReachOptions options = base;
  options.explore_after_violations = c.cross_check;
  const prowl::sym::ReachResult r = prowl::sym::reach(*file->system, options);
  std::string violated;
  for (const prowl::sym::Check& check : r.checks) {
    if (check.verdict == prowl::sym::Verdict::kViolated) {
      violated += fmt::format(" {}={}steps", check.finding, check.depth);
    }
  }
  fmt::print("REACH system={} image={} status={} depth={} iterations={} seconds={:.3f}{}\n",
             file->system->name(), prowl::sym::to_string(options.image),
             prowl::sym::to_string(r.status), r.depth, r.iterations, r.seconds, violated);
  std::fflush(stdout);
  const bool complete = !r.stats.empty() && !r.stats.back().new_states;
  if (!c.cross_check || !complete) return 0;
  prowl::Result<prowl::sym::CrossCheck> x =
      prowl::sym::cross_check(*file->system, r, file->domains);
  if (!x) {
    std::fprintf(stderr, "%s: %s\n", c.file.c_str(), x.status().message().c_str());
    return 2;
  }
  std::string shortest;
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    if (!x->bfs_shortest[i]) continue;
    shortest += fmt::format(" bfs_shortest:{}={}steps", r.checks[i].finding, *x->bfs_shortest[i]);
  }
  fmt::print(
      "XCHECK system={} sym_states={} bfs_states={} sym_depth={} bfs_depth={} agree={} "
      "bfs_seconds={:.3f}{}\n",
      file->system->name(), x->sym_states, x->bfs_states, x->sym_depth, x->bfs_depth,
      x->ok() ? "yes" : "NO", x->bfs_seconds, shortest);
  for (const std::string& m : x->mismatches) fmt::print("  MISMATCH {}\n", m);
  return x->ok() ? 0 : 1;
}

// prowl's explicit BFS on the C++ counters model (bench/models), beside the symbolic figure.
void explicit_counters(int k, int n) {
  bench::CountersParams params;
  params.k = k;
  params.n = n;
  const auto model = bench::make_counters_model(params);
  prowl::Bfs bfs;
  const auto start = std::chrono::steady_clock::now();
  auto report = prowl::Explorer(model, bfs).run();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!report) return;
  fmt::print("EXPLICIT system=counters_k{}_n{} states={} depth={} seconds={:.3f}\n", k, n,
             report->stats.states, report->stats.max_depth, seconds);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = PROWL_REACH_EXAMPLES;
  prowl::sym::ReachOptions options;
  options.max_depth = 0;
  options.time_limit = 120;
  bool smoke = false;
  std::vector<Case> cases;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strcmp(argv[i], "--time-limit") == 0 && i + 1 < argc) {
      options.time_limit = std::stod(argv[++i]);
    } else if (std::strcmp(argv[i], "--image") == 0 && i + 1 < argc) {
      auto mode = prowl::sym::parse_image_mode(argv[++i]);
      if (!mode) {
        std::fprintf(stderr, "reach_bench: --image: one of %s\n",
                     std::string(prowl::sym::kImageModeNames).c_str());
        return 2;
      }
      options.image = *mode;
    } else {
      cases.push_back({argv[i], true});
    }
  }
  if (cases.empty()) {
    cases = {{dir + "/counter2.yaml", true},
             {dir + "/counter2_p1.yaml", true},
             {dir + "/counters_k3_n10.yaml", true},
             {dir + "/orders_small.yaml", true}};
    if (!smoke) {
      cases.push_back({dir + "/orders_bug_small.yaml", true});
      cases.push_back({dir + "/counters_k6_n10.yaml", false});
      cases.push_back({dir + "/orders_1e6.yaml", false});
      cases.push_back({dir + "/orders_bug.yaml", false});
    }
  }
  int code = 0;
  for (const Case& c : cases) code = std::max(code, run_case(c, options));
  if (!smoke) explicit_counters(6, 10);
  return code;
}
