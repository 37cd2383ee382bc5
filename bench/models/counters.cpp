// counters.pml as a prowl model. SPIN's transitions are the two d_steps of CTR(i); its assert
// (c[0] < N) is evaluated in every transition, here as the invariant in_bounds over all counters.
#include <string>
#include <type_traits>

#include "models/models.hpp"

namespace bench {

static_assert(std::has_unique_object_representations_v<CountersState>);

std::string join_values(const std::uint8_t* values, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += ' ';
    out += std::to_string(values[i]);
  }
  return out;
}

prowl::ObjectModel<CountersState> make_counters_model(const CountersParams& params) {
  const int k = params.k;
  const int n = params.n;
  PROWL_CHECK(k >= 1 && k <= 8 && n >= 1 && n <= 255, "counters: need 1 <= K <= 8, 1 <= N <= 255");
  prowl::ObjectModel<CountersState> model(
      "counters", CountersState{}, {},
      [k](const CountersState& s) { return join_values(s.c.data(), k); });
  const auto top = static_cast<std::uint8_t>(n - 1);
  if (params.params) {
    model.action("inc")
        .param("i", prowl::range(0, k - 1))
        .when([top](const CountersState& s, std::size_t i) { return s.c[i] < top; })
        .run([](CountersState& s, std::size_t i) { ++s.c[i]; });
    model.action("reset")
        .param("i", prowl::range(0, k - 1))
        .when([](const CountersState& s, std::size_t i) { return s.c[i] > 0; })
        .run([](CountersState& s, std::size_t i) { s.c[i] = 0; });
  }
  for (int i = 0; i < k && !params.params; ++i) {
    model.action("inc_" + std::to_string(i))
        .when([i, top](const CountersState& s) { return s.c[i] < top; })
        .run([i](CountersState& s) { ++s.c[i]; });
    model.action("reset_" + std::to_string(i))
        .when([i](const CountersState& s) { return s.c[i] > 0; })
        .run([i](CountersState& s) { s.c[i] = 0; });
  }
  model.invariant("in_bounds").check([k, top](const CountersState& s) {
    for (int i = 0; i < k; ++i) {
      if (s.c[i] > top) return false;
    }
    return true;
  });
  return model;
}

}  // namespace bench
