#include "prowl/core/rng.hpp"

#include "prowl/core/status.hpp"

namespace prowl {
namespace {

inline std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

void Rng::seed_state() {
  std::uint64_t x = seed();
  for (auto& s : s_) s = splitmix(x);
  seeded_ = true;
}

std::uint64_t Rng::advance() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t Rng::below(std::uint64_t bound) {
  PROWL_CHECK(bound > 0, "Rng::below needs a positive bound");
  // Lemire's multiply-and-reject: unbiased, one multiplication in the common case.
  std::uint64_t x = next();
  __uint128_t m = static_cast<__uint128_t>(x) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = -bound % bound;
    while (low < threshold) {
      x = next();
      m = static_cast<__uint128_t>(x) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double Rng::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::derive(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = seed;
  std::uint64_t h = splitmix(x);
  x ^= a;
  h ^= splitmix(x);
  x ^= b * 0xd6e8feb86659fd93ULL;
  h ^= splitmix(x);
  return h;
}

}  // namespace prowl
