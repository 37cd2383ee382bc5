#include "prowl/fsm/fuzzer.hpp"

#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "prowl/fsm/isolate.hpp"
#include "run_codec.hpp"

namespace prowl::fsm {
namespace fs = std::filesystem;
namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Where a crashed or timed-out run was: its trace is complete up to the step that was running.
void locate_from_trace(const std::string& text, RunResult& r) {
  auto trace = trace::parse_trace(text, "<run>");
  if (!trace || trace->steps.empty()) return;
  r.steps = trace->steps.size();
  r.action = trace->steps.back().action;
}

// Loads the buckets an earlier session left in the output directory, so they are not reported as
// new again.
std::map<std::string, Bucket> load_buckets(const fs::path& dir, int& last_id) {
  std::map<std::string, Bucket> buckets;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    int id = 0;
    auto [ptr, err] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (err != std::errc() || ptr == name.data() || *ptr != '-') continue;
    std::string signature = read_file(entry.path() / "signature");
    while (!signature.empty() && signature.back() == '\n') signature.pop_back();
    if (signature.empty()) continue;
    Bucket b;
    b.id = id;
    b.signature = signature;
    b.dir = entry.path().string();
    last_id = std::max(last_id, id);
    buckets.emplace(signature, std::move(b));
  }
  return buckets;
}

// The summary's count of the runs that end as `kind`; null for kBadTrace, which a walk never is.
std::uint64_t* count_of(RunKind kind, FuzzSummary& summary) {
  switch (kind) {
    case RunKind::kOk:
      return &summary.ok;
    case RunKind::kFinding:
      return &summary.findings;
    case RunKind::kCrash:
      return &summary.crashes;
    case RunKind::kTimeout:
      return &summary.timeouts;
    case RunKind::kStuck:
      return &summary.stuck;
    case RunKind::kBadTrace:
      break;
  }
  return nullptr;
}

void count_run(const RunResult& r, FuzzSummary& summary) {
  ++summary.runs;
  summary.steps += r.steps;
  if (std::uint64_t* count = count_of(r.kind, summary)) ++*count;
}

// The loop of fuzz() and what it keeps from run to run: the buckets, old and new, and the
// counts. The output directory and the in-memory files exist before it starts.
class FuzzSession {
 public:
  FuzzSession(const MachineCore& machine, const trace::Header& header, const FuzzOptions& options,
              Stats* stats, std::ostream& out, detail::MemoryFile& trace_file,
              detail::MemoryFile& output_file)
      : machine_(machine),
        header_(header),
        options_(options),
        stats_(stats),
        out_(out),
        trace_file_(trace_file),
        output_file_(output_file),
        out_dir_(options.out_dir),
        known_(load_buckets(out_dir_, last_id_)),
        start_(std::chrono::steady_clock::now()) {}

  Result<FuzzSummary> run() {
    for (std::uint64_t i = 0;; ++i) {
      if (options_.runs != 0 && i >= options_.runs) break;
      if (options_.time_limit > 0 && elapsed() >= options_.time_limit) break;
      if (detail::StopSignals::stopped()) {
        summary_.interrupted = true;
        break;
      }
      RunResult r;
      if (Status st = run_one(i, r); !st) {
        summary_.error = st.message();
        break;
      }
      if (summary_.interrupted) break;
      count_run(r, summary_);
      if (r.failed()) {
        if (Status st = keep_failure(i, r); !st) {
          summary_.error = st.message();
          break;
        }
      }
      if (options_.status_line && elapsed() >= next_status_) print_status_line();
    }
    if (options_.status_line) std::cerr << "\r\033[K" << std::flush;
    summary_.seconds = elapsed();
    for (const std::string& signature : order_) summary_.buckets.push_back(known_.at(signature));
    return std::move(summary_);
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  // Walks run i, in a child unless options.fork is false, into `r`; a run cut short by
  // SIGINT/SIGTERM sets summary_.interrupted instead.
  Status run_one(std::uint64_t i, RunResult& r) {
    const std::uint64_t seed = Rng::derive(options_.seed, i, 0x66757a7a);
    trace_file_.reset();
    output_file_.reset();
    auto walk_to_file = [&]() {
      trace::TraceWriter writer(trace_file_.fd());
      return walk(machine_, header_, seed, options_.walk, &writer, stats_);
    };
    if (!options_.fork) {
      r = walk_to_file();
      return Status::ok();
    }
    IsolateOptions iso;
    iso.timeout_seconds = options_.run_timeout;
    iso.output_fd = output_file_.fd();
    iso.interrupted = [] { return detail::StopSignals::stopped(); };
    auto isolated = run_isolated([&] { return detail::encode_run(walk_to_file()); }, iso);
    if (!isolated) return isolated.status();
    if (isolated->end == Isolated::End::kInterrupted) {
      summary_.interrupted = true;
      return Status::ok();
    }
    r = detail::classify_isolated(*isolated, options_.run_timeout);
    if (r.kind == RunKind::kCrash || r.kind == RunKind::kTimeout) {
      locate_from_trace(trace_file_.contents(), r);
      detail::add_output_to_crash(r, output_file_.contents());
    }
    return Status::ok();
  }

  // Counts failed run i in its bucket, opening the bucket when its signature is new.
  Status keep_failure(std::uint64_t i, const RunResult& r) {
    const std::string signature = r.signature();
    auto [it, fresh] = known_.try_emplace(signature);
    Bucket& b = it->second;
    if (b.count == 0) {
      order_.push_back(signature);
      b.action = r.action;
      b.message = r.message;
    }
    if (fresh) {
      if (Status st = open_bucket(b, i, r, signature); !st) return st;
    } else if (b.count == 0) {
      b.kind = r.kind;
      b.first_run = i;
    }
    ++b.count;
    return Status::ok();
  }

  // Keeps the run's trace, output and signature in the bucket's new directory and says so.
  Status open_bucket(Bucket& b, std::uint64_t i, const RunResult& r, const std::string& signature) {
    b.id = ++last_id_;
    b.kind = r.kind;
    b.signature = signature;
    b.first_run = i;
    b.steps = r.steps;
    b.dir = (out_dir_ / fmt::format("{:03}-{}", b.id, to_string(r.kind))).string();
    std::error_code ec;
    fs::create_directories(b.dir, ec);
    std::ofstream(fs::path(b.dir) / "trace", std::ios::binary) << trace_file_.contents();
    std::string output = output_file_.contents();
    if (!options_.fork) output += r.message + '\n';
    std::ofstream(fs::path(b.dir) / "output", std::ios::binary) << output;
    std::ofstream signature_file(fs::path(b.dir) / "signature");
    signature_file << signature << '\n';
    if (ec || !signature_file) {
      return Status::environment(
          fmt::format("{}: cannot keep the run's trace: {}", b.dir, ec.message()));
    }
    if (!options_.quiet) {
      if (options_.status_line) std::cerr << "\r\033[K";
      out_ << fmt::format("run {}: new {} bucket {}: {}\n  trace: {}/trace ({} steps)\n", i,
                          to_string(r.kind), b.id, signature, b.dir, r.steps)
           << std::flush;
    }
    return Status::ok();
  }

  void print_status_line() {
    next_status_ = elapsed() + 0.2;
    std::cerr << fmt::format("\r\033[Kruns {}  {:.0f}/s  buckets {}  crashes {}  timeouts {}",
                             summary_.runs, summary_.runs / std::max(elapsed(), 1e-9),
                             order_.size(), summary_.crashes, summary_.timeouts)
              << std::flush;
  }

  const MachineCore& machine_;
  const trace::Header& header_;
  const FuzzOptions& options_;
  Stats* stats_;
  std::ostream& out_;
  detail::MemoryFile& trace_file_;
  detail::MemoryFile& output_file_;
  const fs::path out_dir_;
  FuzzSummary summary_;
  int last_id_ = 0;
  std::map<std::string, Bucket> known_;
  std::vector<std::string> order_;  // signatures seen this session, first seen first
  const std::chrono::steady_clock::time_point start_;
  double next_status_ = 0.2;
};

}  // namespace

Result<FuzzSummary> fuzz(const MachineCore& machine, const trace::Header& header,
                         const FuzzOptions& options, Stats* stats, std::ostream& out) {
  const fs::path out_dir = options.out_dir;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    return Status::environment(
        fmt::format("{}: cannot create the output directory: {}", out_dir.string(), ec.message()));
  }
  detail::MemoryFile trace_file, output_file;
  if (!trace_file.ok() || !output_file.ok()) {
    return Status::environment(
        fmt::format("cannot create an in-memory file: {}", std::strerror(errno)));
  }
  detail::StopSignals signals;
  FuzzSession session(machine, header, options, stats, out, trace_file, output_file);
  return session.run();
}

std::string format_summary(const FuzzSummary& s) {
  const double seconds = std::max(s.seconds, 1e-9);
  std::string out = fmt::format(
      "{} {} runs in {:.1f} s ({:.1f} runs/s, {:.0f} steps/s): {} ok, {} findings, {} crashes, {} "
      "timeouts{}\n",
      s.interrupted ? "interrupted after" : "fuzzed", s.runs, s.seconds, s.runs / seconds,
      s.steps / seconds, s.ok, s.findings, s.crashes, s.timeouts,
      s.stuck != 0 ? fmt::format(", {} stuck", s.stuck) : "");
  if (s.buckets.empty()) return out + "no failures\n";
  out += fmt::format("{} bucket{}:\n", s.buckets.size(), s.buckets.size() == 1 ? "" : "s");
  for (const Bucket& b : s.buckets) {
    out += fmt::format("  {:03}  {:>6} run{}  {}\n       {}/trace\n", b.id, b.count,
                       b.count == 1 ? " " : "s", b.signature, b.dir);
  }
  return out;
}

}  // namespace prowl::fsm
