// spin_compare: explores the reference models of bench/spin/ with SPIN and with prowl, side by
// side, in one invocation. For each model it runs SPIN breadth-first exactly as the project's
// reference prescribes (spin -a, gcc -O2 -DSAFETY -DBFS, ./pan -m -w; spin_runner.hpp), runs
// prowl's Bfs on the prowl version of the model (models/models.hpp; prowl_runner.hpp), checks that
// both found the same states and transitions, and prints prowl's rate and memory beside SPIN's:
//
//   RATIO model=<name> mode=bfs prowl_states_per_s=<x> spin_states_per_s=<y> ratio=<x/y>
//         prowl_bytes_per_state=<b> spin_bytes_per_state=<c>            (one line)
//   COUNTS model=<name> ... check=ok|MISMATCH
//
// How the figures are taken:
//   SPIN states/s     `states, stored` / `pan: elapsed time` (pan's own wall clock).
//   SPIN bytes/state  `total actual memory usage` (MiB, pan's own count; includes the -w hash
//                     table) / states. pan's peak RSS, from wait4(), is printed beside it.
//   prowl states/s    states / wall time of Explorer::run() (world set-up included).
//   prowl bytes/state peak RSS growth during Explorer::run() / states (memory=vmhwm_growth), or
//                     the VmRSS delta when the peak cannot be reset (memory=vmrss_delta).
//   Each prowl run is made in a child process forked for it, so that no run inherits a heap an
//   earlier configuration or run has used: the order of the configurations does not move them.
//
// Transition counts: pan prints `transitions (= stored+matched)`. Every successor pan generates is
// either stored (new) or matched (known), and the initial state is stored too although no
// transition leads to it, so SPIN reports exactly one more transition than it executed. None of
// the three models has atomic sequences or rendezvous (pan reports `0 atomic steps`, which is
// checked), so the offset is exactly 1 for each of them; prowl counts executed transitions, so the
// check is spin_transitions == prowl_transitions + 1. pan prints counts with %.8g, so counts of
// nine digits (counters K=7: 126,000,001) are compared at SPIN's printed precision.
//
// Exit codes: 0 all checks passed; 1 a count mismatch, a finding or a failed tool run; 2 bad
// usage; 3 spin or the C compiler is missing.
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "models/models.hpp"
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
  std::string spin = "spin";
  std::string cc = "gcc";
  std::string model_dir = PROWL_BENCH_SPIN_DIR;
  bool keep = false;
  bool help = false;
};

void print_usage(std::FILE* to) {
  std::fputs(
      "usage: spin_compare [--large] [--only NAME] [--prowl-only] [--runs N]\n"
      "                    [--spin PATH] [--cc PATH] [--models DIR] [--keep]\n"
      "  --large       also explore counters K=7 N=10 (1e7 states) and print the SCALE line\n"
      "  --only NAME   one configuration (counters, orders, philo, counters_1e7, orders_1.6e7,\n"
      "                counters_params, philo_params, philo_args, philo_grouped) or every\n"
      "                configuration of one model (params: counters and philo written with\n"
      "                parameters, philo hand-written in the order of its parameterised\n"
      "                actions, and the hand-written counters and philo they are timed against)\n"
      "  --prowl-only  skip SPIN; check the counts against SPIN's figures in bench/README.md\n"
      "  --runs N      run each tool N times and keep the fastest run (default 1)\n"
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
    } else if (arg == "--only" && (v = value())) {
      a.only = *v;
    } else if (arg == "--runs" && (v = value())) {
      a.runs = std::atoi(v->c_str());
      if (a.runs < 1) return std::nullopt;
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

// The run with the shortest time of `runs` runs of `once`.
template <class R, class F>
prowl::Result<R> fastest(int runs, F once, double R::*seconds) {
  std::optional<R> best;
  for (int i = 0; i < runs; ++i) {
    prowl::Result<R> r = once();
    if (!r) return r;
    if (!best || (*r).*seconds < (*best).*seconds) best = std::move(*r);
  }
  return *best;
}

// once() run in a child process, forked for it: the run starts from this process's heap as it
// is, not one an earlier run has grown and freed. ProwlResult is plain bytes; a failure comes back
// as its message.
prowl::Result<ProwlResult> in_child(const std::function<prowl::Result<ProwlResult>()>& once) {
  static_assert(std::is_trivially_copyable_v<ProwlResult>);
  int fds[2];
  if (pipe(fds) != 0) return prowl::Status::environment("spin_compare: pipe() failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return prowl::Status::environment("spin_compare: fork() failed");
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      const prowl::Result<ProwlResult> r = once();
      out = r ? std::string(1, 'R') + std::string(reinterpret_cast<const char*>(&*r), sizeof(*r))
              : "E" + r.status().message();
    } catch (const std::exception& e) {
      out = std::string("E") + e.what();
    }
    for (std::size_t at = 0; at < out.size();) {
      const ssize_t n = write(fds[1], out.data() + at, out.size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(1);
      at += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string in;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return prowl::Status::environment("spin_compare: waitpid() failed");
  }
  if (!in.empty() && in[0] == 'E') return prowl::Status::environment(in.substr(1));
  if (in.size() != 1 + sizeof(ProwlResult) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return prowl::Status::environment("spin_compare: the child process running prowl failed");
  }
  ProwlResult r;
  std::memcpy(&r, in.data() + 1, sizeof r);
  return r;
}

// pan prints counts with %.8g: `value` as pan would print it.
std::string as_pan_prints(std::uint64_t value) {
  return fmt::format("{:.8g}", static_cast<double>(value));
}

void print_spin(const Config& c, const SpinResult& s) {
  fmt::print(
      "SPIN model={} states={} transitions={} atomic_steps={} seconds={:.3g} wall_seconds={:.3f} "
      "cpu_seconds={:.3f} memory_mib={:.3f} hash_table_mib={:.3f} peak_rss_bytes_per_state={:.1f} "
      "(pan -m{} -w{}{})\n",
      c.name(), s.states_text, s.transitions_text, s.atomic_steps, s.seconds, s.wall_seconds,
      s.cpu_seconds, s.memory_mib, s.hash_table_mib,
      static_cast<double>(s.max_rss_bytes) / s.states, c.pan.depth_bound, c.pan.hash_log2,
      c.pan.noreduce ? ", -DNOREDUCE" : "");
}

void print_prowl(const Config& c, const ProwlResult& p) {
  const auto states = static_cast<double>(p.states);
  fmt::print(
      "PROWL model={} states={} transitions={} seconds={:.3f} cpu_seconds={:.3f} "
      "states_per_s={:.0f} memory={} memory_bytes={} bytes_per_state={:.1f} "
      "graph_bytes_per_state={:.1f}\n",
      c.name(), p.states, p.transitions, p.seconds, p.cpu_seconds, states / p.seconds,
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

// SPIN then prowl on one configuration; false when anything failed or disagreed. `prowl_seconds`
// gets prowl's time.
bool compare_one(const Config& c, const Args& args, const bench::SpinTools& tools,
                 double& prowl_seconds) {
  std::optional<SpinResult> spin;
  bool ok = true;
  if (!args.prowl_only) {
    std::fprintf(stderr, "[%s] spin %s, gcc, pan ...\n", c.name().c_str(), c.pan.pml.c_str());
    auto dir = bench::build_pan(c.pan, tools);
    auto r = dir ? fastest<SpinResult>(
                       args.runs, [&] { return bench::run_pan(c.pan, *dir); }, &SpinResult::seconds)
                 : prowl::Result<SpinResult>(dir.status());
    if (!r) {
      std::fprintf(stderr, "spin_compare: [%s] %s\n", c.name().c_str(),
                   r.status().message().c_str());
      return false;
    }
    spin = *r;
    print_spin(c, *spin);
    if (spin->atomic_steps != 0) {
      fmt::print("  pan reports atomic steps: the +1 transition offset does not apply\n");
      ok = false;
    }
    std::fflush(stdout);
  }

  std::fprintf(stderr, "[%s] prowl bfs ...\n", c.name().c_str());
  const auto model = c.make_model();
  auto p = fastest<ProwlResult>(
      args.runs, [&] { return in_child([&] { return bench::run_prowl_bfs(*model); }); },
      &ProwlResult::seconds);
  if (!p) {
    std::fprintf(stderr, "spin_compare: [%s] prowl: %s\n", c.name().c_str(),
                 p.status().message().c_str());
    return false;
  }
  prowl_seconds = p->seconds;
  print_prowl(c, *p);
  if (spin) {
    print_ratio(c, *p, *spin);
    ok = check_counts(c, *p, spin->states_text, spin->transitions_text, "pan") && ok;
  } else {
    ok = check_counts(c, *p, as_pan_prints(c.spin_states), as_pan_prints(c.spin_transitions),
                      "reference_table") &&
         ok;
  }
  std::fflush(stdout);
  return ok;
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
  std::optional<double> seconds_1e6, seconds_1e7;
  std::map<std::string, double> seconds_of;
  for (const Config& c : configs) {
    double seconds = 0;
    const bool ok = compare_one(c, args, tools, seconds);
    if (!ok) exit_code = kExitFailed;
    if (ok && seconds > 0) seconds_of[c.name()] = seconds;  // a PARAMS line only for good runs
    if (seconds > 0 && c.name() == "counters") seconds_1e6 = seconds;
    if (seconds > 0 && c.name() == "counters_1e7") seconds_1e7 = seconds;
  }
  print_params(configs, seconds_of);
  if (seconds_1e6 && seconds_1e7) {
    const double scale = *seconds_1e7 / *seconds_1e6;
    fmt::print(
        "SCALE model=counters prowl_seconds_1e6={:.3f} prowl_seconds_1e7={:.3f} "
        "prowl_time_ratio={:.2f} goal<=20 {}\n",
        *seconds_1e6, *seconds_1e7, scale, scale <= 20 ? "ok" : "OVER");
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
