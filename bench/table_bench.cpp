// table_bench: what a look-up in the fingerprint table costs, for the table prowl has and for
// three layouts that keep the fingerprint beside the state's id (bench/README.md, "The table's
// cache misses").
//
// A breadth-first search's look-ups are mostly of known states (counters 1e7: 126 M transitions,
// 10 M states, so 12.6 look-ups a state). prowl's table (Graph) holds 4-byte slots (a tag and the
// state's id) and the fingerprints in a separate array by id, so a known state costs two cache
// misses: its slot, then its fingerprint, to confirm. The layouts compared here keep 12 bytes of
// the fingerprint (fp.hi and the top half of fp.lo: states are then told apart by 96 of the 128
// bits) and the id in one 16-byte entry, so that the look-up's first line confirms it:
//   inline:      linear probing over 16-byte entries, doubled when three quarters full (as
//                Graph's table);
//   inline_half: the same, grown by half instead (fuller, so fewer bytes, but grown more often);
//   buckets:     four entries a 64-byte line, probing line by line, grown by half when 85 % full.
// The fingerprint array Graph keeps beside its table is what they replace (bytes_per_state counts
// Graph's table and fingerprints, and the others' tables).
// Each replays the same stream: `states` fingerprints added, each first met once and looked up
// again (lookups - 1) times in all on average, the known ones drawn uniformly from those added,
// in batches of 32 whose lines are prefetched before they are read, as the searches do.
// Prints a TABLE line per layout: ns per look-up, table bytes per state (at the end), and a
// check that every layout found every known fingerprint known and every new one new; then a
// READS line: a random read of memory as large as prowl's table, one at a time (the latency) and
// many at once, and their ratio (how many misses a core keeps in flight). Exit 1 when a check
// failed, 2 on bad flags.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "prowl/core/fingerprint.hpp"
#include "prowl/core/huge_array.hpp"
#include "prowl/core/rng.hpp"
#include "prowl/explore/graph.hpp"

namespace {

using prowl::Fingerprint;
using prowl::detail::HugeArray;

constexpr std::size_t kBatch = 32;

// The look-up stream: for each step, the fingerprint looked up (an index into `fps`). A first
// look-up of an index adds it.
struct Workload {
  std::vector<Fingerprint> fps;
  std::vector<std::uint32_t> stream;
};

Workload make_workload(std::size_t states, double lookups, std::uint64_t seed) {
  Workload w;
  prowl::Rng rng(seed);
  w.fps.resize(states);
  for (Fingerprint& f : w.fps) f = Fingerprint{rng.next(), rng.next()};
  const auto total = static_cast<std::size_t>(static_cast<double>(states) * lookups);
  w.stream.reserve(total);
  std::size_t added = 0;
  const double p_new = static_cast<double>(states) / static_cast<double>(total);
  while (added < states) {
    if (added == 0 || rng.unit() < p_new) {
      w.stream.push_back(static_cast<std::uint32_t>(added++));
    } else {
      w.stream.push_back(static_cast<std::uint32_t>(rng.below(added)));
    }
  }
  return w;
}

// prowl's own table: Graph's find(), prefetch(), prefetch_state() and append().
struct GraphTable {
  prowl::Graph graph{4};
  GraphTable() { graph.add(Fingerprint{0, 0}, prowl::kNoState, prowl::kNoAction); }
  void prefetch(const Fingerprint& fp) const { graph.prefetch(fp); }
  void prefetch_second(const Fingerprint& fp) const { graph.prefetch_state(fp); }
  bool find_or_add(const Fingerprint& fp) {
    if (graph.find(fp) != prowl::kNoState) return true;
    graph.append(fp, 0, 0, 1);
    return false;
  }
  std::size_t bytes() const { return graph.memory_bytes(); }
  std::size_t states() const { return graph.num_states(); }
};

// A 16-byte entry: fp.hi, the top 32 bits of fp.lo, and the state's id + 1 (0: empty).
struct Entry {
  std::uint64_t hi;
  std::uint32_t lo_top;
  std::uint32_t id;
};
static_assert(sizeof(Entry) == 16);

bool same(const Entry& e, const Fingerprint& fp) {
  return e.hi == fp.hi && e.lo_top == static_cast<std::uint32_t>(fp.lo >> 32);
}

// Linear probing over 16-byte entries, grown by kGrowth % when three quarters full (100: doubled,
// as Graph's table).
template <unsigned kGrowth>
struct InlineTable {
  HugeArray<Entry> slots{std::size_t{1} << 16};
  std::size_t count = 0;
  // By the top 32 bits of fp.lo, which the entry keeps, so that growing can place it again.
  std::size_t home(std::uint64_t lo_top) const {
    return static_cast<std::size_t>((lo_top * slots.size()) >> 32);
  }
  void prefetch(const Fingerprint& fp) const { __builtin_prefetch(&slots[home(fp.lo >> 32)]); }
  void prefetch_second(const Fingerprint&) const {}
  bool find_or_add(const Fingerprint& fp) {
    const std::size_t n = slots.size();
    std::size_t i = home(fp.lo >> 32);
    for (; slots[i].id != 0; i = i + 1 == n ? 0 : i + 1) {
      if (same(slots[i], fp)) return true;
    }
    slots[i] = {fp.hi, static_cast<std::uint32_t>(fp.lo >> 32),
                static_cast<std::uint32_t>(++count)};
    if (count * 4 >= n * 3) grow();
    return false;
  }
  void grow() {
    const HugeArray<Entry> old = std::move(slots);
    slots = HugeArray<Entry>(old.size() + old.size() * kGrowth / 100);
    const std::size_t n = slots.size();
    for (const Entry& e : old) {
      if (e.id == 0) continue;
      std::size_t i = home(e.lo_top);
      while (slots[i].id != 0) i = i + 1 == n ? 0 : i + 1;
      slots[i] = e;
    }
  }
  std::size_t bytes() const { return slots.mapped_bytes(); }
  std::size_t states() const { return count; }
};

// Four entries a 64-byte line; a fingerprint's entry is in its home line or, when that is full,
// the next line with room (linear probing by lines), grown by half when 85 % full. Denser than
// inline, and a look-up of an entry in its home line still reads one line.
struct BucketTable {
  struct alignas(64) Bucket {
    Entry e[4];
  };
  HugeArray<Bucket> buckets{std::size_t{1} << 14};
  std::size_t count = 0;
  std::size_t home(std::uint64_t lo_top) const {
    return static_cast<std::size_t>((lo_top * buckets.size()) >> 32);
  }
  void prefetch(const Fingerprint& fp) const { __builtin_prefetch(&buckets[home(fp.lo >> 32)]); }
  void prefetch_second(const Fingerprint&) const {}
  bool find_or_add(const Fingerprint& fp) {
    const std::size_t n = buckets.size();
    for (std::size_t b = home(fp.lo >> 32);; b = b + 1 == n ? 0 : b + 1) {
      for (Entry& e : buckets[b].e) {
        if (e.id == 0) {
          e = {fp.hi, static_cast<std::uint32_t>(fp.lo >> 32), static_cast<std::uint32_t>(++count)};
          if (count * 100 >= n * 4 * 85) grow();
          return false;
        }
        if (same(e, fp)) return true;
      }
    }
  }
  void grow() {
    const HugeArray<Bucket> old = std::move(buckets);
    buckets = HugeArray<Bucket>(old.size() + old.size() / 2);
    const std::size_t n = buckets.size();
    for (const Bucket& ob : old) {
      for (const Entry& oe : ob.e) {
        if (oe.id == 0) continue;
        for (std::size_t b = home(oe.lo_top);; b = b + 1 == n ? 0 : b + 1) {
          Entry* free = nullptr;
          for (Entry& e : buckets[b].e) {
            if (e.id == 0) {
              free = &e;
              break;
            }
          }
          if (free != nullptr) {
            *free = oe;
            break;
          }
        }
      }
    }
  }
  std::size_t bytes() const { return buckets.mapped_bytes(); }
  std::size_t states() const { return count; }
};

// What a random read of memory costs on this machine: reads of random 16-byte elements of an
// array of `bytes`, independent of each other (as many in flight as the core allows), and each
// at an address the previous one gave (one at a time: the latency).
struct Reads {
  double independent_ns = 0;
  double chain_ns = 0;
};

Reads measure_reads(std::size_t bytes, std::uint64_t seed) {
  HugeArray<std::uint64_t> a(bytes / sizeof(std::uint64_t));
  const std::size_t n = a.size() / 2;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = i * 0x9e3779b97f4a7c15ULL;
  prowl::Rng rng(seed);
  std::vector<std::uint32_t> at(4'000'000);
  for (std::uint32_t& i : at) i = static_cast<std::uint32_t>(rng.below(n));
  Reads r;
  std::uint64_t sum = 0;
  auto start = std::chrono::steady_clock::now();
  for (const std::uint32_t i : at) sum += a[2 * i];
  r.independent_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
      static_cast<double>(at.size());
  std::uint64_t j = sum % n;
  constexpr std::size_t kChain = 1'000'000;
  start = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < kChain; ++k) j = (a[2 * j] + k) % n;
  r.chain_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
      static_cast<double>(kChain);
  asm volatile("" : : "r"(sum + j));  // both loops' results are used: neither is optimised away
  return r;
}

struct Result {
  double ns = 0;
  std::size_t known = 0;
  std::size_t bytes = 0;
};

template <class Table>
Result replay(const Workload& w) {
  Table table;
  Result r;
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = w.stream.size();
  for (std::size_t first = 0; first < n; first += kBatch) {
    const std::size_t end = std::min(n, first + kBatch);
    for (std::size_t i = first; i < end; ++i) table.prefetch(w.fps[w.stream[i]]);
    for (std::size_t i = first; i < end; ++i) table.prefetch_second(w.fps[w.stream[i]]);
    for (std::size_t i = first; i < end; ++i) r.known += table.find_or_add(w.fps[w.stream[i]]);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.ns = seconds * 1e9 / static_cast<double>(n);
  r.bytes = table.bytes();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"table_bench: the fingerprint table's look-ups, prowl's layout and three others"};
  std::size_t states = 10'000'000;
  double lookups = 12.6;
  int runs = 3;
  std::uint64_t seed = 1;
  app.add_option("--states", states, "fingerprints added (default 1e7)")
      ->check(CLI::Range(1000, 100'000'000));
  app.add_option("--lookups", lookups,
                 "look-ups a state, the first adding it (default 12.6, counters 1e7's)")
      ->check(CLI::Range(1.0, 100.0));
  app.add_option("--runs", runs, "runs of each layout, in turn; the fastest is printed (default 3)")
      ->check(CLI::Range(1, 20));
  app.add_option("--seed", seed, "seed of the fingerprints and the stream (default 1)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // bad usage, as every prowl program
  }
  if (static_cast<double>(states) * lookups > 2e9) {
    std::fprintf(stderr,
                 "table_bench: --states x --lookups is %.3g look-ups, more than the 2e9 the stream "
                 "holds (8 GB); give fewer states or look-ups a state\n",
                 static_cast<double>(states) * lookups);
    return 2;
  }

  const Workload w = make_workload(states, lookups, seed);
  Result best[4];
  for (int run = 0; run < runs; ++run) {
    const Result r[4] = {replay<GraphTable>(w), replay<InlineTable<100>>(w),
                         replay<InlineTable<50>>(w), replay<BucketTable>(w)};
    for (int k = 0; k < 4; ++k) {
      if (run == 0 || r[k].ns < best[k].ns) best[k] = r[k];
    }
  }
  const std::size_t known = w.stream.size() - states;  // every look-up but the first of each
  const char* names[4] = {"graph", "inline", "inline_half", "buckets"};
  bool all_ok = true;
  for (int k = 0; k < 4; ++k) {
    all_ok = all_ok && best[k].known == known;
    // The graph's bytes are its parents and parent actions as well (6 a state): count its table
    // and fingerprints alone, what the other layouts replace.
    double per_state = static_cast<double>(best[k].bytes) / static_cast<double>(states);
    if (k == 0) per_state -= 4 + 2;
    fmt::print(
        "TABLE layout={} states={} lookups={} ns_per_lookup={:.1f} ratio_vs_graph={:.3f} "
        "bytes_per_state={:.1f} check={}\n",
        names[k], states, w.stream.size(), best[k].ns, best[k].ns / best[0].ns, per_state,
        best[k].known == known ? "ok" : "MISMATCH");
  }
  const Reads reads = measure_reads(std::max<std::size_t>(best[0].bytes, 1 << 20), seed);
  fmt::print("READS bytes={} independent_ns={:.1f} chain_ns={:.1f} in_flight={:.1f}\n",
             std::max<std::size_t>(best[0].bytes, 1 << 20), reads.independent_ns, reads.chain_ns,
             reads.chain_ns / reads.independent_ns);
  return all_ok ? 0 : 1;  // 1: a layout took a known fingerprint for a new one, or the reverse
}
