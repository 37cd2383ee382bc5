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

  // Seeding is deferred to the first draw: most actions never draw, and every step gets an Rng.
  explicit Rng(std::uint64_t seed = 0) : seed_(seed) {}
  // A generator seeded with derive(seed, a, b), computed only if a number is drawn.
  static Rng derived(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
    Rng r(seed);
    r.a_ = a;
    r.b_ = b;
    r.derive_ = true;
    return r;
  }
  void reseed(std::uint64_t seed) {
    seed_ = seed;
    seeded_ = false;
    derive_ = false;
  }
  // Whether a number has been drawn (the generator is seeded on the first draw).
  bool drawn() const { return seeded_; }
  // The seed this generator starts from.
  std::uint64_t seed() const { return derive_ ? derive(seed_, a_, b_) : seed_; }

  std::uint64_t next() {
    if (!seeded_) seed_state();
    return advance();
  }
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
  void seed_state();
  std::uint64_t advance();

  std::uint64_t seed_;
  std::uint64_t a_ = 0;
  std::uint64_t b_ = 0;
  bool derive_ = false;
  bool seeded_ = false;
  std::uint64_t s_[4] = {};
};

}  // namespace prowl
