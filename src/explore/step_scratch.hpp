// StepScratch: where the in-memory searches (levels.cpp, ranks.cpp) run the steps of a state.
// Private to the explorer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

namespace prowl::detail {

// std::memcpy of a state's bytes (a byte image's few dozen), inline. Its size is known only at run
// time, so memcpy would be a library call per step (8 % of a 32-byte model's run in perf); here
// it is two overlapping word copies whose branches, the size being the same at every call, are
// always predicted. REQUIRES: the ranges do not overlap.
inline void copy_state(unsigned char* to, const unsigned char* from, std::size_t size) {
  const auto two = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
    unsigned char head[N], tail[N];
    std::memcpy(head, from, N);
    std::memcpy(tail, from + size - N, N);
    std::memcpy(to, head, N);
    std::memcpy(to + size - N, tail, N);
  };
  if (size > 64) {
    std::memcpy(to, from, size);
  } else if (size > 32) {
    two(std::integral_constant<std::size_t, 32>{});
  } else if (size > 16) {
    two(std::integral_constant<std::size_t, 16>{});
  } else if (size >= 8) {
    two(std::integral_constant<std::size_t, 8>{});
  } else if (size >= 4) {
    two(std::integral_constant<std::size_t, 4>{});
  } else {
    for (std::size_t i = 0; i < size; ++i) to[i] = from[i];
  }
}

// Two scratch copies of a state that the steps of an expansion run on in turn
// (Executor::run_typed_on), each step's successor handed on (to be hashed) only once the next step
// has run on the other copy. An action typically stores a byte or two into the state, and the
// hash then loads it by whole words: a wide load of a narrow store that is still in the store
// buffer cannot take its data from there and waits for the store to reach the cache (perf put
// half the hash's time at that load). One step later the store has long reached it.
//
// Usage, per step: at = fresh(src); run the action on at; hold(at, what, done) when it ran, or
// release(done) when it did not (the steps before it are handed on first, keeping their order);
// release(done) after the last. done(bytes, what) gets each step once, in the order they ran;
// `what` is the caller's record of the step (a Held: its state and action, the slot its result
// goes to, ...).
template <class Held>
class StepScratch {
 public:
  // The copies are aligned for any object: the typed actions take them as the model's type.
  explicit StepScratch(std::size_t size)
      : size_(size),
        stride_((size + kAlign - 1) / kAlign * kAlign),
        memory_(std::make_unique<unsigned char[]>(2 * stride_ + kAlign)) {
    const auto base = reinterpret_cast<std::uintptr_t>(memory_.get());
    copies_[0] = memory_.get() + (kAlign - base % kAlign) % kAlign;
    copies_[1] = copies_[0] + stride_;
  }

  // The copy for the next step, holding src's bytes (not the copy a held step is on).
  unsigned char* fresh(const unsigned char* src) {
    unsigned char* at = copies_[flip_];
    flip_ ^= 1;
    copy_state(at, src, size_);
    return at;
  }
  // The step `what` ran on `at` (the last fresh()): hands the held step to done, and holds this
  // one.
  template <class Done>
  void hold(const unsigned char* at, const Held& what, Done&& done) {
    release(done);
    held_ = at;
    what_ = what;
  }
  // Hands the held step, if any, to done.
  template <class Done>
  void release(Done&& done) {
    if (held_ == nullptr) return;
    const unsigned char* bytes = held_;
    held_ = nullptr;
    done(bytes, what_);
  }

 private:
  static constexpr std::size_t kAlign = 64;
  std::size_t size_;
  std::size_t stride_;
  std::unique_ptr<unsigned char[]> memory_;
  unsigned char* copies_[2] = {nullptr, nullptr};
  unsigned flip_ = 0;
  const unsigned char* held_ = nullptr;
  Held what_{};
};

}  // namespace prowl::detail
