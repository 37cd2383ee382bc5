// counter2 (examples/reach/counter2.yaml) built through the API, for the symbolic tests.
#pragma once

#include <z3++.h>

#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym::testing {

struct Counter2 {
  explicit Counter2(z3::context& c, bool bounded_y = true) : ts(c, "counter2") {
    x = ts.var("x", c.int_sort());
    y = ts.var("y", c.int_sort());
    p = ts.input("p", c.int_sort());
    ts.init(x == 0 && y == 0);
    ts.transition("inc").guard(x < 3 && p >= 1 && p <= 2).update(x, x + p);
    ts.transition("carry")
        .guard(bounded_y ? (x >= 3 && y < 2) : x >= 3)
        .update(x, c.int_val(0))
        .update(y, y + 1);
  }
  TransitionSystem ts;
  z3::expr x{ts.context()}, y{ts.context()}, p{ts.context()};
};

}  // namespace prowl::sym::testing
