#include "prowl/core/fingerprint.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace prowl {
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

}  // namespace prowl
