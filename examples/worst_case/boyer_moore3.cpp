#include "programs.hpp"

namespace prowl::wc::examples {

void boyer_moore3(SymExec& ex, int n) {
  const std::vector<z3::expr> text = ex.array("text", n);
  const int pattern[3] = {1, 2, 3};
  for (int at = 0; at + 3 <= n; at += 3) {
    int j = 2;
    // One compare site for the whole window: three unrolled sites would make the policy regular.
    while (j >= 0 && ex.branch(PROWL_SITE, text[at + j] == pattern[j])) --j;
    if (j < 0) return;  // the pattern is at `at`
  }
}

}  // namespace prowl::wc::examples
