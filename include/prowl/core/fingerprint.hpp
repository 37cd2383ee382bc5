// Fingerprint: the 128-bit identity of a state, hashed from everything the systems observe.
// Hasher builds one incrementally. Both are plain values; a Hasher is not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace prowl {

struct Fingerprint {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
  // 32 lowercase hex digits, hi then lo.
  std::string hex() const;
};

// A streaming 128-bit hash over 16-byte blocks with two 64-bit lanes (Murmur3-style block mixing,
// fmix64 finish). The same sequence of bytes gives the same fingerprint however it is split
// across add calls.
class Hasher {
 public:
  explicit Hasher(std::uint64_t seed = 0) : a_(seed ^ kSeedA), b_(seed ^ kSeedB) {}

  void add_bytes(const void* data, std::size_t size) {
    if (fill_ == 0 && size <= 64) {
      add_unbuffered(static_cast<const unsigned char*>(data), size);
      return;
    }
    add_bytes_slow(data, size);
  }
  // add_bytes for a size known at compile time (an object's bytes): fully inlined.
  template <std::size_t N>
  void add_fixed(const void* data) {
    if (fill_ == 0) {
      add_unbuffered(static_cast<const unsigned char*>(data), N);
      return;
    }
    add_bytes_slow(data, N);
  }
  void add_u64(std::uint64_t v) { add_bytes(&v, sizeof v); }
  void add(std::string_view s) {
    add_u64(s.size());
    add_bytes(s.data(), s.size());
  }
  template <class T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void add(T v) { add_bytes(&v, sizeof v); }

  Fingerprint finish() const;

 private:
  static constexpr std::uint64_t kSeedA = 0x243f6a8885a308d3ULL;
  static constexpr std::uint64_t kSeedB = 0x13198a2e03707344ULL;
  static constexpr std::uint64_t kC1 = 0x87c37b91114253d5ULL;
  static constexpr std::uint64_t kC2 = 0x4cf5ad432745937fULL;
  static std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

  void add_bytes_slow(const void* data, std::size_t size);
  // REQUIRES: nothing buffered. Bytes past fill_ in buffer_ stay zero, so finish() can read the
  // tail as two whole words.
  void add_unbuffered(const unsigned char* p, std::size_t size) {
    length_ += size;
    while (size >= 16) {
      std::uint64_t k1, k2;
      std::memcpy(&k1, p, 8);
      std::memcpy(&k2, p + 8, 8);
      block(k1, k2);
      p += 16;
      size -= 16;
    }
    for (std::size_t i = 0; i < size; ++i) buffer_[i] = p[i];
    fill_ = static_cast<unsigned>(size);
  }
  // One 16-byte block: each word goes to its lane, and each lane folds in the other so that every
  // input bit reaches both halves of the result.
  void block(std::uint64_t k1, std::uint64_t k2) {
    k1 *= kC1;
    k1 = rotl(k1, 31) * kC2;
    a_ ^= k1;
    a_ = rotl(a_, 27) + b_;
    a_ = a_ * 5 + 0x52dce729;
    k2 *= kC2;
    k2 = rotl(k2, 33) * kC1;
    b_ ^= k2;
    b_ = rotl(b_, 31) + a_;
    b_ = b_ * 5 + 0x38495ab5;
  }

  std::uint64_t a_;
  std::uint64_t b_;
  std::uint64_t length_ = 0;  // bytes added so far
  unsigned fill_ = 0;         // bytes waiting in buffer_
  unsigned char buffer_[16] = {};
};

// Fingerprint of a single contiguous byte range.
Fingerprint fingerprint_of(const void* data, std::size_t size, std::uint64_t seed = 0);

}  // namespace prowl
