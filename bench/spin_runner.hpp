// Runs SPIN the way the project's reference prescribes: `spin -D... -a model.pml` in a directory of
// its own, `gcc -O2 -DSAFETY -DBFS [-DNOREDUCE] -o pan pan.c`, `./pan -m<depth> -w<log2 hash>`,
// and reads pan's report. SPIN's multi-core breadth-first search is the same pan.c compiled with
// -DBFS_PAR instead of -DBFS (as pan_par) and run with -u<cores>. Child processes are started
// with fork/exec, each in a process group of its own, and waited for with wait4(), which also
// gives pan's CPU time and peak RSS. A BFS_PAR pan forks its workers and exits without waiting
// for them, so the first call makes this process their subreaper
// (prctl(PR_SET_CHILD_SUBREAPER)): the workers are waited for too, their CPU time added to pan's
// and none outlives the call. Safe to call from one thread at a time.
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
  // `total actual memory usage`; for BFS_PAR, `total shared memory usage` (the part of the shared
  // segment in use: hash table, queues, states) + `total non-shared memory usage`.
  double memory_mib = 0;
  double hash_table_mib = 0;        // part of memory_mib: the -w table, allocated up front
  int cores = 1;                    // BFS_PAR: `+ Multi-Core (using N cores)`
  bool hash_compact = false;        // `Hash-Compact` storage (BFS_PAR's default): a hash per state
  double wall_seconds = 0;          // of the pan process, measured here
  double cpu_seconds = 0;           // of the pan process and its workers, user + system
  std::uint64_t max_rss_bytes = 0;  // the largest of pan's and its workers'
};

// The program's path: `program` itself when it contains a slash, else the first match in PATH.
std::optional<std::filesystem::path> find_in_path(const std::string& program);

// Generates pan.c for the job and compiles it, in work_dir/<name>. Returns that directory.
prowl::Result<std::filesystem::path> build_pan(const PanJob& job, const SpinTools& tools);

// Runs the pan built in `dir` and reads its report. Fails (kInternal) when pan fails, reports
// errors or a truncated search, or prints a report this parser does not know.
prowl::Result<SpinResult> run_pan(const PanJob& job, const std::filesystem::path& dir);

// Generates pan.c for the job and compiles it with -DBFS_PAR instead of -DBFS, as pan_par, in
// work_dir/<name>. Returns that directory.
prowl::Result<std::filesystem::path> build_pan_par(const PanJob& job, const SpinTools& tools);

// Runs the pan_par built in `dir` on `cores` cores (-u<cores>) and reads its report, as run_pan.
prowl::Result<SpinResult> run_pan_par(const PanJob& job, const std::filesystem::path& dir,
                                      int cores);

// Reads a report of pan -DSAFETY -DBFS or -DBFS_PAR (exposed for tests).
prowl::Result<SpinResult> parse_pan_output(const std::string& out);

}  // namespace bench
