// The counters example: K independent counters in 0..N-1 (K <= 8), with inc_i (if c[i] < N-1)
// and reset_i (if c[i] > 0). Exactly N^K reachable states and N^K * K * (2N-2)/N transitions;
// the invariant "in_bounds" always holds, so the whole space is explored.
#pragma once

#include <array>
#include <cstdint>

#include "prowl/explore/object_model.hpp"

namespace examples {

struct Counters {
  std::array<std::uint8_t, 8> c{};
};

prowl::ObjectModel<Counters> make_counters_model(int k, int n);
// Its actions (inc_i, reset_i) and invariant (in_bounds), on any model of Counters: an
// ObjectModel, or a FactoryModel that explores without copying (bench/replay_bench).
void add_counters(prowl::ObjectModel<Counters>& model, int k, int n);

}  // namespace examples
