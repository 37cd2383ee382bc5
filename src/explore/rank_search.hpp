// Explorer::Impl::RankSearch: the breadth-first search over several processes (ranks.cpp, with
// the totals and findings at its end in ranks_findings.cpp). Private to prowl::explore.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "explorer_impl.hpp"
#include "level_bytes.hpp"
#include "prowl/core/chunked_vector.hpp"
#include "prowl/explore/ranks.hpp"
#include "step_scratch.hpp"

namespace prowl {

namespace detail::ranks {

// What a buffer's first word says about its sender.
enum Flag : std::uint64_t { kInterrupted = 1, kTimeUp = 2, kFound = 4, kMemory = 8 };
// A buffer's header: the sender's flags, then its counts for the progress line (the states it
// owns, its transitions, steps and findings).
struct Header {
  std::uint64_t flags = 0;
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint64_t steps = 0;
  std::uint64_t findings = 0;
};
constexpr std::size_t kHeader = sizeof(Header);

// A successor record: fingerprint, source (its id at the sender), action, flags (kViolates: the
// source fails after-invariants, whose mask follows), then the state's bytes.
constexpr std::size_t kRecordHead = sizeof(Fingerprint) + 4 + 2 + 2;
constexpr std::uint16_t kViolates = 1;
// A state's parent's rank is kept in 16 bits.
constexpr unsigned kMaxRanks = 65536;
// A round's outgoing records stay within about this many bytes.
constexpr std::size_t kRoundBytes = std::size_t{64} << 20;

template <class T>
void put(Ranks::Buffer& b, const T& v) {
  const std::size_t at = b.size();
  b.resize(at + sizeof(T));
  std::memcpy(b.data() + at, &v, sizeof(T));
}

template <class T>
T get(const unsigned char*& p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}

// A successor about to arrive at its owner (RankSearch::arrive()).
struct Arrival {
  Fingerprint fp;
  unsigned from;
  StateId source;
  ActionId action;
  std::uint64_t mask;
  const unsigned char* bytes;
};
// Arrivals wait in batches of this many while their table slots are fetched.
constexpr std::size_t kBatch = 32;

// A finding as a rank met it: the step (source_rank, source, action) broke it.
struct Found {
  std::uint32_t length = 0;
  std::uint32_t source_rank = 0;
  StateId source = kNoState;
  ActionId action = kNoAction;
  Severity severity = Severity::kHigh;
  std::string message;
};
using FoundKey = std::tuple<int, std::size_t, ActionId>;

// The invariants that fail in a state, and their messages.
struct Violations {
  std::uint64_t mask = 0;
  std::vector<std::pair<std::size_t, std::string>> failures;
};

// A successor record as read.
struct Record {
  Fingerprint fp;
  StateId source;
  ActionId action;
  std::uint64_t mask;  // the after-invariants that fail in the source
  const unsigned char* bytes;
};

}  // namespace detail::ranks

using namespace detail::ranks;  // NOLINT: the search's own vocabulary

struct Explorer::Impl::RankSearch {
  Impl& x;
  Graph& graph;
  Ranks& ranks;
  unsigned me;
  unsigned n;
  std::size_t size;
  FingerprintFn hash;
  unsigned char* live = nullptr;
  std::vector<unsigned char> root;
  unsigned root_owner = 0;

  detail::LevelBytes::Pool blocks;
  detail::LevelBytes frontier;
  detail::LevelBytes next;
  StateId level_first = 0;
  StateId next_first = 0;
  std::uint32_t depth = 0;
  std::vector<ActionId> enabled;
  std::vector<Arrival> batch;
  std::vector<unsigned char> own_bytes;  // the bytes of the batch's successors of this rank
  struct Step {                          // a step of expand(), held while the next one runs
    StateId from = kNoState;
    ActionId action = kNoAction;
    std::uint64_t mask = 0;  // from's after-invariants
  };
  std::optional<detail::StepScratch<Step>> scratch;  // where expand() runs the steps
  std::vector<Ranks::Buffer> out[2];
  std::vector<Ranks::Buffer> in;
  std::vector<std::size_t> used;  // bytes written to each buffer of the round (its size: room)
  bool in_flight = false;
  std::uint64_t flags = 0;   // every rank's, after the last exchange
  double next_progress = 0;  // when rank 0 shows the progress next (Options::on_progress)
  detail::ChunkedVector<std::uint16_t> parent_rank;
  std::unordered_map<StateId, Violations> violating;
  std::map<FoundKey, Found> found;
  std::uint64_t level_states = 0;

  RankSearch(Impl& impl, Ranks& r)
      : x(impl),
        graph(*impl.graph),
        ranks(r),
        me(r.rank()),
        n(r.size()),
        size(impl.world->system(0).byte_image().size),
        frontier(size, blocks),
        next(size, blocks) {}

  unsigned owner(const Fingerprint& fp) const {
    return static_cast<unsigned>(((fp.hi >> 32) * n) >> 32);
  }
  // A round's states: 4,096, fewer for states of many bytes or actions. Each rank's own; the
  // ranks agree on the number of rounds of a level (search()). Up to 16,384 on large graphs
  // (fewer exchanges) was slower (bench/README.md, "MPI"): a round's records to the other rank
  // were then about 3 MB on counters 1e7, more than a core's 2 MB L2 cache. Fewer (2,048 or
  // 1,024) were no faster ("The search over processes: handing a successor on").
  std::size_t round_states() const {
    const std::size_t record = kRecordHead + sizeof(std::uint64_t) + size;
    const std::size_t fits =
        kRoundBytes / (record * std::max<std::size_t>(1, x.model.actions().size()));
    return std::min<std::size_t>(4096, std::max<std::size_t>(fits, 16));
  }
  // The states this rank owns: the root is in every rank's graph, counted by its owner.
  std::uint64_t owned_states() const { return graph.num_states() - (me == root_owner ? 0 : 1); }
  bool out_of_time(detail::Clock::time_point start) const {
    return x.options.time_limit > 0 && detail::seconds_since(start) >= x.options.time_limit;
  }
  std::uint64_t mask_of(StateId s) const {
    if (violating.empty()) return 0;
    const auto it = violating.find(s);
    return it == violating.end() ? 0 : it->second.mask;
  }

  void start();
  Status search(detail::Clock::time_point start, Termination& termination);
  // A level's rounds; false when the search must stop.
  Result<bool> level(std::uint64_t rounds, detail::Clock::time_point start);
  // Expands frontier states first .. end - 1, or fewer when the run must stop.
  void expand(StateId first, StateId end, std::vector<Ranks::Buffer>& buffers,
              detail::Clock::time_point start);
  void error(StateId s, ActionId a, std::uint64_t mask, const unsigned char* src,
             std::vector<Ranks::Buffer>& buffers);
  // Step (s, a) reached `state` (its bytes), whose fingerprint is fp: to its owner.
  // fp by value, in registers: by reference, the hash's two 8-byte halves were stored and then
  // read as one 16-byte load, which waits for the stores (bench/README.md, "The search over
  // processes: handing a successor on").
  void send(Fingerprint fp, StateId s, ActionId a, std::uint64_t mask, const unsigned char* state,
            std::vector<Ranks::Buffer>& buffers);
  Header local_header(detail::Clock::time_point start);
  // Rank 0's progress line, from every rank's header of the last exchange, when it is due.
  void show_progress(detail::Clock::time_point start);
  Status exchange(std::vector<Ranks::Buffer>& buffers);
  Status finish(detail::Clock::time_point start);
  void take();
  // Reads the record at p and moves p past it.
  Record read_record(const unsigned char*& p) const {
    Record r;
    r.fp = get<Fingerprint>(p);
    r.source = get<StateId>(p);
    r.action = get<std::uint16_t>(p);
    r.mask = get<std::uint16_t>(p) & kViolates ? get<std::uint64_t>(p) : 0;
    r.bytes = p;
    p += size;
    return r;
  }
  // f(from, record) for every record received, in rank order and each rank's order.
  template <class F>
  void each_record(F&& f) const {
    for (unsigned from = 0; from < n; ++from) {
      const Ranks::Buffer& b = in[from];
      for (const unsigned char* p = b.data() + kHeader; p < b.data() + b.size();) {
        f(from, read_record(p));
      }
    }
  }
  // Queues an arrival, and lets the batch arrive once full; flush() lets it arrive now.
  // Writes the arrival's fields in the batch one by one (fp by value, as send()): an Arrival built
  // first and copied was read back in 16-byte loads across its narrower fields' stores, each a
  // stall.
  void queue(Fingerprint fp, unsigned from, StateId source, ActionId action, std::uint64_t mask,
             const unsigned char* bytes);
  void flush();
  // Step (s, a) of rank `from` reached fp, a state this rank owns: a known one's findings, or a
  // new state (its bytes `bytes`) entered in the graph and the next level, and checked.
  void arrive(const Fingerprint& fp, unsigned from, StateId s, ActionId a,
              std::uint64_t source_mask, const unsigned char* bytes);
  void known(StateId t, unsigned from, StateId s, ActionId a, std::uint64_t mask);
  void note(FoundKey key, Found f);
  Status totals();
  Status gather_findings();
  Result<std::vector<TraceStep>> path(unsigned rank, StateId s, ActionId a);
};

}  // namespace prowl
