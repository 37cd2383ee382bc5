// LevelBytes: the bytes of the states of one breadth-first level, for the threaded search
// (levels.cpp). Private to the explorer.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace prowl::detail {

// A level's states' bytes by offset in the level, in blocks of at most 4,096 states and 256 KiB
// (at least one state) that never move (growing copies nothing). Blocks come from a pool the
// levels share and go back to it as soon as their states are expanded, so the level being found
// reuses the memory of the level being expanded: both together hold little more than the larger
// of the two.
class LevelBytes {
 public:
  using Pool = std::vector<std::unique_ptr<unsigned char[]>>;

  LevelBytes(std::size_t size, Pool& pool) : size_(size), pool_(&pool) {
    while (bits_ > 0 && (size_ << bits_) > (std::size_t{1} << 18)) --bits_;
  }
  // Room for n more states.
  void grow(std::size_t n) {
    count_ += n;
    while (blocks_.size() << bits_ < count_) {
      if (pool_->empty()) {
        blocks_.push_back(std::make_unique_for_overwrite<unsigned char[]>(size_ << bits_));
      } else {
        blocks_.push_back(std::move(pool_->back()));
        pool_->pop_back();
      }
    }
  }
  // Gives back the blocks that hold only states below `offset`.
  void release_below(std::size_t offset) {
    for (; released_ < blocks_.size() && (released_ + 1) << bits_ <= offset; ++released_) {
      pool_->push_back(std::move(blocks_[released_]));
    }
  }
  // Gives back every block: no states.
  void clear() {
    release_below(blocks_.size() << bits_);
    blocks_.clear();
    count_ = 0;
    released_ = 0;
  }
  void swap(LevelBytes& other) noexcept {
    std::swap(count_, other.count_);
    std::swap(released_, other.released_);
    blocks_.swap(other.blocks_);
  }
  unsigned char* at(std::size_t offset) const {
    return blocks_[offset >> bits_].get() + (offset & ((std::size_t{1} << bits_) - 1)) * size_;
  }

 private:
  unsigned bits_ = 12;  // log2 of the states of a block: 4,096, fewer for states over 64 bytes
  std::size_t size_;
  Pool* pool_;
  std::size_t count_ = 0;
  std::size_t released_ = 0;  // blocks below this were given back
  std::vector<std::unique_ptr<unsigned char[]>> blocks_;
};

}  // namespace prowl::detail
