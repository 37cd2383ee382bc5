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

#include "fsm/run_codec.hpp"
#include "prowl/fsm/isolate.hpp"

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
  FuzzSummary summary;
  int last_id = 0;
  std::map<std::string, Bucket> known = load_buckets(out_dir, last_id);
  std::vector<std::string> order;  // signatures seen this session, first seen first
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double next_status = 0.2;
  for (std::uint64_t i = 0;; ++i) {
    if (options.runs != 0 && i >= options.runs) break;
    if (options.time_limit > 0 && elapsed() >= options.time_limit) break;
    if (detail::StopSignals::stopped()) {
      summary.interrupted = true;
      break;
    }
    const std::uint64_t seed = Rng::derive(options.seed, i, 0x66757a7a);
    trace_file.reset();
    output_file.reset();
    auto walk_to_file = [&]() {
      trace::TraceWriter writer(trace_file.fd());
      return walk(machine, header, seed, options.walk, &writer, stats);
    };
    RunResult r;
    if (options.fork) {
      IsolateOptions iso;
      iso.timeout_seconds = options.run_timeout;
      iso.output_fd = output_file.fd();
      iso.interrupted = [] { return detail::StopSignals::stopped(); };
      auto isolated = run_isolated([&] { return detail::encode_run(walk_to_file()); }, iso);
      if (!isolated) return isolated.status();
      if (isolated->end == Isolated::End::kInterrupted) {
        summary.interrupted = true;
        break;
      }
      r = detail::classify_isolated(*isolated, options.run_timeout);
      if (r.kind == RunKind::kCrash || r.kind == RunKind::kTimeout) {
        locate_from_trace(trace_file.contents(), r);
        detail::add_output_to_crash(r, output_file.contents());
      }
    } else {
      r = walk_to_file();
    }
    ++summary.runs;
    summary.steps += r.steps;
    switch (r.kind) {
      case RunKind::kOk:
        ++summary.ok;
        break;
      case RunKind::kFinding:
        ++summary.findings;
        break;
      case RunKind::kCrash:
        ++summary.crashes;
        break;
      case RunKind::kTimeout:
        ++summary.timeouts;
        break;
      case RunKind::kStuck:
        ++summary.stuck;
        break;
      case RunKind::kBadTrace:
        break;
    }
    if (r.failed()) {
      const std::string signature = r.signature();
      auto [it, fresh] = known.try_emplace(signature);
      Bucket& b = it->second;
      if (b.count == 0) order.push_back(signature);
      if (fresh) {
        b.id = ++last_id;
        b.kind = r.kind;
        b.signature = signature;
        b.first_run = i;
        b.steps = r.steps;
        b.dir = (out_dir / fmt::format("{:03}-{}", b.id, to_string(r.kind))).string();
        fs::create_directories(b.dir, ec);
        std::ofstream(fs::path(b.dir) / "trace", std::ios::binary) << trace_file.contents();
        std::string output = output_file.contents();
        if (!options.fork) output += r.message + '\n';
        std::ofstream(fs::path(b.dir) / "output", std::ios::binary) << output;
        std::ofstream signature_file(fs::path(b.dir) / "signature");
        signature_file << signature << '\n';
        if (ec || !signature_file) {
          return Status::environment(
              fmt::format("{}: cannot keep the run's trace: {}", b.dir, ec.message()));
        }
        if (!options.quiet) {
          if (options.status_line) std::cerr << "\r\033[K";
          out << fmt::format("run {}: new {} bucket {}: {}\n  trace: {}/trace ({} steps)\n", i,
                             to_string(r.kind), b.id, signature, b.dir, r.steps)
              << std::flush;
        }
      } else if (b.count == 0) {
        b.kind = r.kind;
        b.first_run = i;
      }
      ++b.count;
    }
    if (options.status_line && elapsed() >= next_status) {
      next_status = elapsed() + 0.2;
      std::cerr << fmt::format("\r\033[Kruns {}  {:.0f}/s  buckets {}  crashes {}  timeouts {}",
                               summary.runs, summary.runs / std::max(elapsed(), 1e-9), order.size(),
                               summary.crashes, summary.timeouts)
                << std::flush;
    }
  }
  if (options.status_line) std::cerr << "\r\033[K" << std::flush;
  summary.seconds = elapsed();
  for (const std::string& signature : order) summary.buckets.push_back(known.at(signature));
  return summary;
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
