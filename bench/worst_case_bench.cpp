// worst_case_bench: worst-case input search (prowl worst-case) on the bundled programs, each row
// beside PySE's table where the paper has one (docs/worst-case.md, "Figures"). Lines:
//
//   WC program=P search=S n=N longest=L paths=K paths_to_longest=J runs=R seconds=T end=E
//   PAPER program=P search=S n=N longest=L paths=K time=M:SS
//
//   WC program=P search=pyse(preN0[,stop]) n=N longest=L paths=MEDIAN seeds=5 each=K,K,...
//      seconds=T
//
// The PySE rows search each size in turn with one network per seed, pre-trained at N0, and count
// the runs until the known longest was first found (a seed that did not find it: >1000, >2000).
// pyse(preN0) searches each size as `prowl worst-case --search pyse` does, to 1000 runs or every
// path; pyse(preN0,stop) stops each size at the known longest (at most 2000 runs), so the next
// size inherits less training.
//
// usage: worst_case_bench [--smoke] [--large] [--pyse]
//   default  boyer_moore3 at n = 3, 4, 5, 10, 20: exhaustive, wise (n0=6), spf-wca h=2 (n0=6,7;
//            also n = 30, 100) and spf-wca h=2 (n0=3,4; also n = 30); PySE pre-trained at 5 and
//            at 10 (both ways, seeds 1..5) at n = 3 .. 100; insertion_sort exhaustive n = 2..8
//            and wise (n0=3) n = 2..12
//            smith_waterman: exhaustive n = 3, 4, 5, wise (n0=3) and PySE pre-trained at 5 (seeds
//            1..5) at n = 3 .. 100
//            dijkstra: exhaustive n = 3, 4 (--large: 5) and wise (n0=4) at n = 5, 6, 8; --large
//            also spf-wca h=2 (n0=4) at 5 and PySE pre-trained at 4, 300 runs a size, at 5, 6, 8
//   --large  also boyer_moore3 exhaustive at n = 30 (88,573 paths)
//   --smoke  boyer_moore3 n = 3, 4, 5, 10, insertion_sort n = 2..6, smith_waterman exhaustive
//            n = 3..5, wise n = 3..10, PySE (seed 1, stopped at the longest) n = 3, 10 only
//   --pyse   the PySE rows only, both ways (boyer_moore3 pre-trained at 5 and at 10,
//            smith_waterman at 5); for experiments, the environment sets PYSE_PROGRAM (one
//            program), PYSE_SEEDS (how many, default 5), PYSE_SEED0 (the first, default 1) and
//            PyseOptions: PYSE_LR, PYSE_PASSES, PYSE_MIN_UPDATES, PYSE_EPS, PYSE_RUN_EPS,
//            PYSE_HISTORY
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "prowl/worstcase/pyse.hpp"
#include "prowl/worstcase/search.hpp"
#include "worst_case/programs.hpp"

namespace {

using prowl::wc::BranchPolicy;
using prowl::wc::Program;
using prowl::wc::SearchOptions;
using prowl::wc::SearchResult;

struct PaperRow {
  const char* program;
  const char* search;
  int n;
  int longest;
  const char* paths;
  const char* time;
};

// PySE's grep Boyer-Moore table ("-": not run in the paper).
// PySE's tables: grep Boyer-Moore (Class 2) and Biopython pairwise2 Smith-Waterman (Class 1;
// its program is not ours, so its exhaustive paths differ: docs/worst-case.md).
const PaperRow kPaperRows[] = {
    {"boyer_moore3", "exhaustive", 3, 3, "4", "0:00"},
    {"boyer_moore3", "exhaustive", 4, 3, "4", "0:00"},
    {"boyer_moore3", "exhaustive", 5, 3, "4", "0:00"},
    {"boyer_moore3", "exhaustive", 10, 9, "40", "0:01"},
    {"boyer_moore3", "exhaustive", 20, 18, "1093", "0:31"},
    {"boyer_moore3", "exhaustive", 30, 30, "88573", "43:39"},
    {"boyer_moore3", "wise", 3, 3, "4", "0:00"},
    {"boyer_moore3", "wise", 4, 3, "4", "0:00"},
    {"boyer_moore3", "wise", 5, 3, "4", "0:00"},
    {"boyer_moore3", "wise", 10, 9, "40", "0:01"},
    {"boyer_moore3", "wise", 20, 18, "1093", "0:32"},
    {"boyer_moore3", "wise", 30, 30, "88573", "44:24"},
    {"boyer_moore3", "spf-wca(3,4)", 3, 3, "1", "0:00"},
    {"boyer_moore3", "spf-wca(3,4)", 4, 3, "1", "0:00"},
    {"boyer_moore3", "spf-wca(3,4)", 5, 3, "1", "0:00"},
    {"boyer_moore3", "spf-wca(3,4)", 10, 9, "9", "0:00"},
    {"boyer_moore3", "spf-wca(3,4)", 20, 18, "243", "0:07"},
    {"boyer_moore3", "spf-wca(3,4)", 30, 30, "19683", "10:20"},
    {"boyer_moore3", "spf-wca(6,7)", 3, 3, "1", "0:00"},
    {"boyer_moore3", "spf-wca(6,7)", 4, 3, "1", "0:00"},
    {"boyer_moore3", "spf-wca(6,7)", 5, 3, "1", "0:00"},
    {"boyer_moore3", "spf-wca(6,7)", 10, 9, "1", "0:00"},
    {"boyer_moore3", "spf-wca(6,7)", 20, 18, "1", "0:00"},
    {"boyer_moore3", "spf-wca(6,7)", 30, 30, "1", "0:00"},
    {"boyer_moore3", "spf-wca(6,7)", 100, 99, "1", "0:00"},
    {"boyer_moore3", "pyse(pre5)", 3, 3, "2", "0:11"},
    {"boyer_moore3", "pyse(pre5)", 4, 3, "2", "0:11"},
    {"boyer_moore3", "pyse(pre5)", 5, 3, "2", "0:11"},
    {"boyer_moore3", "pyse(pre5)", 10, 9, "2", "0:11"},
    {"boyer_moore3", "pyse(pre5)", 20, 18, "2", "0:12"},
    {"boyer_moore3", "pyse(pre5)", 30, 30, "3", "0:20"},
    {"boyer_moore3", "pyse(pre5)", 100, 99, "276", "48:21"},
    {"boyer_moore3", "pyse(pre10)", 3, 3, "2", "0:11"},
    {"boyer_moore3", "pyse(pre10)", 4, 3, "2", "0:11"},
    {"boyer_moore3", "pyse(pre10)", 5, 3, "2", "0:11"},
    {"boyer_moore3", "pyse(pre10)", 10, 9, "1", "0:02"},
    {"boyer_moore3", "pyse(pre10)", 20, 18, "2", "0:12"},
    {"boyer_moore3", "pyse(pre10)", 30, 30, "3", "0:20"},
    {"boyer_moore3", "pyse(pre10)", 100, 99, "82", "13:03"},
    {"smith_waterman", "exhaustive", 3, 9, "127", "0:04"},
    {"smith_waterman", "exhaustive", 4, 12, "511", "0:18"},
    {"smith_waterman", "exhaustive", 5, 15, "2047", "1:14"},
    {"smith_waterman", "wise", 3, 9, "1", "0:00"},
    {"smith_waterman", "wise", 4, 12, "1", "0:00"},
    {"smith_waterman", "wise", 5, 15, "1", "0:00"},
    {"smith_waterman", "wise", 10, 30, "1", "0:00"},
    {"smith_waterman", "wise", 20, 60, "1", "0:00"},
    {"smith_waterman", "wise", 30, 90, "1", "0:00"},
    {"smith_waterman", "wise", 100, 300, "1", "0:01"},
    {"smith_waterman", "pyse(pre5)", 3, 9, "1", "0:02"},
    {"smith_waterman", "pyse(pre5)", 4, 12, "1", "0:02"},
    {"smith_waterman", "pyse(pre5)", 5, 15, "1", "0:02"},
    {"smith_waterman", "pyse(pre5)", 10, 30, "1", "0:02"},
    {"smith_waterman", "pyse(pre5)", 20, 60, "1", "0:02"},
    {"smith_waterman", "pyse(pre5)", 30, 90, "1", "0:02"},
    {"smith_waterman", "pyse(pre5)", 100, 300, "2", "0:13"},
};

void print_paper(const std::string& program, const std::string& search, int n) {
  for (const PaperRow& row : kPaperRows) {
    if (program == row.program && search == row.search && n == row.n) {
      fmt::print("PAPER program={} search={} n={} longest={} paths={} time={}\n", program, search,
                 n, row.longest, row.paths, row.time);
    }
  }
}

void print(const Program& program, const std::string& search, const SearchResult& r) {
  fmt::print(
      "WC program={} search={} n={} longest={} paths={} paths_to_longest={} runs={} "
      "seconds={:.3f} end={}\n",
      program.name, search, r.n, r.longest, r.paths, r.paths_to_longest, r.runs, r.seconds,
      prowl::wc::to_string(r.end));
  print_paper(program.name, search, r.n);
  std::fflush(stdout);
}

int run_exhaustive(const Program& p, const std::vector<int>& sizes, const SearchOptions& o) {
  for (int n : sizes) {
    auto r = prowl::wc::exhaustive(p, n, o);
    if (!r) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return 1;
    }
    print(p, "exhaustive", *r);
  }
  return 0;
}

int run_guided(const Program& p, const std::string& label, const std::vector<int>& n0s, int history,
               const std::vector<int>& sizes, const SearchOptions& o) {
  auto policy = prowl::wc::learn_policy(p, n0s, history, o);
  if (!policy) {
    std::fprintf(stderr, "%s\n", policy.status().message().c_str());
    return 1;
  }
  for (int n : sizes) {
    auto r = prowl::wc::guided(p, n, *policy, o);
    if (!r) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return 1;
    }
    print(p, label, *r);
  }
  return 0;
}

// The known longest path of the bundled programs (docs/worst-case.md).
std::uint64_t known_longest(const Program& p, int n) {
  return static_cast<std::uint64_t>(p.name == "smith_waterman" ? 3 * n : 3 * (n / 3));
}

// How PySE's search of each size ends in run_pyse.
enum class Protocol {
  kBudget,  // as `prowl worst-case` does: at most kPyseBudget runs or every path, the longest not
            // known to the search; the network goes on to the next size with all it learned
  kStop,    // at the known longest (at most 2000 runs): the next size inherits less training
};
constexpr std::uint64_t kPyseBudget = 1000;  // `prowl worst-case --search pyse`'s default

// PySE pre-trained at n0, then each size in turn with the same network, over `seeds` seeds;
// prints each seed's runs to the longest (the known one: a seed that does not reach it counts as
// more than any) and the median.
int run_pyse(const Program& p, int n0, const std::vector<int>& sizes, int seeds,
             const SearchOptions& o, Protocol protocol) {
  std::vector<std::vector<std::uint64_t>> runs(sizes.size());
  std::vector<double> seconds(sizes.size(), 0);
  const int first = std::getenv("PYSE_SEED0") != nullptr ? std::atoi(std::getenv("PYSE_SEED0")) : 1;
  SearchOptions budget = o;
  budget.max_paths = kPyseBudget;
  for (int seed = first; seed < first + seeds; ++seed) {
    prowl::wc::PyseOptions po;
    po.seed = static_cast<std::uint64_t>(seed);
    if (const char* lr = std::getenv("PYSE_LR")) po.learning_rate = std::atof(lr);
    if (const char* k = std::getenv("PYSE_PASSES")) po.replay_passes = std::atoi(k);
    if (const char* eps = std::getenv("PYSE_EPS")) po.epsilon = std::atof(eps);
    if (const char* eps = std::getenv("PYSE_RUN_EPS")) po.run_epsilon = std::atof(eps);
    if (const char* m = std::getenv("PYSE_MIN_UPDATES")) po.min_updates = std::atoi(m);
    if (const char* b = std::getenv("PYSE_BATCH")) po.batch = std::atoi(b);
    if (const char* h = std::getenv("PYSE_HISTORY")) po.history = std::atoi(h);
    prowl::wc::Pyse pyse(p, po);
    if (auto pre = pyse.search(n0, budget); !pre) {
      std::fprintf(stderr, "%s\n", pre.status().message().c_str());
      return 1;
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      SearchOptions each = budget;
      if (protocol == Protocol::kStop) {
        each.target = known_longest(p, sizes[i]);
        each.max_paths = 2000;
      }
      auto r = pyse.search(sizes[i], each);
      if (!r) {
        std::fprintf(stderr, "%s\n", r.status().message().c_str());
        return 1;
      }
      const bool found = r->longest >= known_longest(p, sizes[i]);
      runs[i].push_back(found ? r->runs_to_longest : UINT64_MAX);
      seconds[i] += r->seconds;
    }
  }
  const std::string search =
      fmt::format("pyse(pre{}{})", n0, protocol == Protocol::kStop ? ",stop" : "");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::vector<std::uint64_t> sorted = runs[i];
    std::sort(sorted.begin(), sorted.end());
    const std::string limit = protocol == Protocol::kStop ? ">2000" : ">1000";
    std::string each;
    for (std::uint64_t r : runs[i]) {
      each += (each.empty() ? "" : ",") + (r == UINT64_MAX ? limit : std::to_string(r));
    }
    fmt::print(
        "WC program={} search={} n={} longest={} paths={} seeds={} each={} seconds={:.3f}\n",
        p.name, search, sizes[i], known_longest(p, sizes[i]),
        sorted[sorted.size() / 2] == UINT64_MAX ? limit : std::to_string(sorted[sorted.size() / 2]),
        seeds, each, seconds[i] / seeds);
    print_paper(p.name, "pyse(pre" + std::to_string(n0) + ")", sizes[i]);
    std::fflush(stdout);
  }
  return 0;
}

// PySE pre-trained at n0 with a budget of `budget` runs per size, where the longest is not known:
// the longest each seed found, and their median.
int run_pyse_budget(const Program& p, int n0, const std::vector<int>& sizes, int seeds,
                    std::uint64_t budget, const SearchOptions& o) {
  std::vector<std::vector<std::uint64_t>> longest(sizes.size());
  std::vector<double> seconds(sizes.size(), 0);
  for (int seed = 1; seed <= seeds; ++seed) {
    prowl::wc::PyseOptions po;
    po.seed = static_cast<std::uint64_t>(seed);
    prowl::wc::Pyse pyse(p, po);
    SearchOptions limited = o;
    limited.max_paths = budget;
    if (auto pre = pyse.search(n0, limited); !pre) {
      std::fprintf(stderr, "%s\n", pre.status().message().c_str());
      return 1;
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      auto r = pyse.search(sizes[i], limited);
      if (!r) {
        std::fprintf(stderr, "%s\n", r.status().message().c_str());
        return 1;
      }
      longest[i].push_back(r->longest);
      seconds[i] += r->seconds;
    }
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::vector<std::uint64_t> sorted = longest[i];
    std::sort(sorted.begin(), sorted.end());
    std::string each;
    for (std::uint64_t l : longest[i]) each += (each.empty() ? "" : ",") + std::to_string(l);
    fmt::print(
        "WC program={} search=pyse(pre{}) n={} longest={} runs={} seeds={} each={} "
        "seconds={:.3f}\n",
        p.name, n0, sizes[i], sorted[sorted.size() / 2], budget, seeds, each, seconds[i] / seeds);
    std::fflush(stdout);
  }
  return 0;
}

const Program& program(const char* name) {
  for (const Program& p : prowl::wc::examples::bundled_programs()) {
    if (p.name == name) return p;
  }
  std::fprintf(stderr, "worst_case_bench: no program %s\n", name);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false, large = false, pyse_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strcmp(argv[i], "--large") == 0) {
      large = true;
    } else if (std::strcmp(argv[i], "--pyse") == 0) {
      pyse_only = true;
    } else {
      std::fprintf(stderr, "usage: worst_case_bench [--smoke] [--large] [--pyse]\n");
      return 2;
    }
  }
  SearchOptions options;
  options.time_limit = 600;
  const Program& bm = program("boyer_moore3");
  const Program& sort = program("insertion_sort");
  const Program& sw = program("smith_waterman");
  const std::vector<int> paper_sizes = {3, 4, 5, 10, 20, 30, 100};
  if (pyse_only) {
    const char* only = std::getenv("PYSE_PROGRAM");
    const int seeds =
        std::getenv("PYSE_SEEDS") != nullptr ? std::atoi(std::getenv("PYSE_SEEDS")) : 5;
    int code = 0;
    for (Protocol protocol : {Protocol::kBudget, Protocol::kStop}) {
      if (only == nullptr || bm.name == only) {
        code |= run_pyse(bm, 5, paper_sizes, seeds, options, protocol);
        code |= run_pyse(bm, 10, paper_sizes, seeds, options, protocol);
      }
      if (only == nullptr || sw.name == only) {
        code |= run_pyse(sw, 5, paper_sizes, seeds, options, protocol);
      }
    }
    return code;
  }
  std::vector<int> exhaustive_sizes = {3, 4, 5, 10};
  std::vector<int> guided_sizes = {3, 4, 5, 10};
  if (!smoke) {
    exhaustive_sizes.push_back(20);
    guided_sizes.insert(guided_sizes.end(), {20, 30, 100});
  }
  if (large) exhaustive_sizes.push_back(30);
  int code = run_exhaustive(bm, exhaustive_sizes, options);
  std::vector<int> wise_sizes = guided_sizes;
  if (!large)
    wise_sizes.erase(std::remove(wise_sizes.begin(), wise_sizes.end(), 30), wise_sizes.end());
  wise_sizes.erase(std::remove(wise_sizes.begin(), wise_sizes.end(), 100), wise_sizes.end());
  code |= run_guided(bm, "wise", {6}, 0, wise_sizes, options);
  code |= run_guided(bm, "spf-wca(6,7)", {6, 7}, 2, guided_sizes, options);
  // The paper did not run SPF-WCA trained at 3,4 at n = 100 (it grows 3x per alignment).
  std::vector<int> weak_sizes = guided_sizes;
  weak_sizes.erase(std::remove(weak_sizes.begin(), weak_sizes.end(), 100), weak_sizes.end());
  code |= run_guided(bm, "spf-wca(3,4)", {3, 4}, 2, weak_sizes, options);
  std::vector<int> sort_exhaustive, sort_guided;
  for (int n = 2; n <= (smoke ? 6 : 8); ++n) sort_exhaustive.push_back(n);
  for (int n = 2; n <= (smoke ? 6 : 12); ++n) sort_guided.push_back(n);
  code |= run_exhaustive(sort, sort_exhaustive, options);
  code |= run_guided(sort, "wise", {3}, 0, sort_guided, options);
  code |= run_exhaustive(sw, {3, 4, 5}, options);
  code |=
      run_guided(sw, "wise", {3}, 0, smoke ? std::vector<int>{3, 4, 5, 10} : paper_sizes, options);
  if (!smoke) {
    for (Protocol protocol : {Protocol::kBudget, Protocol::kStop}) {
      code |= run_pyse(bm, 5, paper_sizes, 5, options, protocol);
      code |= run_pyse(bm, 10, paper_sizes, 5, options, protocol);
    }
  }
  // Dijkstra (no figures in the paper): exhaustive where it finishes, then the learners.
  const Program& dj = program("dijkstra");
  code |= run_exhaustive(dj, large ? std::vector<int>{3, 4, 5} : std::vector<int>{3, 4}, options);
  code |= run_guided(dj, "wise", {4}, 0, smoke ? std::vector<int>{5} : std::vector<int>{5, 6, 8},
                     options);
  if (large) {
    code |= run_guided(dj, "spf-wca(4)", {4}, 2, {5}, options);
    code |= run_pyse_budget(dj, 4, {5, 6, 8}, 5, 300, options);
  }
  code |= run_pyse(sw, 5, smoke ? std::vector<int>{3, 10} : paper_sizes, smoke ? 1 : 5, options,
                   smoke ? Protocol::kStop : Protocol::kBudget);
  return code;
}
