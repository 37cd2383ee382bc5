// A user's own worst-case binary, built on prowl::wc::run_main as docs/worst-case.md shows: the
// CLI tests run it to check that a user's functions get the same flags, and that a function that
// breaks SymExec's rules is reported naming its site.
#include "prowl/worstcase/run_main.hpp"

namespace {

// Linear search for a symbolic key in a sorted symbolic array: the worst case reads every
// element (n decisions, the key after the last).
void linear_search(prowl::wc::SymExec& ex, int n) {
  const std::vector<z3::expr> a = ex.array("a", n);
  const z3::expr key = ex.int_input("key");
  for (int i = 0; i < n; ++i) {
    if (ex.branch(PROWL_SITE, a[i] >= key)) return;
  }
}

// Branches on an integer: SymExec refuses a condition that is not Bool.
void int_condition(prowl::wc::SymExec& ex, int) {
  const z3::expr x = ex.int_input("x");
  ex.branch(PROWL_SITE, x + 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<prowl::wc::Program> programs = {
      {"linear_search", "linear search of a key in n integers (worst: n)", linear_search},
      {"int_condition", "branches on an Int (an error)", int_condition},
  };
  return prowl::wc::run_main(programs, argc, argv);
}
