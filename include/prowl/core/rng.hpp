// Rng: the seeded, splittable random generator behind every random choice prowl makes
// (xoshiro256**, seeded through SplitMix64). One seed per run; per-step seeds are derived from it
// so that a step replays identically wherever it appears. Not thread-safe; split one per thread.
#pragma once

#include <cstdint>
#include <limits>

namespace prowl {

class Rng {
 public:
  using result_type = std::uint64_t;

  explicit Rng(std::uint64_t seed = 0) { reseed(seed); }
  void reseed(std::uint64_t seed);

  std::uint64_t next();
  std::uint64_t operator()() { return next(); }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  // Uniform in [0, bound). REQUIRES: bound > 0.
  std::uint64_t below(std::uint64_t bound);
  // Uniform in [0, 1).
  double unit();
  // A generator independent of this one's future output.
  Rng split() { return Rng(next()); }

  // A seed derived deterministically from a base seed and two values (e.g. a state's fingerprint
  // and an action id).
  static std::uint64_t derive(std::uint64_t seed, std::uint64_t a, std::uint64_t b);

 private:
  std::uint64_t s_[4];
};

}  // namespace prowl
