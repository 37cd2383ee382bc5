// Fingerprint: the 128-bit identity of a state, hashed from everything the systems observe.
// Hasher builds one incrementally. Both are plain values; a Hasher is not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace prowl {

struct Fingerprint {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
  // 32 lowercase hex digits, hi then lo.
  std::string hex() const;
};

namespace detail {
inline constexpr std::uint64_t kHashSeedA = 0x243f6a8885a308d3ULL;
inline constexpr std::uint64_t kHashSeedB = 0x13198a2e03707344ULL;
inline constexpr std::uint64_t kHashC1 = 0x87c37b91114253d5ULL;
inline constexpr std::uint64_t kHashC2 = 0x4cf5ad432745937fULL;

inline std::uint64_t rotl64(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// One 16-byte block: each word goes to its lane, and each lane folds in the other so that every
// input bit reaches both halves of the result.
inline void hash_block(std::uint64_t& a, std::uint64_t& b, std::uint64_t k1, std::uint64_t k2) {
  k1 *= kHashC1;
  k1 = rotl64(k1, 31) * kHashC2;
  a ^= k1;
  a = rotl64(a, 27) + b;
  a = a * 5 + 0x52dce729;
  k2 *= kHashC2;
  k2 = rotl64(k2, 33) * kHashC1;
  b ^= k2;
  b = rotl64(b, 31) + a;
  b = b * 5 + 0x38495ab5;
}

inline std::uint64_t fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

// The last, partial block (zero-padded), the length, and the final mixing.
inline Fingerprint hash_finish(std::uint64_t a, std::uint64_t b, std::uint64_t length,
                               bool has_tail, std::uint64_t k1, std::uint64_t k2) {
  if (has_tail) {
    k1 *= kHashC1;
    k1 = rotl64(k1, 31) * kHashC2;
    a ^= k1;
    k2 *= kHashC2;
    k2 = rotl64(k2, 33) * kHashC1;
    b ^= k2;
  }
  a ^= length;
  b ^= length * kHashC2;
  a += b;
  b += a;
  a = fmix64(a);
  b = fmix64(b);
  a += b;
  b += a;
  return Fingerprint{a, b};
}
}  // namespace detail

// A streaming 128-bit hash over 16-byte blocks with two 64-bit lanes (Murmur3-style block mixing,
// fmix64 finish). The same sequence of bytes gives the same fingerprint however it is split
// across add calls.
class Hasher {
 public:
  explicit Hasher(std::uint64_t seed = 0)
      : a_(seed ^ detail::kHashSeedA), b_(seed ^ detail::kHashSeedB) {}

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
  void block(std::uint64_t k1, std::uint64_t k2) { detail::hash_block(a_, b_, k1, k2); }

  std::uint64_t a_;
  std::uint64_t b_;
  std::uint64_t length_ = 0;  // bytes added so far
  unsigned fill_ = 0;         // bytes waiting in buffer_
  unsigned char buffer_[16] = {};
};

namespace detail {
// The body of fingerprint_of(), always inlined so that a constant size unrolls it.
[[gnu::always_inline]] inline Fingerprint fingerprint_bytes(const void* data, std::size_t size,
                                                            std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t a = seed ^ kHashSeedA;
  std::uint64_t b = seed ^ kHashSeedB;
  std::size_t n = size;
  for (; n >= 16; p += 16, n -= 16) {
    std::uint64_t k1, k2;
    std::memcpy(&k1, p, 8);
    std::memcpy(&k2, p + 8, 8);
    hash_block(a, b, k1, k2);
  }
  std::uint64_t k1 = 0, k2 = 0;
  if (n != 0) {
    unsigned char tail[16] = {};
    std::memcpy(tail, p, n);
    std::memcpy(&k1, tail, 8);
    std::memcpy(&k2, tail + 8, 8);
  }
  return hash_finish(a, b, size, n != 0, k1, k2);
}
}  // namespace detail

// Fingerprint of a single contiguous byte range: the same as a Hasher given these bytes, without
// the streaming buffer (the explorer's hot path for in-memory states).
inline Fingerprint fingerprint_of(const void* data, std::size_t size, std::uint64_t seed = 0) {
  return detail::fingerprint_bytes(data, size, seed);
}

// fingerprint_of() for a size known at compile time: the loop unrolled and the tail's copy
// fixed, so that it compiles to straight-line code. Same result as fingerprint_of(data, N).
template <std::size_t N>
Fingerprint fingerprint_of_fixed(const void* data) {
  return detail::fingerprint_bytes(data, N, 0);
}

// The fingerprint function of a fixed-size byte range: fingerprint_of_fixed<size> for sizes up to
// kMaxFixedFingerprint, fingerprint_of otherwise (through a wrapper with the same signature).
using FingerprintFn = Fingerprint (*)(const void* data, std::size_t size);
inline constexpr std::size_t kMaxFixedFingerprint = 64;
namespace detail {
template <std::size_t N>
Fingerprint fixed_thunk(const void* data, std::size_t /*size*/) {
  return fingerprint_of_fixed<N>(data);
}
inline Fingerprint general_thunk(const void* data, std::size_t size) {
  return fingerprint_of(data, size);
}
template <std::size_t... N>
constexpr FingerprintFn pick_fingerprint_fn(std::size_t size, std::index_sequence<N...>) {
  FingerprintFn fn = &general_thunk;
  ((fn = size == N + 1 ? &fixed_thunk<N + 1> : fn), ...);
  return fn;
}
}  // namespace detail
inline FingerprintFn fingerprint_fn(std::size_t size) {
  return detail::pick_fingerprint_fn(size, std::make_index_sequence<kMaxFixedFingerprint>{});
}

}  // namespace prowl
