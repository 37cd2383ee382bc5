#include "prowl/core/fingerprint.hpp"

#include <fmt/format.h>

namespace prowl {
namespace {

constexpr std::uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr std::uint64_t kC2 = 0x4cf5ad432745937fULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t fmix(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

}  // namespace

std::string Fingerprint::hex() const { return fmt::format("{:016x}{:016x}", hi, lo); }

void Hasher::add_bytes_slow(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t fill = length_ & 7;
  length_ += size;
  if (fill != 0) {
    while (fill < 8 && size > 0) {
      buffer_ |= static_cast<std::uint64_t>(*p++) << (8 * fill++);
      --size;
    }
    if (fill < 8) return;
    mix(buffer_);
    buffer_ = 0;
  }
  while (size >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    mix(word);
    p += 8;
    size -= 8;
  }
  for (std::size_t i = 0; i < size; ++i) buffer_ |= static_cast<std::uint64_t>(p[i]) << (8 * i);
}

Fingerprint Hasher::finish() const {
  std::uint64_t a = a_;
  std::uint64_t b = b_;
  if ((length_ & 7) != 0) {
    std::uint64_t k = buffer_ * kC1;
    k = rotl(k, 31) * kC2;
    b ^= k;
  }
  a ^= length_;
  b ^= length_ * kC2;
  a += b;
  b += a;
  a = fmix(a);
  b = fmix(b);
  a += b;
  b += a;
  return Fingerprint{a, b};
}

Fingerprint fingerprint_of(const void* data, std::size_t size, std::uint64_t seed) {
  Hasher h(seed);
  h.add_bytes(data, size);
  return h.finish();
}

}  // namespace prowl
