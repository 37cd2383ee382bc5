#include "prowl/core/fingerprint.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace prowl {
namespace {

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
  length_ += size;
  if (fill_ != 0) {
    const std::size_t take = std::min<std::size_t>(16 - fill_, size);
    std::memcpy(buffer_ + fill_, p, take);
    fill_ += static_cast<unsigned>(take);
    p += take;
    size -= take;
    if (fill_ < 16) return;
    std::uint64_t k1, k2;
    std::memcpy(&k1, buffer_, 8);
    std::memcpy(&k2, buffer_ + 8, 8);
    block(k1, k2);
    std::memset(buffer_, 0, sizeof buffer_);
    fill_ = 0;
  }
  length_ -= size;  // add_unbuffered counts the rest
  add_unbuffered(p, size);
}

Fingerprint Hasher::finish() const {
  std::uint64_t a = a_;
  std::uint64_t b = b_;
  if (fill_ != 0) {
    std::uint64_t k1, k2;  // the bytes past fill_ are zero
    std::memcpy(&k1, buffer_, 8);
    std::memcpy(&k2, buffer_ + 8, 8);
    k1 *= kC1;
    k1 = rotl(k1, 31) * kC2;
    a ^= k1;
    k2 *= kC2;
    k2 = rotl(k2, 33) * kC1;
    b ^= k2;
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
