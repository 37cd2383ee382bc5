// smt_fuzz_bench: what fuzzing the SMT-LIB model of examples/smt_fuzz costs, one line per mode:
//   BENCH name=smt_fuzz_z3_in_process runs=N steps=S seconds=X runs_per_s=R steps_per_s=P
//         ms_per_run=M cpu_user_ms_per_run=U cpu_system_ms_per_run=K page_faults_per_run=F
//         findings=N
//   BENCH name=smt_fuzz_z3_forked ...
//   BENCH name=smt_fuzz_z3_fork_isolation ms_per_run=D cpu_ms_per_run=C forked_over_in_process=Q
// Both modes run the same walks (the same fuzz seed, walks of at most --max-steps, default 50),
// through prowl::fsm::fuzz: forked runs each in a child process with its time limit and trace
// kept in memory (fuzz's default), in-process runs with fork=false. The difference of the two
// times per run is what the fork and the isolation cost; the CPU times (this process and its
// children, user and system) say the same without the noise of other load on the machine. The
// solver library is warmed up first (as smt_fuzz does), so neither mode pays for its one-time
// initialization.
//
//   smt_fuzz_bench [--runs N] [--seed S] [--max-steps N] [--solver z3|cvc5|both]
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "prowl/core/exit_code.hpp"
#include "prowl/fsm/fuzzer.hpp"
#include "smt_fuzz/machine.hpp"

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "smt_fuzz_bench: %s\n", message.c_str());
  std::exit(prowl::kExitUsage);
}

struct Settings {
  std::uint64_t runs = 300;
  std::uint64_t seed = 1;
  std::size_t max_steps = 50;
  std::string solver = "z3";
};

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
      fail("usage: smt_fuzz_bench [--runs N] [--seed S] [--max-steps N] [--solver z3|cvc5|both]");
    const std::string value = argv[++i];
    if (flag == "--runs") {
      s.runs = std::stoull(value);
    } else if (flag == "--seed") {
      s.seed = std::stoull(value);
    } else if (flag == "--max-steps") {
      s.max_steps = std::stoull(value);
    } else if (flag == "--solver") {
      s.solver = value;
    } else {
      fail("unknown flag " + flag);
    }
  }
  return s;
}

// CPU time and page faults of this process and its reaped children.
struct Usage {
  double user_ms = 0;
  double system_ms = 0;
  double faults = 0;
};

double ms(const timeval& t) {
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-3 * static_cast<double>(t.tv_usec);
}

Usage usage_now() {
  Usage u;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage r{};
    ::getrusage(who, &r);
    u.user_ms += ms(r.ru_utime);
    u.system_ms += ms(r.ru_stime);
    u.faults += static_cast<double>(r.ru_minflt + r.ru_majflt);
  }
  return u;
}

struct Measured {
  prowl::fsm::FuzzSummary summary;
  Usage used;  // during the fuzz call
};

Measured fuzz(const prowl::fsm::MachineCore& machine, const Settings& s, bool fork,
              const fs::path& out) {
  prowl::fsm::FuzzOptions options;
  options.seed = s.seed;
  options.runs = s.runs;
  options.walk.max_steps = s.max_steps;
  options.out_dir = (out / (fork ? "forked" : "in-process")).string();
  options.fork = fork;
  options.quiet = true;
  std::ostringstream ignored;
  const Usage before = usage_now();
  auto summary =
      prowl::fsm::fuzz(machine, {"smt_fuzz", {{"solver", s.solver}}}, options, nullptr, ignored);
  const Usage after = usage_now();
  if (!summary) fail(summary.status().message());
  return {*summary,
          {after.user_ms - before.user_ms, after.system_ms - before.system_ms,
           after.faults - before.faults}};
}

void report(const std::string& name, const Measured& m) {
  const prowl::fsm::FuzzSummary& r = m.summary;
  const auto runs = static_cast<double>(r.runs);
  fmt::print(
      "BENCH name={} runs={} steps={} seconds={:.3f} runs_per_s={:.1f} steps_per_s={:.0f} "
      "ms_per_run={:.2f} cpu_user_ms_per_run={:.2f} cpu_system_ms_per_run={:.2f} "
      "page_faults_per_run={:.0f} findings={}\n",
      name, r.runs, r.steps, r.seconds, runs / r.seconds, static_cast<double>(r.steps) / r.seconds,
      1000 * r.seconds / runs, m.used.user_ms / runs, m.used.system_ms / runs, m.used.faults / runs,
      r.findings + r.crashes + r.timeouts);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse(argc, argv);
  bool known = false;
  for (const std::string& name : smt_fuzz::solver_names()) known = known || name == s.solver;
  if (!known) fail("unknown solver " + s.solver);
  const smt_fuzz::SolverFactory factory = smt_fuzz::solver_factory(s.solver);
  auto machine = smt_fuzz::make_machine({factory, {}});
  if (auto status = machine.check(); !status) fail(status.message());
  smt_fuzz::warm_up(factory);

  const fs::path out = fs::temp_directory_path() / fmt::format("smt_fuzz_bench-{}", ::getpid());
  const auto in_process = fuzz(machine.core(), s, false, out);
  const auto forked = fuzz(machine.core(), s, true, out);
  std::error_code ec;
  fs::remove_all(out, ec);

  const std::string prefix = "smt_fuzz_" + s.solver;
  report(prefix + "_in_process", in_process);
  report(prefix + "_forked", forked);
  const auto runs = static_cast<double>(forked.summary.runs);
  const double per_run = 1000 * (forked.summary.seconds - in_process.summary.seconds) / runs;
  const double cpu_per_run = (forked.used.user_ms + forked.used.system_ms -
                              in_process.used.user_ms - in_process.used.system_ms) /
                             runs;
  fmt::print(
      "BENCH name={}_fork_isolation ms_per_run={:.2f} cpu_ms_per_run={:.2f} "
      "forked_over_in_process={:.2f}\n",
      prefix, per_run, cpu_per_run, forked.summary.seconds / in_process.summary.seconds);
  if (forked.summary.steps != in_process.summary.steps) {
    fmt::print(stderr, "smt_fuzz_bench: the two modes ran different walks ({} and {} steps)\n",
               forked.summary.steps, in_process.summary.steps);
    return prowl::kExitFindings;
  }
  return prowl::kExitOk;
}
