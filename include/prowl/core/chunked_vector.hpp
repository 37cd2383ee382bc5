// ChunkedVector<T>: a growable array stored in fixed-size chunks, so that growing never copies or
// moves existing elements (no 2x peak while reallocating, stable references). For the per-state
// tables of the explored graph. Chunks are HugeArrays: a chunk of 2 MiB or more (kChunkBits chosen
// for it) is backed by transparent huge pages where the kernel allows. Not thread-safe.
#pragma once

#include <cstddef>
#include <vector>

#include "prowl/core/huge_array.hpp"

namespace prowl::detail {

template <class T, unsigned kChunkBits = 16>
class ChunkedVector {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << kChunkBits;

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }

  void push_back(const T& value) {
    if ((size_ & (kChunk - 1)) == 0 && (size_ >> kChunkBits) == chunks_.size()) {
      chunks_.emplace_back(kChunk);
    }
    (*this)[size_++] = value;
  }
  // Grows to n elements, new ones set to value.
  void resize(std::size_t n, const T& value) {
    while (size_ < n) push_back(value);
    size_ = n;
  }
  // Grows to n elements without writing them: the caller writes each new element before reading
  // it (a fresh chunk reads as zero bytes; one left by resize() to fewer holds its old values).
  // Spares the pass over new memory that resize() makes, and leaves its first touch (the page
  // faults and the zeroing of fresh pages) to whoever writes the elements.
  void extend(std::size_t n) {
    while (chunks_.size() * kChunk < n) chunks_.emplace_back(kChunk);
    if (n > size_) size_ = n;
  }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }
  std::size_t memory_bytes() const { return chunks_.size() * kChunk * sizeof(T); }

 private:
  std::vector<HugeArray<T>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace prowl::detail
