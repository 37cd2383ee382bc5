// replay_bench: what exploring an object without copying it costs (README, "Objects that cannot
// be copied"). The same counters model (K counters in 0..N-1, inc and reset each) as an
// ObjectModel, which branches by copying the object, and as a FactoryModel, which builds a fresh
// object and replays the path to go back. Lines:
//
//   RESULT model=counters_kK_nN strategy=S mode=copy|replay states=N transitions=T seconds=X
//          transitions_per_s=R replayed_per_transition=P
//   RATIO model=... strategy=S replay_vs_copy=F   (replay's time / copy's)
//
// usage: replay_bench [--runs 3] [--smoke]   (--smoke: K=3 N=4, one run)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"

namespace {

using examples::Counters;

struct Figures {
  std::uint64_t states = 0, transitions = 0, replayed = 0;
  double seconds = 0;
};

Figures run(const prowl::Model& model, const std::string& strategy, int runs) {
  std::vector<double> times;
  Figures f;
  for (int r = 0; r < runs; ++r) {
    std::unique_ptr<prowl::Strategy> s;
    if (strategy == "bfs") {
      s = std::make_unique<prowl::Bfs>();
    } else {
      s = std::make_unique<prowl::Dfs>();
    }
    const auto start = std::chrono::steady_clock::now();
    auto report = prowl::explore(model, *s);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!report || report->termination != prowl::Termination::kExhausted) {
      std::fprintf(stderr, "replay_bench: %s did not finish\n", model.name().c_str());
      std::exit(1);
    }
    f = {report->stats.states, report->stats.transitions, report->stats.replayed_actions, 0};
  }
  std::sort(times.begin(), times.end());
  f.seconds = times[times.size() / 2];
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
      runs = 1;
    } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: replay_bench [--runs 3] [--smoke]\n");
      return 2;
    }
  }
  struct Size {
    int k, n;
  };
  const std::vector<Size> sizes =
      smoke ? std::vector<Size>{{3, 4}} : std::vector<Size>{{4, 6}, {5, 6}, {6, 6}};
  for (const Size& size : sizes) {
    const std::string name = fmt::format("counters_k{}_n{}", size.k, size.n);
    prowl::ObjectModel<Counters> copy(name);
    examples::add_counters(copy, size.k, size.n);
    prowl::FactoryModel<Counters> replay(name, [] { return Counters{}; });
    examples::add_counters(replay, size.k, size.n);
    for (const std::string strategy : {"bfs", "dfs"}) {
      // Depth first, a restore replays a path as deep as the search (thousands of steps at
      // K = 6): the largest size runs breadth first only.
      if (strategy == "dfs" && size.k >= 6) continue;
      const Figures a = run(copy, strategy, runs), b = run(replay, strategy, runs);
      for (const auto& [mode, f] : {std::pair{"copy", a}, std::pair{"replay", b}}) {
        fmt::print(
            "RESULT model={} strategy={} mode={} states={} transitions={} seconds={:.4f} "
            "transitions_per_s={:.0f} replayed_per_transition={:.2f}\n",
            name, strategy, mode, f.states, f.transitions, f.seconds,
            static_cast<double>(f.transitions) / std::max(f.seconds, 1e-9),
            static_cast<double>(f.replayed) / static_cast<double>(f.transitions));
      }
      if (a.states != b.states || a.transitions != b.transitions) {
        std::fprintf(stderr, "replay_bench: copy and replay disagree on %s\n", name.c_str());
        return 1;
      }
      fmt::print("RATIO model={} strategy={} replay_vs_copy={:.1f}\n", name, strategy,
                 b.seconds / std::max(a.seconds, 1e-9));
      std::fflush(stdout);
    }
  }
  return 0;
}
