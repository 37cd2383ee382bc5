// spin_compare: explores the reference models of bench/spin/ with SPIN and with prowl, side by
// side, in one invocation. For each model it runs SPIN breadth-first exactly as the project's
// reference prescribes (spin -a, gcc -O2 -DSAFETY -DBFS, ./pan -m -w; spin_runner.hpp), runs
// prowl's Bfs on the prowl version of the model (models/models.hpp; prowl_runner.hpp), checks that
// both found the same states and transitions, and prints prowl's rate and memory beside SPIN's
// (the two run in turn, --runs rounds, the order reversed every other round, the fastest of
// each counting):
//
//   RATIO model=<name> mode=bfs prowl_states_per_s=<x> spin_states_per_s=<y> ratio=<x/y>
//         prowl_bytes_per_state=<b> spin_bytes_per_state=<c>            (one line)
//   COUNTS model=<name> ... check=ok|MISMATCH
//
// Then (unless --no-threads) it runs prowl with --threads N exploring threads and SPIN's own
// multi-core breadth-first search on N cores (the same pan.c built with -DBFS_PAR, run with -uN),
// and prints
//
//   THREADS model=<name> threads=N prowl_states_per_s=<x> speedup=<x / prowl's one-thread rate>
//           spin_par_states_per_s=<y> spin_par_speedup=<y / SPIN's -DBFS rate>
//           ratio_vs_spin_par=<x/y> one_thread_states_per_s=<prowl's one-thread rate>
//           check=ok|MISMATCH                                            (one line)
//
// where check=ok means prowl's N-thread and one-thread runs found the RATIO run's states and
// transitions, and both pans theirs (BFS_PAR with the offset below). The runs a THREADS line sets
// against each other are made in turn (pan -DBFS, pan -DBFS_PAR, prowl on one thread, prowl on N;
// the next round in the reverse order; --runs rounds in all), the fastest of each kind counting:
// the shared host's speed moves by more than the goals' margins over minutes, and runs made in
// turn meet the same host. Where prowl was built with MPI (and unless --no-mpi) it then runs the
// search over --ranks processes of
// this machine, as a user does (mpirun -np N bench_bfs --model M --mpi; mpi_runner.hpp), and
// prints
//
//   MPI model=<name> ranks=N prowl_states_per_s=<x> speedup=<x / prowl's one-thread rate>
//       one_rank_states_per_s=<y> speedup_vs_one_rank=<x/y>
//       one_thread_states_per_s=<prowl's one-thread rate> check=ok|MISMATCH   (one line)
//
// where y is the same program on one rank (mpirun -np 1: the search over processes with nothing
// to exchange), and check=ok means the N processes, the one and the one-thread runs found the
// RATIO run's states and transitions. The three are run in turn, --runs rounds, as for THREADS.
//
// How the figures are taken:
//   SPIN states/s     `states, stored` / `pan: elapsed time` (pan's own wall clock; with BFS_PAR
//                     it starts once every worker is up and stops when the search is done).
//   SPIN bytes/state  `total actual memory usage` (MiB, pan's own count; includes the -w hash
//                     table) / states. pan's peak RSS, from wait4(), is printed beside it.
//                     BFS_PAR prints no such line: its shared and non-shared usage are added.
//   prowl states/s    states / wall time of Explorer::run() (world set-up included).
//   prowl bytes/state peak RSS growth during Explorer::run() / states (memory=vmhwm_growth), or
//                     the VmRSS delta when the peak cannot be reset (memory=vmrss_delta).
//   CPU seconds       SPIN: pan's and, with BFS_PAR, its workers' (wait4()); prowl: the process's
//                     CPU time during Explorer::run(), every thread's.
//   Each prowl run is made in a child process forked for it, so that no run inherits a heap an
//   earlier configuration or run has used: the order of the configurations does not move them.
//
// Transition counts: pan prints `transitions (= stored+matched)`. Every successor pan generates is
// either stored (new) or matched (known), and the initial state is stored too although no
// transition leads to it, so SPIN reports exactly one more transition than it executed. None of
// the three models has atomic sequences or rendezvous (pan reports `0 atomic steps`, which is
// checked), so the offset is exactly 1 for each of them; prowl counts executed transitions, so the
// check is spin_transitions == prowl_transitions + 1. pan prints counts with %.8g, so counts of
// nine digits (counters K=7: 126,000,001) are compared at SPIN's printed precision. BFS_PAR
// counts the same way (its workers' counts summed), so the same offset and check apply to it.
//
// With --large, after every configuration, the SCALE line sets prowl's one-thread time on
// counters at 1e7 states against its time at 1e6 (issue 18's goal: at most 12), from runs of
// their own made in turn (--runs rounds), each checked against its RATIO run; spin_time_ratio is
// pan's, from its RATIO runs. Both configurations' counts must have checked out.
//
// Exit codes: 0 all checks passed; 1 a count mismatch, a finding or a failed tool run; 2 bad
// usage; 3 spin or the C compiler is missing.
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/models.hpp"
#include "mpi_runner.hpp"
#include "prowl_runner.hpp"
#include "spin_runner.hpp"

namespace {

namespace fs = std::filesystem;
using bench::ProwlResult;
using bench::SpinResult;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoTool = 3;

// SPIN's transitions minus prowl's: the initial state, stored without a transition.
constexpr std::uint64_t kSpinTransitionOffset = 1;

// One model configuration, explored by both tools.
struct Config {
  std::string model;    // counters, orders or philo; --only takes it or pan.name
  bench::PanJob pan;    // pan.name is the RATIO line's model=<name>
  bool large = false;   // only with --large (or --only)
  bool opt_in = false;  // only with --only
  // For a model written with parameters: the hand-written configuration it is timed against.
  std::string hand_written{};
  std::function<std::unique_ptr<prowl::Model>()> make_model;
  // SPIN's figures from the project's reference table (bench/README.md), for --prowl-only.
  std::uint64_t spin_states = 0;
  std::uint64_t spin_transitions = 0;

  const std::string& name() const { return pan.name; }
};

template <class T>
std::unique_ptr<prowl::Model> boxed(prowl::ObjectModel<T> model) {
  return std::make_unique<prowl::ObjectModel<T>>(std::move(model));
}

std::unique_ptr<prowl::Model> counters(int k) { return boxed(bench::make_counters_model({k, 10})); }
std::unique_ptr<prowl::Model> orders(int nord) {
  return boxed(bench::make_orders_model({nord, 3, 8, 3}));
}

std::vector<Config> all_configs() {
  const std::vector<std::string> orders4{"-DNORD=4", "-DNPRICE=3", "-DTOT=8", "-DMAXREF=3"};
  const std::vector<std::string> orders5{"-DNORD=5", "-DNPRICE=3", "-DTOT=8", "-DMAXREF=3"};
  std::vector<Config> configs;
  configs.push_back({.model = "counters",
                     .pan = {"counters", "counters.pml", {"-DK=6", "-DN=10"}, false, 1100000, 24},
                     .make_model = [] { return counters(6); },
                     .spin_states = 1000000,
                     .spin_transitions = 10800001});
  configs.push_back({.model = "orders",
                     .pan = {"orders", "orders.pml", orders4, false, 1400000, 24},
                     .make_model = [] { return orders(4); },
                     .spin_states = 1242432,
                     .spin_transitions = 7601473});
  configs.push_back({.model = "philo",
                     .pan = {"philo", "philo.pml", {"-DNP=12"}, true, 1200000, 24},
                     .make_model = [] { return boxed(bench::make_philo_model({12})); },
                     .spin_states = 1118878,
                     .spin_transitions = 9415129});
  // The same two models written with parameters (README, "Actions with parameters"), to compare
  // with the hand-written ones: --only params.
  configs.push_back(
      {.model = "params",
       .pan = {"counters_params", "counters.pml", {"-DK=6", "-DN=10"}, false, 1100000, 24},
       .opt_in = true,
       .hand_written = "counters",
       .make_model =
           [] {
             return boxed(bench::make_counters_model({6, 10, true}));
           },
       .spin_states = 1000000,
       .spin_transitions = 10800001});
  configs.push_back({.model = "params",
                     .pan = {"philo_params", "philo.pml", {"-DNP=12"}, true, 1200000, 24},
                     .opt_in = true,
                     .hand_written = "philo",
                     .make_model =
                         [] {
                           return boxed(bench::make_philo_model({12, true}));
                         },
                     .spin_states = 1118878,
                     .spin_transitions = 9415129});
  configs.push_back({.model = "params",
                     .pan = {"philo_args", "philo.pml", {"-DNP=12"}, true, 1200000, 24},
                     .opt_in = true,
                     .hand_written = "philo",
                     .make_model =
                         [] {
                           return boxed(bench::make_philo_model({12, false, false, true}));
                         },
                     .spin_states = 1118878,
                     .spin_transitions = 9415129});
  // Hand-written in the order of philo_params's actions: what the parameters cost, order aside.
  configs.push_back({.model = "params",
                     .pan = {"philo_grouped", "philo.pml", {"-DNP=12"}, true, 1200000, 24},
                     .opt_in = true,
                     .hand_written = "philo",
                     .make_model =
                         [] {
                           return boxed(bench::make_philo_model({12, false, true}));
                         },
                     .spin_states = 1118878,
                     .spin_transitions = 9415129});
  // The reference's ~1.3 GB for SPIN on 1e7 states is pan at -w26 (512 MiB of table).
  configs.push_back(
      {.model = "counters",
       .pan = {"counters_1e7", "counters.pml", {"-DK=7", "-DN=10"}, false, 11000000, 26},
       .large = true,
       .make_model = [] { return counters(7); },
       .spin_states = 10000000,
       .spin_transitions = 126000001});
  // The reference table gives 122,957,150 transitions, pan's 1.2295715e+08 written out; pan with a
  // widened printf prints 122957146.
  configs.push_back({.model = "orders",
                     .pan = {"orders_1.6e7", "orders.pml", orders5, false, 17000000, 27},
                     .large = true,
                     .opt_in = true,
                     .make_model = [] { return orders(5); },
                     .spin_states = 16227419,
                     .spin_transitions = 122957146});
  return configs;
}

struct Args {
  bool large = false;
  bool prowl_only = false;
  std::string only;
  int runs = 1;
  int threads = 2;  // prowl's exploring threads and BFS_PAR's cores for the THREADS line
  bool no_threads = false;
  int ranks = 2;  // processes of the MPI line
  bool no_mpi = false;
  std::string spin = "spin";
  std::string cc = "gcc";
  std::string model_dir = PROWL_BENCH_SPIN_DIR;
  bool keep = false;
  bool help = false;
};

void print_usage(std::FILE* to) {
  std::fputs(
      "usage: spin_compare [--large] [--only NAME] [--prowl-only] [--runs N]\n"
      "                    [--threads N | --no-threads] [--ranks N | --no-mpi]\n"
      "                    [--spin PATH] [--cc PATH] [--models DIR] [--keep]\n"
      "  --large       also explore counters K=7 N=10 (1e7 states) and print the SCALE line\n"
      "  --only NAME   one configuration (counters, orders, philo, counters_1e7, orders_1.6e7,\n"
      "                counters_params, philo_params, philo_args, philo_grouped) or every\n"
      "                configuration of one model (params: counters and philo written with\n"
      "                parameters, philo hand-written in the order of its parameterised\n"
      "                actions, and the hand-written counters and philo they are timed against)\n"
      "  --prowl-only  skip SPIN; check the counts against SPIN's figures in bench/README.md\n"
      "  --runs N      N rounds, the runs each line compares made in turn, and keep the fastest\n"
      "                of each kind (default 1)\n"
      "  --threads N   the THREADS line: prowl with N threads, SPIN's -DBFS_PAR pan with -uN\n"
      "                (default 2)\n"
      "  --no-threads  no THREADS line\n"
      "  --ranks N     the MPI line: prowl over N processes under mpirun (default 2)\n"
      "  --no-mpi      no MPI line\n"
      "  --models DIR  the Promela models (default: the source tree's bench/spin)\n"
      "  --keep        keep the temporary directory with pan.c and pan\n",
      to);
}

std::optional<Args> parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    std::optional<std::string> v;
    if (arg == "--help" || arg == "-h") {
      a.help = true;
    } else if (arg == "--large") {
      a.large = true;
    } else if (arg == "--prowl-only") {
      a.prowl_only = true;
    } else if (arg == "--keep") {
      a.keep = true;
    } else if (arg == "--no-threads") {
      a.no_threads = true;
    } else if (arg == "--no-mpi") {
      a.no_mpi = true;
    } else if (arg == "--ranks" && (v = value())) {
      a.ranks = std::atoi(v->c_str());
      if (a.ranks < 1) return std::nullopt;
    } else if (arg == "--only" && (v = value())) {
      a.only = *v;
    } else if (arg == "--runs" && (v = value())) {
      a.runs = std::atoi(v->c_str());
      if (a.runs < 1) return std::nullopt;
    } else if (arg == "--threads" && (v = value())) {
      a.threads = std::atoi(v->c_str());
      if (a.threads < 1) return std::nullopt;
    } else if (arg == "--spin" && (v = value())) {
      a.spin = *v;
    } else if (arg == "--cc" && (v = value())) {
      a.cc = *v;
    } else if (arg == "--models" && (v = value())) {
      a.model_dir = *v;
    } else {
      return std::nullopt;
    }
  }
  return a;
}

bool selected(const Config& c, const Args& a) {
  // `--only params` also times the hand-written models the parameterised ones are compared with.
  if (a.only == "params" && (c.name() == "counters" || c.name() == "philo")) return true;
  if (!a.only.empty()) return c.name() == a.only || (c.model == a.only && (!c.large || a.large));
  return !c.opt_in && (!c.large || a.large);
}

// Finds spin and the C compiler and makes the temporary directory; an exit code on failure.
std::optional<int> prepare_spin(const Args& args, bench::SpinTools& tools) {
  auto spin = bench::find_in_path(args.spin);
  if (!spin) {
    std::fprintf(stderr,
                 "spin_compare: the SPIN model checker ('%s') was not found on PATH; install it "
                 "(Debian: apt-get install spin), pass --spin PATH, or use --prowl-only\n",
                 args.spin.c_str());
    return kExitNoTool;
  }
  auto cc = bench::find_in_path(args.cc);
  if (!cc) {
    std::fprintf(stderr,
                 "spin_compare: the C compiler ('%s') for SPIN's pan.c was not found; pass --cc "
                 "PATH or use --prowl-only\n",
                 args.cc.c_str());
    return kExitNoTool;
  }
  tools.spin = *spin;
  tools.cc = *cc;
  tools.model_dir = fs::absolute(args.model_dir);
  if (!fs::exists(tools.model_dir / "counters.pml")) {
    std::fprintf(stderr, "spin_compare: no Promela models in %s (use --models DIR)\n",
                 tools.model_dir.c_str());
    return kExitUsage;
  }
  std::string tmpl = (fs::temp_directory_path() / "spin_compare.XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "spin_compare: cannot create a temporary directory\n");
    return kExitFailed;
  }
  tools.work_dir = tmpl;
  return std::nullopt;
}

// Keeps in `best` the faster of it and `r`; false (after saying why) when r failed.
template <class R>
bool keep_fastest(const Config& c, std::optional<R>& best, prowl::Result<R> r,
                  const std::string& what) {
  if (!r) {
    std::fprintf(stderr, "spin_compare: [%s] %s: %s\n", c.name().c_str(), what.c_str(),
                 r.status().message().c_str());
    return false;
  }
  if (!best || r->seconds < best->seconds) best = std::move(*r);
  return true;
}

// --runs rounds of one run of each kind, in the order given and, every other round, in the
// reverse order, so that runs compared with each other meet the same host and no kind always
// follows another; false at the first run that failed (each says why).
bool in_turn(int runs, const std::vector<std::function<bool()>>& kinds) {
  for (int i = 0; i < runs; ++i) {
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      if (!kinds[i % 2 == 0 ? k : kinds.size() - 1 - k]()) return false;
    }
  }
  return true;
}

// prowl on one thread, one run of `model` kept in `best` if it is the fastest.
bool one_thread(const Config& c, std::optional<ProwlResult>& best, const prowl::Model& model) {
  return keep_fastest(c, best, bench::run_prowl_bfs_forked(model, 1), "prowl, 1 thread");
}

// pan prints counts with %.8g: `value` as pan would print it.
std::string as_pan_prints(std::uint64_t value) {
  return fmt::format("{:.8g}", static_cast<double>(value));
}

// The SPIN line of pan -DBFS, or with `cores` > 0 the SPIN_PAR line of pan -DBFS_PAR -u<cores>
// (`cores=` there is what pan says it used; storage=hash_compact is BFS_PAR's default storage).
void print_spin(const Config& c, const SpinResult& s, int cores) {
  const std::string head = cores > 0
                               ? fmt::format("SPIN_PAR model={} cores={} storage={}", c.name(),
                                             s.cores, s.hash_compact ? "hash_compact" : "full")
                               : fmt::format("SPIN model={}", c.name());
  const std::string how = cores > 0
                              ? fmt::format("pan_par -m{} -w{} -u{}, -DBFS_PAR", c.pan.depth_bound,
                                            c.pan.hash_log2, cores)
                              : fmt::format("pan -m{} -w{}", c.pan.depth_bound, c.pan.hash_log2);
  fmt::print(
      "{} states={} transitions={} atomic_steps={} seconds={:.3g} wall_seconds={:.3f} "
      "cpu_seconds={:.3f} memory_mib={:.3f} hash_table_mib={:.3f} peak_rss_bytes_per_state={:.1f} "
      "({}{})\n",
      head, s.states_text, s.transitions_text, s.atomic_steps, s.seconds, s.wall_seconds,
      s.cpu_seconds, s.memory_mib, s.hash_table_mib,
      static_cast<double>(s.max_rss_bytes) / s.states, how, c.pan.noreduce ? ", -DNOREDUCE" : "");
}

void print_prowl(const Config& c, const ProwlResult& p) {
  const auto states = static_cast<double>(p.states);
  fmt::print(
      "PROWL model={} threads={} states={} transitions={} seconds={:.3f} cpu_seconds={:.3f} "
      "states_per_s={:.0f} memory={} memory_bytes={} bytes_per_state={:.1f} "
      "graph_bytes_per_state={:.1f}\n",
      c.name(), p.threads, p.states, p.transitions, p.seconds, p.cpu_seconds, states / p.seconds,
      p.peak_reset ? "vmhwm_growth" : "vmrss_delta", p.memory_bytes,
      static_cast<double>(p.memory_bytes) / states, static_cast<double>(p.graph_bytes) / states);
}

void print_ratio(const Config& c, const ProwlResult& p, const SpinResult& s) {
  const double prowl_rate = static_cast<double>(p.states) / p.seconds;
  const double spin_rate = s.states / s.seconds;
  fmt::print(
      "RATIO model={} mode=bfs prowl_states_per_s={:.0f} spin_states_per_s={:.0f} ratio={:.3f} "
      "prowl_bytes_per_state={:.1f} spin_bytes_per_state={:.1f}\n",
      c.name(), prowl_rate, spin_rate, prowl_rate / spin_rate,
      static_cast<double>(p.memory_bytes) / static_cast<double>(p.states),
      s.memory_mib * 1048576.0 / s.states);
}

// Prints the COUNTS line; true when the counts agree exactly (at pan's printed precision).
bool check_counts(const Config& c, const ProwlResult& p, const std::string& spin_states,
                  const std::string& spin_transitions, const char* source) {
  const bool states_ok = as_pan_prints(p.states) == spin_states;
  const bool transitions_ok =
      as_pan_prints(p.transitions + kSpinTransitionOffset) == spin_transitions;
  const bool ok = states_ok && transitions_ok && p.findings == 0 &&
                  p.termination == prowl::Termination::kExhausted;
  fmt::print(
      "COUNTS model={} prowl_states={} spin_states={} prowl_transitions={} spin_transitions={} "
      "offset={} spin_source={} check={} (SPIN's transitions = stored + matched, and the initial "
      "state is stored without a transition: SPIN = prowl + 1{})\n",
      c.name(), p.states, spin_states, p.transitions, spin_transitions, kSpinTransitionOffset,
      source, ok ? "ok" : "MISMATCH",
      spin_transitions.find('e') != std::string::npos
          ? "; pan prints %.8g, compared at that precision"
          : "");
  if (p.findings != 0) fmt::print("  prowl reported {} finding(s); SPIN none\n", p.findings);
  return ok;
}

// What a configuration's one-thread runs measured (the RATIO line's figures). The lines that scale
// a run out (THREADS, MPI, SCALE) check their counts against these, and set their times against
// one-thread runs of their own, made in turn with theirs.
struct Baseline {
  std::optional<ProwlResult> prowl;  // one thread; empty when any of compare_one's runs failed
  std::optional<SpinResult> spin;    // pan -DBFS; empty with --prowl-only or when it failed
  std::optional<fs::path> pan_dir;   // where that pan was built
};

// SPIN's pan -DBFS and prowl on one thread on one configuration, in turn (--runs rounds, the
// order reversed every other round, the fastest of each), their SPIN and PROWL lines, then the
// RATIO and COUNTS lines; false when anything failed or disagreed. `base` gets both results, or
// is cleared when a run failed.
bool compare_one(const Config& c, const Args& args, const bench::SpinTools& tools, Baseline& base) {
  if (!args.prowl_only) {
    std::fprintf(stderr, "[%s] spin %s, gcc, pan ...\n", c.name().c_str(), c.pan.pml.c_str());
    auto built = bench::build_pan(c.pan, tools);
    if (!built) {
      std::fprintf(stderr, "spin_compare: [%s] pan -DBFS: %s\n", c.name().c_str(),
                   built.status().message().c_str());
      return false;
    }
    base.pan_dir = *built;
  }
  std::fprintf(stderr, "[%s] prowl bfs, 1 thread%s ...\n", c.name().c_str(),
               base.pan_dir ? ", in turn with pan" : "");
  const auto model = c.make_model();
  std::vector<std::function<bool()>> kinds;
  if (base.pan_dir) {
    kinds.push_back([&] {
      return keep_fastest(c, base.spin, bench::run_pan(c.pan, *base.pan_dir), "pan -DBFS");
    });
  }
  kinds.push_back([&] { return one_thread(c, base.prowl, *model); });
  if (!in_turn(args.runs, kinds)) {
    base = {};  // nothing is set against a configuration whose runs failed
    return false;
  }
  bool ok = true;
  if (base.spin) {
    print_spin(c, *base.spin, 0);
    if (base.spin->atomic_steps != 0) {
      fmt::print("  pan reports atomic steps: the +1 transition offset does not apply\n");
      ok = false;
    }
  }
  const ProwlResult& p = *base.prowl;
  print_prowl(c, p);
  if (base.spin) {
    print_ratio(c, p, *base.spin);
    ok = check_counts(c, p, base.spin->states_text, base.spin->transitions_text, "pan") && ok;
  } else {
    ok = check_counts(c, p, as_pan_prints(c.spin_states), as_pan_prints(c.spin_transitions),
                      "reference_table") &&
         ok;
  }
  std::fflush(stdout);
  return ok;
}

// Whether a prowl run found exactly what the configuration's one-thread RATIO run did, and ended
// exhausted without findings.
bool same_search(const ProwlResult& run, const ProwlResult& base) {
  return run.states == base.states && run.transitions == base.transitions && run.findings == 0 &&
         run.termination == prowl::Termination::kExhausted;
}

// The THREADS line, from the runs compare_threads() made in turn; SPIN's fields are n/a without
// them (--prowl-only).
void print_threads(const Config& c, const ProwlResult& many, const ProwlResult& one,
                   const std::optional<SpinResult>& par, const std::optional<SpinResult>& seq,
                   const Baseline& base, bool ok) {
  const double rate = static_cast<double>(many.states) / many.seconds;
  const double one_rate = static_cast<double>(one.states) / one.seconds;
  std::string par_rate = "n/a", par_speedup = "n/a", ratio = "n/a";
  if (par && seq) {
    const double y = par->states / par->seconds;
    par_rate = fmt::format("{:.0f}", y);
    par_speedup = fmt::format("{:.3f}", y / (seq->states / seq->seconds));
    ratio = fmt::format("{:.3f}", rate / y);
  }
  fmt::print(
      "THREADS model={} threads={} prowl_states_per_s={:.0f} speedup={:.3f} "
      "spin_par_states_per_s={} spin_par_speedup={} ratio_vs_spin_par={} "
      "one_thread_states_per_s={:.0f} check={}\n",
      c.name(), many.threads, rate, rate / one_rate, par_rate, par_speedup, ratio, one_rate,
      ok ? "ok" : "MISMATCH");
  if (!ok) {
    fmt::print(
        "  counts: prowl {} threads {} states {} transitions, prowl 1 thread {} / {} (RATIO run {} "
        "/ {}), pan -DBFS {} / {}, pan BFS_PAR {} / {} (SPIN = prowl + {}, 0 atomic steps); prowl "
        "findings {} and {}\n",
        many.threads, many.states, many.transitions, one.states, one.transitions,
        base.prowl->states, base.prowl->transitions, seq ? seq->states_text : "n/a",
        seq ? seq->transitions_text : "n/a", par ? par->states_text : "n/a",
        par ? par->transitions_text : "n/a", kSpinTransitionOffset, many.findings, one.findings);
  }
}

// SPIN's multi-core BFS on --threads cores (unless --prowl-only) and prowl with --threads threads,
// each run in turn with the one-thread runs its speedup is set against (pan -DBFS, prowl on one
// thread), --runs rounds in all: seq, par, one, many, then many, one, par, seq, and so on, so
// that a change in the shared host's speed during the invocation falls on both sides of each
// ratio (and no kind always follows another); the fastest run of each kind counts. Then the
// SPIN_PAR, PROWL and THREADS lines; false when a run failed or a count disagreed. Every prowl
// run must find the RATIO run's states and transitions, and both pans theirs (BFS_PAR with the
// sequential offset).
bool compare_threads(const Config& c, const Args& args, const bench::SpinTools& tools,
                     const Baseline& base) {
  const int cores = args.threads;
  const auto threads = static_cast<std::uint32_t>(cores);
  std::optional<fs::path> par_dir;
  if (base.spin) {
    std::fprintf(stderr, "[%s] spin %s, gcc -DBFS_PAR, pan -u%d ...\n", c.name().c_str(),
                 c.pan.pml.c_str(), cores);
    auto built = bench::build_pan_par(c.pan, tools);
    if (!built) {
      std::fprintf(stderr, "spin_compare: [%s] pan -DBFS_PAR: %s\n", c.name().c_str(),
                   built.status().message().c_str());
      return false;
    }
    par_dir = *built;
  }
  std::fprintf(stderr, "[%s] prowl bfs, 1 and %u threads, in turn%s ...\n", c.name().c_str(),
               threads, par_dir ? " with pan" : "");
  const auto model = c.make_model();
  const std::string many_what = fmt::format("prowl, {} threads", threads);
  std::optional<SpinResult> seq, par;
  std::optional<ProwlResult> one, many;
  std::vector<std::function<bool()>> kinds;
  if (par_dir) {
    kinds.push_back(
        [&] { return keep_fastest(c, seq, bench::run_pan(c.pan, *base.pan_dir), "pan -DBFS"); });
    kinds.push_back([&] {
      return keep_fastest(c, par, bench::run_pan_par(c.pan, *par_dir, cores), "pan -DBFS_PAR");
    });
  }
  kinds.push_back([&] { return one_thread(c, one, *model); });
  kinds.push_back([&] {
    return keep_fastest(c, many, bench::run_prowl_bfs_forked(*model, threads), many_what);
  });
  if (!in_turn(args.runs, kinds)) return false;
  if (par) print_spin(c, *par, cores);
  print_prowl(c, *many);
  bool ok = same_search(*many, *base.prowl) && same_search(*one, *base.prowl);
  if (par) {
    ok = ok && par->atomic_steps == 0 && as_pan_prints(many->states) == par->states_text &&
         as_pan_prints(many->transitions + kSpinTransitionOffset) == par->transitions_text &&
         seq->atomic_steps == 0 && seq->states_text == base.spin->states_text &&
         seq->transitions_text == base.spin->transitions_text;
  }
  print_threads(c, *many, *one, par, seq, base, ok);
  std::fflush(stdout);
  return ok;
}

// The MPI line: prowl over --ranks processes and over one (what the exchange costs, beside what
// the ranks gain), against prowl on one thread, the three run in turn (--runs rounds, the order
// reversed every other round, the fastest of each kind), as for the THREADS line; false when a
// run failed or a count disagreed.
bool compare_mpi(const Config& c, const Args& args, const Baseline& base) {
#ifdef PROWL_BENCH_MPIRUN
  const auto ranks = static_cast<unsigned>(args.ranks);
  const auto model = c.make_model();
  std::optional<bench::MpiResult> m, one_rank;
  std::optional<ProwlResult> one;
  const std::string ranks_what = fmt::format("mpirun -np {}", ranks);
  std::string failed;  // the run that failed, for the MPI line
  const auto run_ranks = [&](std::optional<bench::MpiResult>& best, unsigned n,
                             const std::string& what) {
    failed = what;
    return keep_fastest(
        c, best, bench::run_prowl_mpi(PROWL_BENCH_MPIRUN, PROWL_BENCH_BFS, c.name(), n), what);
  };
  std::fprintf(stderr, "[%s] prowl bfs, 1 thread, %s and mpirun -np 1, in turn ...\n",
               c.name().c_str(), ranks_what.c_str());
  const bool ran = in_turn(args.runs, {[&] {
                                         failed = "prowl, 1 thread";
                                         return one_thread(c, one, *model);
                                       },
                                       [&] { return run_ranks(m, ranks, ranks_what); },
                                       [&] { return run_ranks(one_rank, 1, "mpirun -np 1"); }});
  if (!ran) {
    fmt::print("MPI model={} ranks={} failed: {} (the reason on standard error)\n", c.name(),
               args.ranks, failed);
    return false;
  }
  const auto exact = [&](const bench::MpiResult& r) {
    return r.states == base.prowl->states && r.transitions == base.prowl->transitions &&
           r.findings == 0 && r.termination == "exhausted";
  };
  const bool ok = exact(*m) && exact(*one_rank) && same_search(*one, *base.prowl);
  const double rate = static_cast<double>(m->states) / m->seconds;
  const double one_rate = static_cast<double>(one->states) / one->seconds;
  const double one_rank_rate = static_cast<double>(one_rank->states) / one_rank->seconds;
  fmt::print(
      "MPI model={} ranks={} prowl_states_per_s={:.0f} speedup={:.3f} "
      "one_rank_states_per_s={:.0f} speedup_vs_one_rank={:.3f} one_thread_states_per_s={:.0f} "
      "check={}\n",
      c.name(), m->ranks, rate, rate / one_rate, one_rank_rate, rate / one_rank_rate, one_rate,
      ok ? "ok" : "MISMATCH");
  if (!ok) {
    fmt::print(
        "  counts: {} processes {} states {} transitions ({}), one process {} / {} ({}), one "
        "thread {} / {}, the RATIO run {} / {}\n",
        m->ranks, m->states, m->transitions, m->termination, one_rank->states,
        one_rank->transitions, one_rank->termination, one->states, one->transitions,
        base.prowl->states, base.prowl->transitions);
  }
  std::fflush(stdout);
  return ok;
#else
  (void)c, (void)args, (void)base;
  return true;
#endif
}

// One PARAMS line per parameterised configuration whose hand-written twin ran too: the issue's
// goal is that parameters cost at most 5% (philo_grouped is hand-written, so its line shows what
// the order of the actions alone costs).
void print_params(const std::vector<Config>& configs,
                  const std::map<std::string, double>& seconds) {
  for (const Config& c : configs) {
    const auto mine = seconds.find(c.name());
    const auto base = seconds.find(c.hand_written);
    if (c.hand_written.empty() || mine == seconds.end() || base == seconds.end()) continue;
    const double ratio = mine->second / base->second;
    fmt::print(
        "PARAMS model={} hand_written={} seconds={:.3f} hand_written_seconds={:.3f} "
        "ratio={:.3f} goal<=1.05 {}\n",
        c.name(), c.hand_written, mine->second, base->second, ratio, ratio <= 1.05 ? "ok" : "OVER");
  }
}

// One configuration whose RATIO run found what it should: the SCALE line's runs are checked
// against that run.
struct Checked {
  const Config* config = nullptr;
  ProwlResult ratio_run;
};

// The SCALE line's own runs: prowl on one thread on counters at 1e6 and at 1e7 states, in turn
// (--runs rounds, the order reversed every other round, the fastest of each), so that the host's
// drift falls on both, as for the THREADS line; each must find its RATIO run's states and
// transitions. Their seconds, or empty after saying why.
std::optional<std::pair<double, double>> scale_seconds(const Checked& at_1e6, const Checked& at_1e7,
                                                       const Args& args) {
  std::fprintf(stderr, "[counters] prowl bfs at 1e6 and 1e7 states, in turn ...\n");
  const auto m6 = at_1e6.config->make_model();
  const auto m7 = at_1e7.config->make_model();
  std::optional<ProwlResult> a, b;
  if (!in_turn(args.runs, {[&] { return one_thread(*at_1e6.config, a, *m6); },
                           [&] { return one_thread(*at_1e7.config, b, *m7); }})) {
    return std::nullopt;
  }
  if (!same_search(*a, at_1e6.ratio_run) || !same_search(*b, at_1e7.ratio_run)) {
    fmt::print(
        "SCALE model=counters MISMATCH: 1e6 {} states {} transitions ({} findings), 1e7 {} / {} "
        "({}), against the RATIO runs' {} / {} and {} / {}\n",
        a->states, a->transitions, a->findings, b->states, b->transitions, b->findings,
        at_1e6.ratio_run.states, at_1e6.ratio_run.transitions, at_1e7.ratio_run.states,
        at_1e7.ratio_run.transitions);
    return std::nullopt;
  }
  return std::pair{a->seconds, b->seconds};
}

int compare(const Args& args) {
  std::vector<Config> configs;
  for (Config& c : all_configs()) {
    if (selected(c, args)) configs.push_back(std::move(c));
  }
  if (configs.empty()) {
    std::fprintf(stderr, "spin_compare: no configuration named '%s'\n", args.only.c_str());
    return kExitUsage;
  }
  bench::SpinTools tools;
  if (!args.prowl_only) {
    if (auto failed = prepare_spin(args, tools)) return *failed;
  }

  int exit_code = kExitOk;
  std::optional<double> spin_1e6, spin_1e7;
  Checked counters_1e6, counters_1e7;  // for the SCALE line
  std::map<std::string, double> seconds_of;
  for (const Config& c : configs) {
    Baseline base;
    const bool ok = compare_one(c, args, tools, base);
    const double seconds = base.prowl ? base.prowl->seconds : 0;
    if (!ok) exit_code = kExitFailed;
    // The lines that scale out, each set against the one-thread runs.
    if (base.prowl && !args.no_threads && !compare_threads(c, args, tools, base)) {
      exit_code = kExitFailed;
    }
    if (base.prowl && !args.no_mpi && c.hand_written.empty() && !compare_mpi(c, args, base)) {
      exit_code = kExitFailed;
    }
    if (ok && seconds > 0) seconds_of[c.name()] = seconds;  // a PARAMS line only for good runs
    if (ok && c.name() == "counters") counters_1e6 = {&c, *base.prowl};
    if (ok && c.name() == "counters_1e7") counters_1e7 = {&c, *base.prowl};
    if (base.spin && c.name() == "counters") spin_1e6 = base.spin->seconds;
    if (base.spin && c.name() == "counters_1e7") spin_1e7 = base.spin->seconds;
  }
  print_params(configs, seconds_of);
  const bool scaled = counters_1e6.config != nullptr && counters_1e7.config != nullptr;
  const auto scale_runs = scaled ? scale_seconds(counters_1e6, counters_1e7, args)
                                 : std::optional<std::pair<double, double>>();
  if (scaled && !scale_runs) exit_code = kExitFailed;
  if (scale_runs) {
    // Issue 18's goal; SPIN's own ratio, from its RATIO lines' runs, for scale.
    const auto [seconds_1e6, seconds_1e7] = *scale_runs;
    const double scale = seconds_1e7 / seconds_1e6;
    const std::string spin = spin_1e6 && spin_1e7 && *spin_1e6 > 0
                                 ? fmt::format(" spin_time_ratio={:.2f}", *spin_1e7 / *spin_1e6)
                                 : "";
    fmt::print(
        "SCALE model=counters prowl_seconds_1e6={:.3f} prowl_seconds_1e7={:.3f} "
        "prowl_time_ratio={:.2f}{} goal<=12 {}\n",
        seconds_1e6, seconds_1e7, scale, spin, scale <= 12 ? "ok" : "OVER");
  }
  if (!tools.work_dir.empty()) {
    if (args.keep) {
      std::fprintf(stderr, "pan sources kept in %s\n", tools.work_dir.c_str());
    } else {
      std::error_code ignored;
      fs::remove_all(tools.work_dir, ignored);
    }
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = parse_args(argc, argv);
  if (!args) {
    print_usage(stderr);
    return kExitUsage;
  }
  if (args->help) {
    print_usage(stdout);
    return kExitOk;
  }
  try {
    return compare(*args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spin_compare: %s\n", e.what());
    return kExitFailed;
  }
}
