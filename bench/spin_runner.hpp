// Runs SPIN the way the project's reference prescribes: `spin -D... -a model.pml` in a directory of
// its own, `gcc -O2 -DSAFETY -DBFS [-DNOREDUCE] -o pan pan.c`, `./pan -m<depth> -w<log2 hash>`,
// and reads pan's report. Child processes are started with fork/exec and waited for with wait4(),
// which also gives pan's CPU time and peak RSS. Stateless; safe to call from one thread at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "prowl/core/status.hpp"

namespace bench {

// One SPIN model configuration.
struct PanJob {
  std::string name;                  // also the name of its directory under SpinTools::work_dir
  std::string pml;                   // file in SpinTools::model_dir
  std::vector<std::string> defines;  // spin -D flags
  bool noreduce = false;             // gcc -DNOREDUCE (no partial-order reduction)
  std::uint64_t depth_bound = 0;     // pan -m
  int hash_log2 = 24;                // pan -w
};

struct SpinTools {
  std::filesystem::path spin;
  std::filesystem::path cc;
  std::filesystem::path model_dir;
  std::filesystem::path work_dir;
};

// What pan reported, plus what this process measured of it.
struct SpinResult {
  std::string states_text;  // `states, stored` as pan printed it (%.8g)
  std::string transitions_text;
  double states = 0;
  double transitions = 0;
  double atomic_steps = -1;
  double seconds = 0;  // `pan: elapsed time`
  double memory_mib = 0;
  double hash_table_mib = 0;  // part of memory_mib: the -w table, allocated up front
  double wall_seconds = 0;    // of the pan process, measured here
  double cpu_seconds = 0;     // of the pan process, user + system
  std::uint64_t max_rss_bytes = 0;
};

// The program's path: `program` itself when it contains a slash, else the first match in PATH.
std::optional<std::filesystem::path> find_in_path(const std::string& program);

// Generates pan.c for the job and compiles it, in work_dir/<name>. Returns that directory.
prowl::Result<std::filesystem::path> build_pan(const PanJob& job, const SpinTools& tools);

// Runs the pan built in `dir` and reads its report. Fails (kInternal) when pan fails, reports
// errors or a truncated search, or prints a report this parser does not know.
prowl::Result<SpinResult> run_pan(const PanJob& job, const std::filesystem::path& dir);

// Reads a report of pan -DSAFETY -DBFS (exposed for tests).
prowl::Result<SpinResult> parse_pan_output(const std::string& out);

}  // namespace bench
