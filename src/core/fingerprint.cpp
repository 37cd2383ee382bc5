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
  std::uint64_t k1 = 0, k2 = 0;  // the bytes past fill_ are zero
  if (fill_ != 0) {
    std::memcpy(&k1, buffer_, 8);
    std::memcpy(&k2, buffer_ + 8, 8);
  }
  return detail::hash_finish(a_, b_, length_, fill_ != 0, k1, k2);
}

namespace detail {

Fingerprint hash_finish(std::uint64_t a, std::uint64_t b, std::uint64_t length, bool has_tail,
                        std::uint64_t k1, std::uint64_t k2) {
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
  a = fmix(a);
  b = fmix(b);
  a += b;
  b += a;
  return Fingerprint{a, b};
}

}  // namespace detail

}  // namespace prowl
