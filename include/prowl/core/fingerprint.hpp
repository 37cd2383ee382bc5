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

// A streaming 128-bit hash with two 64-bit lanes (Murmur3-style word mixing, fmix64 finish).
// The same sequence of bytes gives the same fingerprint however it is split across add calls.
class Hasher {
 public:
  explicit Hasher(std::uint64_t seed = 0) : a_(seed ^ kSeedA), b_(seed ^ kSeedB) {}

  void add_bytes(const void* data, std::size_t size);
  void add_u64(std::uint64_t v) { add_bytes(&v, sizeof v); }
  void add(std::string_view s) {
    add_u64(s.size());
    add_bytes(s.data(), s.size());
  }
  template <class T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void add(T v) {
    add_bytes(&v, sizeof v);
  }

  Fingerprint finish() const;

 private:
  static constexpr std::uint64_t kSeedA = 0x243f6a8885a308d3ULL;
  static constexpr std::uint64_t kSeedB = 0x13198a2e03707344ULL;
  void mix(std::uint64_t word);

  std::uint64_t a_;
  std::uint64_t b_;
  std::uint64_t buffer_ = 0;
  std::uint64_t length_ = 0;  // bytes added so far
  bool odd_ = false;          // which lane takes the next word
};

// Fingerprint of a single contiguous byte range.
Fingerprint fingerprint_of(const void* data, std::size_t size, std::uint64_t seed = 0);

}  // namespace prowl
