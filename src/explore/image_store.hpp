// ImageStore: the explorer's own store of states' byte images, for the typed byte-image path
// (one system that is one byte image, every action typed, nothing else tracked). There the
// context never changes, so a state's snapshot is its bytes alone, kept here rather than in the
// World: slot k holds `size` bytes at k * size, and freed slots are reused. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "prowl/core/chunked_vector.hpp"
#include "prowl/core/ids.hpp"

namespace prowl::detail {

class ImageStore {
 public:
  // REQUIRES: before the first keep().
  void set_size(std::size_t size) { size_ = size; }

  // s's bytes, or nullptr when s has none (never kept, or dropped).
  const unsigned char* bytes(StateId s) const {
    if (s >= slot_of_.size() || slot_of_[s] == kNoSlot) return nullptr;
    return bytes_.data() + std::size_t{slot_of_[s]} * size_;
  }
  // Keeps `image` (size bytes) as state t's.
  void keep(StateId t, const unsigned char* image) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(bytes_.size() / size_);
      bytes_.resize(bytes_.size() + size_);
    }
    std::memcpy(bytes_.data() + std::size_t{slot} * size_, image, size_);
    slot_of_.resize(std::max<std::size_t>(slot_of_.size(), t + 1), kNoSlot);
    slot_of_[t] = slot;
  }
  // Frees s's bytes: nothing will run from s again.
  void drop(StateId s) {
    if (s >= slot_of_.size() || slot_of_[s] == kNoSlot) return;
    free_.push_back(slot_of_[s]);
    slot_of_[s] = kNoSlot;
  }

 private:
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::size_t size_ = 0;
  std::vector<unsigned char> bytes_;
  std::vector<std::uint32_t> free_;
  ChunkedVector<std::uint32_t> slot_of_;  // per state; kNoSlot once dropped
};

}  // namespace prowl::detail
