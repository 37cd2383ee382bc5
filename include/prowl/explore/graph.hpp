// Graph: the explored state graph. Per state: its fingerprint, the parent edge on the shortest
// known path from the initial state, its depth on that path, and the set of its enabled actions
// not yet explored. Transitions are counted; their edges are kept only when asked (DOT/HTML
// reports). Fingerprint lookup is an open-addressing table of 4-byte slots (state id and a tag
// of the bits ids leave), so a state costs about 37 bytes with up to 64 actions, and states the
// threaded breadth-first search adds level by level (append_level(), set_state()) about 29: they
// keep no unexplored actions.
// Strategies read a Graph; only the Explorer writes it. Not thread-safe, except set_state() and
// TablePart as append_level() says.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "prowl/core/chunked_vector.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/core/huge_array.hpp"
#include "prowl/core/ids.hpp"
#include "prowl/world/state_tree.hpp"

namespace prowl {

class Graph final : public StateTree {
 public:
  explicit Graph(std::size_t num_actions);

  std::size_t num_actions() const { return num_actions_; }
  std::size_t num_states() const { return fps_.size(); }
  std::uint64_t num_transitions() const { return transitions_; }
  StateId initial() const { return 0; }

  // Adds the state with this fingerprint, reached from parent by action (kNoState and kNoAction
  // for the initial state), unless it is known. A known state whose new path is shorter takes the
  // new parent. Returns the state's id and whether it is new.
  std::pair<StateId, bool> add(const Fingerprint& fp, StateId parent, ActionId action);
  // The state with this fingerprint, or kNoState. Inline, so that every search's look-up loop
  // inlines it, not only those compiled in graph.cpp's unity batch (levels.cpp's was; ranks.cpp's
  // called it, about 3 % slower on one process).
  StateId find(const Fingerprint& fp) const {
    const std::uint32_t slot = slots_[slot_of(fp)];
    return slot == 0 ? kNoState : static_cast<StateId>((slot & id_mask_) - 1);
  }
  // Hints the CPU to load the table slot of fp.
  void prefetch(const Fingerprint& fp) const { __builtin_prefetch(&slots_[home(fp)]); }
  // After prefetch(): hints the CPU to load the stored fingerprint of the state in fp's slot.
  void prefetch_state(const Fingerprint& fp) const {
    const std::uint32_t slot = slots_[home(fp)];
    if (slot != 0) __builtin_prefetch(&fps_[(slot & id_mask_) - 1]);
  }

  // Counts one executed transition and, when edges are recorded, keeps it.
  void add_transition(StateId from, ActionId action, StateId to) {
    ++transitions_;
    if (record_edges_) edges_.push_back({from, action, to});
  }
  void record_edges(bool on) { record_edges_ = on; }
  const std::vector<Edge>& edges() const { return edges_; }

  // Level-synchronous building by several threads (the threaded breadth-first search,
  // src/explore/levels.cpp). append_level() adds n states of depth `depth` (not less than any
  // state's) at ids num_states() .. num_states() + n - 1, with no unexplored actions, and
  // fingerprints and parents that set_state() fills in (several threads at once, for different
  // states). They are then entered in the fingerprint table by parts, one TablePart per thread:
  // a part enters only the fingerprints part_of() gives it, and writes only its own range of
  // slots, so no slot is written by two threads and no write is atomic. When the table had to
  // grow, append_level() returns the number of states before it, which the parts enter again
  // (TablePart::enter_old); else 0. Nothing else may run meanwhile. REQUIRES: set_state() for
  // each new state before anything reads it (append_level() does not write them).
  std::size_t append_level(std::size_t n, std::uint32_t depth);
  // Writes state s's fingerprint, parent and parent action (not its table slot).
  void set_state(StateId s, const Fingerprint& fp, StateId parent, ActionId action);
  // The part of `parts` that enters fp: by the top bits of fp.lo, which also place it in the
  // table (home()), so that a part's fingerprints have their first slots in one range.
  static unsigned part_of(const Fingerprint& fp, unsigned parts) {
    return static_cast<unsigned>(((fp.lo >> 32) * parts) >> 32);
  }
  class TablePart;
  // Adds a state whose fingerprint is not in the graph, of depth `depth` (not less than any
  // state's), with no unexplored actions, reached by `action` from `parent`, which is not looked at
  // (in the search over several processes it is a state of another process's graph). Returns its
  // id.
  StateId append(const Fingerprint& fp, StateId parent, ActionId action, std::uint32_t depth);
  // Counts n executed transitions (without their edges).
  void count_transitions(std::uint64_t n) { transitions_ += n; }

  const Fingerprint& fingerprint(StateId s) const { return fps_[s]; }
  StateId parent(StateId s) const override { return parents_[s]; }
  ActionId parent_action(StateId s) const override {
    return narrow_actions_ ? narrow_to_action(actions16_[s]) : actions_[s];
  }
  std::uint32_t depth(StateId s) const override { return layered_ ? layer_of(s) : depths_[s]; }
  // The edges of the shortest known path from the initial state to s.
  std::vector<Pair> path_to(StateId s) const;

  // Enabled actions not yet explored.
  void set_enabled(StateId s, std::span<const ActionId> actions);
  bool is_unexplored(StateId s, ActionId a) const {
    return s < masked_ && (masks_[s * words_ + (a >> 6)] >> (a & 63)) & 1;
  }
  void mark_explored(StateId s, ActionId a);
  bool has_unexplored(StateId s) const;
  // Marks every unexplored action of s explored and appends them to out in increasing order.
  void take_unexplored(StateId s, std::vector<ActionId>& out);
  // The smallest unexplored action of s that is >= from, or kNoAction.
  ActionId next_unexplored(StateId s, ActionId from = 0) const;
  // Unexplored pairs over all states.
  std::uint64_t unexplored_pairs() const { return unexplored_; }

  // Bytes held by the graph's tables.
  std::size_t memory_bytes() const;

 private:
  // The table doubles when three quarters full (so it is 37.5 %-75 % full): it is rebuilt
  // from the stored fingerprints of the states in it (ids below `in_table`) after the old one is
  // freed, so growing never holds both.
  void grow(std::size_t in_table);
  // A new, empty table with room for every state, the old one freed first.
  void new_table();
  // Enters state s (its fingerprint stored) in the table.
  void insert(StateId s, const Fingerprint& fp);
  // Enters the states below `end` in the table, in one part.
  void fill(StateId end);
  // fp's slot, or the empty slot where it would go.
  std::size_t slot_of(const Fingerprint& fp) const {
    const std::uint32_t tag = tag_of(fp);
    std::size_t i = home(fp);
    for (;;) {
      const std::uint32_t slot = slots_[i];
      if (slot == 0) return i;
      if ((slot & ~id_mask_) == tag && fps_[(slot & id_mask_) - 1] == fp) return i;
      i = next_slot(i);
    }
  }
  // A fingerprint's first slot: its low word scaled to the table's size.
  std::size_t home(const Fingerprint& fp) const {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(fp.lo) * table_size_) >> 64);
  }
  std::size_t next_slot(std::size_t i) const { return i + 1 == table_size_ ? 0 : i + 1; }
  void push_action(ActionId a) {
    if (narrow_actions_) {
      actions16_.push_back(static_cast<std::uint16_t>(a));
    } else {
      actions_.push_back(a);
    }
  }
  static ActionId narrow_to_action(std::uint16_t a) { return a == 0xffff ? kNoAction : a; }
  // While states are added in order of non-decreasing depth and no depth ever shrinks (always so
  // under BFS), depths are kept as layers: layer_start_[d] is the first state of depth d. The
  // first state out of order turns them into one depth per state (depths_).
  std::uint32_t layer_of(StateId s) const;
  void unlayer();

  std::size_t num_actions_;
  std::size_t words_;
  detail::ChunkedVector<Fingerprint, 17> fps_;  // 2 MiB chunks: looked up at random
  detail::ChunkedVector<StateId> parents_;
  // Parent actions: two bytes each while the model has fewer than 65535 actions (0xffff is
  // kNoAction), else four.
  bool narrow_actions_;
  detail::ChunkedVector<ActionId> actions_;
  detail::ChunkedVector<std::uint16_t> actions16_;
  detail::ChunkedVector<std::uint32_t> depths_;  // when not layered_
  bool layered_ = true;
  std::vector<StateId> layer_start_;
  mutable StateId layer_cache_state_ = kNoState;  // the last lookup: states come in runs
  mutable std::uint32_t layer_cache_depth_ = 0;
  detail::ChunkedVector<std::uint64_t> masks_;
  std::size_t masked_ = 0;  // states below this have masks; append_level()'s have none
  // 0 empty; else the fingerprint's tag | (id + 1), where id_bits_ is the width of the table's
  // size: four bytes a slot, the tag as wide as ids leave. The tag is the top 32 - id_bits_ bits
  // of fp.lo's low word: home() places by fp.lo's high bits (so do part_of()'s parts), and ranks
  // share states out by fp.hi's.
  detail::HugeArray<std::uint32_t> slots_;
  std::size_t table_size_;
  unsigned id_bits_ = 32;
  std::uint32_t id_mask_ = 0xffffffffu;
  void size_ids(std::size_t table_size);
  std::uint32_t tag_of(const Fingerprint& fp) const {
    return static_cast<std::uint32_t>(fp.lo) & ~id_mask_;
  }
  std::uint64_t transitions_ = 0;
  std::uint64_t unexplored_ = 0;
  bool record_edges_ = false;
  std::vector<Edge> edges_;
};

// One thread's share of entering states in the table (Graph::append_level()). Slot loads are
// asked for (prefetched) kAhead states before they are written. A state whose probe runs past the
// part's slots (a full run at the end of its range) is kept aside: once every part is done, one
// thread enters those of every part with enter_aside().
class Graph::TablePart {
 public:
  TablePart(Graph& graph, unsigned part, unsigned parts);
  bool owns(const Fingerprint& fp) const { return part_of(fp, parts_) == part_; }
  // Enters state s, whose fingerprint fp the part owns.
  void enter(StateId s, const Fingerprint& fp);
  // Enters the states below `end` that the part owns: each part reads every fingerprint.
  void enter_old(StateId end);
  // Enters the states still waiting for their slots' loads.
  void finish();
  // After every part's finish(), by one thread: enters the states kept aside.
  void enter_aside();

 private:
  static constexpr unsigned kAhead = 16;
  struct Pending {
    Fingerprint fp;
    StateId s;
  };
  void place(const Pending& p);

  Graph& graph_;
  unsigned part_;
  unsigned parts_;
  std::size_t end_;  // the first slot past the part's range
  Pending ring_[kAhead];
  unsigned next_ = 0;  // ring_[next_] is the oldest once the ring is full
  unsigned count_ = 0;
  std::vector<Pending> aside_;
};

}  // namespace prowl
