#include <utility>

#include "programs.hpp"

namespace prowl::wc::examples {

void insertion_sort(SymExec& ex, int n) {
  std::vector<z3::expr> a = ex.array("a", n);
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && ex.branch(PROWL_SITE, a[j - 1] > a[j]); --j) {
      std::swap(a[j - 1], a[j]);
    }
  }
}

}  // namespace prowl::wc::examples
