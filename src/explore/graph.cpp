#include "prowl/explore/graph.hpp"

#include <algorithm>
#include <bit>

#include "prowl/core/status.hpp"

namespace prowl {

namespace {
constexpr std::size_t kInitialSlots = 1024;
inline std::uint64_t tag_of(const Fingerprint& fp) { return fp.hi >> 32; }
}  // namespace

Graph::Graph(std::size_t num_actions)
    : num_actions_(num_actions),
      words_(std::max<std::size_t>(1, (num_actions + 63) / 64)),
      slots_(kInitialSlots),
      mask_(kInitialSlots - 1) {}

std::size_t Graph::slot_of(const Fingerprint& fp) const {
  const std::uint64_t tag = tag_of(fp);
  std::size_t i = fp.lo & mask_;
  for (;;) {
    const std::uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if ((slot >> 32) == tag && fps_[(slot & 0xffffffffu) - 1] == fp) return i;
    i = (i + 1) & mask_;
  }
}

StateId Graph::find(const Fingerprint& fp) const {
  const std::uint64_t slot = slots_[slot_of(fp)];
  return slot == 0 ? kNoState : static_cast<StateId>((slot & 0xffffffffu) - 1);
}

std::pair<StateId, bool> Graph::add(const Fingerprint& fp, StateId parent, ActionId action) {
  const std::size_t i = slot_of(fp);
  const std::uint64_t slot = slots_[i];
  const std::uint32_t depth = parent == kNoState ? 0 : this->depth(parent) + 1;
  if (slot != 0) {
    const auto id = static_cast<StateId>((slot & 0xffffffffu) - 1);
    // Layered, depth(id) > depth exactly when id lies beyond the first state of layer depth+1.
    const bool deeper = layered_ ? depth + 1 < layer_start_.size() && id >= layer_start_[depth + 1]
                                 : depth < depths_[id];
    if (parent != kNoState && deeper && parent != id) {
      if (layered_) unlayer();
      parents_[id] = parent;
      actions_[id] = action;
      depths_[id] = depth;
    }
    return {id, false};
  }
  PROWL_CHECK(fps_.size() < kNoState - 1, "the graph is full (2^32 states)");
  if (layered_ && depth + 1 < layer_start_.size()) unlayer();  // a shallower state came late
  const auto id = static_cast<StateId>(fps_.size());
  fps_.push_back(fp);
  parents_.push_back(parent);
  actions_.push_back(action);
  if (layered_) {
    if (depth == layer_start_.size()) layer_start_.push_back(id);
  } else {
    depths_.push_back(depth);
  }
  for (std::size_t w = 0; w < words_; ++w) masks_.push_back(0);
  slots_[i] = (tag_of(fp) << 32) | (static_cast<std::uint64_t>(id) + 1);
  if (fps_.size() * 4 >= slots_.size() * 3) grow();
  return {id, true};
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

void Graph::grow() {
  detail::HugeArray<std::uint64_t> old = std::move(slots_);
  slots_ = detail::HugeArray<std::uint64_t>(old.size() * 2);
  mask_ = slots_.size() - 1;
  for (std::uint64_t slot : old) {
    if (slot == 0) continue;
    const Fingerprint& fp = fps_[(slot & 0xffffffffu) - 1];
    std::size_t i = fp.lo & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = slot;
  }
}

std::vector<Pair> Graph::path_to(StateId s) const {
  std::vector<Pair> path;
  path.reserve(depth(s));
  while (parents_[s] != kNoState) {
    path.push_back({parents_[s], actions_[s]});
    s = parents_[s];
  }
  std::reverse(path.begin(), path.end());
  return path;
}

void Graph::set_enabled(StateId s, std::span<const ActionId> actions) {
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
  std::uint64_t& word = masks_[static_cast<std::size_t>(s) * words_ + (a >> 6)];
  const std::uint64_t bit = std::uint64_t{1} << (a & 63);
  if (word & bit) {
    word &= ~bit;
    --unexplored_;
  }
}

bool Graph::has_unexplored(StateId s) const {
  const std::size_t base = static_cast<std::size_t>(s) * words_;
  for (std::size_t w = 0; w < words_; ++w) {
    if (masks_[base + w] != 0) return true;
  }
  return false;
}

void Graph::take_unexplored(StateId s, std::vector<ActionId>& out) {
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
         depths_.memory_bytes() + layer_start_.capacity() * sizeof(StateId) +
         masks_.memory_bytes() + slots_.mapped_bytes() + edges_.capacity() * sizeof(Edge);
}

}  // namespace prowl
