#include "prowl/explore/graph.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

#include "prowl/core/status.hpp"

namespace prowl {

namespace {
// One 4 KiB page of slots: the table doubles from it (new_table()), so it is always whole pages.
constexpr std::size_t kInitialSlots = 1024;
}  // namespace

Graph::Graph(std::size_t num_actions)
    : num_actions_(num_actions),
      words_(std::max<std::size_t>(1, (num_actions + 63) / 64)),
      narrow_actions_(num_actions < 0xffff),
      slots_(kInitialSlots),
      table_size_(kInitialSlots) {
  size_ids(kInitialSlots);
}

void Graph::size_ids(std::size_t table_size) {
  // Ids below the table's size (it is never more than three quarters full): id + 1 takes the
  // low bits of a slot, and the fingerprint's top bits fill the rest as its tag.
  id_bits_ = std::min<unsigned>(32, static_cast<unsigned>(std::bit_width(table_size)));
  id_mask_ = id_bits_ == 32 ? 0xffffffffu : (std::uint32_t{1} << id_bits_) - 1;
}

std::pair<StateId, bool> Graph::add(const Fingerprint& fp, StateId parent, ActionId action) {
  const std::size_t i = slot_of(fp);
  const std::uint32_t slot = slots_[i];
  const std::uint32_t depth = parent == kNoState ? 0 : this->depth(parent) + 1;
  if (slot != 0) {
    const auto id = static_cast<StateId>((slot & id_mask_) - 1);
    // Layered, depth(id) > depth exactly when id lies beyond the first state of layer depth+1.
    const bool deeper = layered_ ? depth + 1 < layer_start_.size() && id >= layer_start_[depth + 1]
                                 : depth < depths_[id];
    if (parent != kNoState && deeper && parent != id) {
      if (layered_) unlayer();
      parents_[id] = parent;
      if (narrow_actions_) {
        actions16_[id] = static_cast<std::uint16_t>(action);
      } else {
        actions_[id] = action;
      }
      depths_[id] = depth;
    }
    return {id, false};
  }
  PROWL_CHECK(fps_.size() < kNoState - 1, "the graph is full (2^32 states)");
  PROWL_CHECK(masked_ == fps_.size(), "Graph::add() after append_level()");
  if (layered_ && depth + 1 < layer_start_.size()) unlayer();  // a shallower state came late
  const auto id = static_cast<StateId>(fps_.size());
  fps_.push_back(fp);
  parents_.push_back(parent);
  push_action(action);
  if (layered_) {
    if (depth == layer_start_.size()) layer_start_.push_back(id);
  } else {
    depths_.push_back(depth);
  }
  for (std::size_t w = 0; w < words_; ++w) masks_.push_back(0);
  ++masked_;
  slots_[i] = tag_of(fp) | (id + 1);
  if (fps_.size() * 4 >= table_size_ * 3) grow(fps_.size());
  return {id, true};
}

std::size_t Graph::append_level(std::size_t n, std::uint32_t depth) {
  if (n == 0) return 0;
  PROWL_CHECK(fps_.size() + n < kNoState - 1, "the graph is full (2^32 states)");
  if (!layered_ || depth + 1 < layer_start_.size()) {
    if (layered_) unlayer();
    depths_.resize(fps_.size() + n, depth);
  } else {
    while (layer_start_.size() <= depth) layer_start_.push_back(static_cast<StateId>(fps_.size()));
  }
  const std::size_t in_table = fps_.size();
  const std::size_t total = in_table + n;
  // Not written here: set_state() writes each, on the threads that add the states.
  fps_.extend(total);
  parents_.extend(total);
  if (narrow_actions_) {
    actions16_.extend(total);
  } else {
    actions_.extend(total);
  }
  if (total * 4 < table_size_ * 3) return 0;
  new_table();
  return in_table;
}

void Graph::set_state(StateId s, const Fingerprint& fp, StateId parent, ActionId action) {
  fps_[s] = fp;
  parents_[s] = parent;
  if (narrow_actions_) {
    actions16_[s] = static_cast<std::uint16_t>(action);
  } else {
    actions_[s] = action;
  }
}

StateId Graph::append(const Fingerprint& fp, StateId parent, ActionId action, std::uint32_t depth) {
  const auto id = static_cast<StateId>(fps_.size());
  const std::size_t again = append_level(1, depth);
  if (again > 0) fill(again);
  set_state(id, fp, parent, action);
  insert(id, fp);
  return id;
}

void Graph::insert(StateId s, const Fingerprint& fp) {
  std::size_t i = home(fp);
  while (slots_[i] != 0) i = next_slot(i);
  slots_[i] = tag_of(fp) | (s + 1);
}

void Graph::fill(StateId end) {
  TablePart part(*this, 0, 1);
  part.enter_old(end);
  part.finish();
  part.enter_aside();
}

Graph::TablePart::TablePart(Graph& graph, unsigned part, unsigned parts)
    : graph_(graph), part_(part), parts_(parts) {
  // The first slot of part + 1: the home of the least fingerprint that part_of() gives it.
  const std::uint64_t top = ((std::uint64_t{part + 1} << 32) + parts - 1) / parts;
  end_ = part + 1 == parts ? graph.table_size_ : graph.home(Fingerprint{top << 32, 0});
}

void Graph::TablePart::enter(StateId s, const Fingerprint& fp) {
  assert(owns(fp));
  __builtin_prefetch(&graph_.slots_[graph_.home(fp)], 1);
  if (count_ == kAhead) {
    place(ring_[next_]);
    ring_[next_] = {fp, s};
    next_ = (next_ + 1) % kAhead;
    return;
  }
  ring_[(next_ + count_++) % kAhead] = {fp, s};
}

void Graph::TablePart::enter_old(StateId end) {
  // A block's own states are listed first without a branch: with several parts, whether a state
  // is this part's is a coin toss that a branch would mispredict half the time.
  constexpr std::size_t kBlock = 256;
  StateId own[kBlock];
  for (std::size_t first = 0; first < end; first += kBlock) {
    const auto last = static_cast<StateId>(std::min<std::size_t>(end, first + kBlock));
    unsigned n = 0;
    for (auto s = static_cast<StateId>(first); s < last; ++s) {
      own[n] = s;
      n += owns(graph_.fps_[s]);
    }
    for (unsigned i = 0; i < n; ++i) enter(own[i], graph_.fps_[own[i]]);
  }
}

void Graph::TablePart::finish() {
  for (; count_ > 0; --count_, next_ = (next_ + 1) % kAhead) place(ring_[next_]);
  next_ = 0;
}

void Graph::TablePart::place(const Pending& p) {
  // Slots from the home on, up to the part's end: the home is never before the part's range.
  for (std::size_t i = graph_.home(p.fp); i < end_; ++i) {
    if (graph_.slots_[i] == 0) {
      graph_.slots_[i] = graph_.tag_of(p.fp) | (p.s + 1);
      return;
    }
  }
  aside_.push_back(p);
}

void Graph::TablePart::enter_aside() {
  for (const Pending& p : aside_) graph_.insert(p.s, p.fp);
  aside_.clear();
}

std::uint32_t Graph::layer_of(StateId s) const {
  if (s == layer_cache_state_) return layer_cache_depth_;
  // The last layer whose first state is <= s.
  const auto it = std::upper_bound(layer_start_.begin(), layer_start_.end(), s);
  layer_cache_state_ = s;
  layer_cache_depth_ = static_cast<std::uint32_t>(it - layer_start_.begin()) - 1;
  return layer_cache_depth_;
}

void Graph::unlayer() {
  for (std::size_t d = 0; d < layer_start_.size(); ++d) {
    const std::size_t end = d + 1 < layer_start_.size() ? layer_start_[d + 1] : fps_.size();
    for (std::size_t s = layer_start_[d]; s < end; ++s) {
      depths_.push_back(static_cast<std::uint32_t>(d));
    }
  }
  layered_ = false;
  layer_start_ = {};
}

void Graph::new_table() {
  // Room for every state the graph holds (appended ones included) at most three quarters full.
  // Doubling, not growing by half, enters each state again about once instead of twice in all:
  // 6-9 % less time for about 1 byte per state more (bench/README.md, "The fingerprint table
  // doubles").
  std::size_t size = table_size_;
  while (fps_.size() * 4 >= size * 3) size *= 2;
  slots_ = {};  // freed before the new table is touched
  slots_ = detail::HugeArray<std::uint32_t>(size);
  table_size_ = size;
  size_ids(size);
}

void Graph::grow(std::size_t in_table) {
  new_table();
  fill(static_cast<StateId>(in_table));
}

std::vector<Pair> Graph::path_to(StateId s) const {
  std::vector<Pair> path;
  path.reserve(depth(s));
  while (parents_[s] != kNoState) {
    path.push_back({parents_[s], parent_action(s)});
    s = parents_[s];
  }
  std::reverse(path.begin(), path.end());
  return path;
}

void Graph::set_enabled(StateId s, std::span<const ActionId> actions) {
  PROWL_CHECK(s < masked_, "Graph::set_enabled() on a state append_level() added");
  const std::size_t base = static_cast<std::size_t>(s) * words_;
  if (words_ == 1) {  // up to 64 actions: build the word, then store it once
    std::uint64_t& word = masks_[base];
    if (word != 0) unexplored_ -= static_cast<std::uint64_t>(std::popcount(word));
    std::uint64_t bits = 0;
    for (ActionId a : actions) {
      const std::uint64_t bit = std::uint64_t{1} << a;
      unexplored_ += (bits & bit) == 0;
      bits |= bit;
    }
    word = bits;
    return;
  }
  // std::popcount is a library call on the baseline x86-64 target: count only non-zero words.
  for (std::size_t w = 0; w < words_; ++w) {
    if (masks_[base + w] == 0) continue;
    unexplored_ -= std::popcount(masks_[base + w]);
    masks_[base + w] = 0;
  }
  for (ActionId a : actions) {
    std::uint64_t& word = masks_[base + (a >> 6)];
    const std::uint64_t bit = std::uint64_t{1} << (a & 63);
    if (!(word & bit)) {
      word |= bit;
      ++unexplored_;
    }
  }
}

void Graph::mark_explored(StateId s, ActionId a) {
  if (s >= masked_) return;
  std::uint64_t& word = masks_[static_cast<std::size_t>(s) * words_ + (a >> 6)];
  const std::uint64_t bit = std::uint64_t{1} << (a & 63);
  if (word & bit) {
    word &= ~bit;
    --unexplored_;
  }
}

bool Graph::has_unexplored(StateId s) const {
  if (s >= masked_) return false;
  const std::size_t base = static_cast<std::size_t>(s) * words_;
  for (std::size_t w = 0; w < words_; ++w) {
    if (masks_[base + w] != 0) return true;
  }
  return false;
}

void Graph::take_unexplored(StateId s, std::vector<ActionId>& out) {
  if (s >= masked_) return;
  const std::size_t base = static_cast<std::size_t>(s) * words_;
  for (std::size_t w = 0; w < words_; ++w) {
    std::uint64_t word = masks_[base + w];
    if (word == 0) continue;
    masks_[base + w] = 0;
    for (; word != 0; word &= word - 1) {
      out.push_back(static_cast<ActionId>(w * 64 + std::countr_zero(word)));
      --unexplored_;
    }
  }
}

ActionId Graph::next_unexplored(StateId s, ActionId from) const {
  if (s >= masked_) return kNoAction;
  const std::size_t base = static_cast<std::size_t>(s) * words_;
  for (std::size_t w = from >> 6; w < words_; ++w) {
    std::uint64_t word = masks_[base + w];
    if (w == (from >> 6)) word &= ~std::uint64_t{0} << (from & 63);
    if (word != 0) return static_cast<ActionId>(w * 64 + std::countr_zero(word));
  }
  return kNoAction;
}

std::size_t Graph::memory_bytes() const {
  return fps_.memory_bytes() + parents_.memory_bytes() + actions_.memory_bytes() +
         actions16_.memory_bytes() + depths_.memory_bytes() +
         layer_start_.capacity() * sizeof(StateId) + masks_.memory_bytes() + slots_.mapped_bytes() +
         edges_.capacity() * sizeof(Edge);
}

}  // namespace prowl
