#include "counters.hpp"

#include <string>

namespace examples {

prowl::ObjectModel<Counters> make_counters_model(int k, int n) {
  PROWL_CHECK(k >= 1 && k <= 8 && n >= 1 && n <= 255, "counters: need 1 <= K <= 8, 1 <= N <= 255");
  prowl::ObjectModel<Counters> model("counters", Counters{}, [k](const Counters& s) {
    std::string out;
    for (int i = 0; i < k; ++i) out += (i ? " " : "") + std::to_string(s.c[i]);
    return out;
  });
  add_counters(model, k, n);
  return model;
}

void add_counters(prowl::ObjectModel<Counters>& model, int k, int n) {
  const auto top = static_cast<std::uint8_t>(n - 1);
  for (int i = 0; i < k; ++i) {
    model.action("inc_" + std::to_string(i))
        .when([i, top](const Counters& s) { return s.c[i] < top; })
        .run([i](Counters& s) { ++s.c[i]; });
    model.action("reset_" + std::to_string(i))
        .when([i](const Counters& s) { return s.c[i] > 0; })
        .run([i](Counters& s) { s.c[i] = 0; });
  }
  model.invariant("in_bounds").check([k, top](const Counters& s) {
    for (int i = 0; i < k; ++i) {
      if (s.c[i] > top) return false;
    }
    return true;
  });
}

}  // namespace examples
