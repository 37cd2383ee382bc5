#include "programs.hpp"

namespace prowl::wc::examples {

const std::vector<Program>& bundled_programs() {
  static const std::vector<Program> programs = {
      {"insertion_sort", "insertion sort of n integers (worst: n(n-1)/2, always True)",
       insertion_sort},
      {"boyer_moore3",
       "a 3-symbol pattern against n text symbols, one compare site (worst: 3*floor(n/3), "
       "T,T,F repeated)",
       boyer_moore3},
      {"smith_waterman",
       "local alignment of n text symbols against a 3-symbol query, stopping at a perfect hit "
       "(worst: 3n, always False)",
       smith_waterman},
      {"dijkstra",
       "Dijkstra on the complete digraph of n nodes, symbolic weights, a binary heap (irregular)",
       dijkstra},
  };
  return programs;
}

}  // namespace prowl::wc::examples
