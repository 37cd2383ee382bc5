#include <algorithm>
#include <array>

#include "programs.hpp"

namespace prowl::wc::examples {

namespace {

constexpr int kMatch = 1;
constexpr int kMismatch = -1;
constexpr int kGap = -1;

// The match function, as Biopython's identity_match: one compare site for every cell.
int score(SymExec& ex, const z3::expr& text_symbol, int query_symbol) {
  return ex.branch(PROWL_SITE, text_symbol == query_symbol) ? kMatch : kMismatch;
}

}  // namespace

void smith_waterman(SymExec& ex, int n) {
  const std::vector<z3::expr> text = ex.array("text", n);
  constexpr std::array<int, 3> query = {1, 2, 3};
  constexpr int perfect = kMatch * static_cast<int>(query.size());
  // Two rows of the local-alignment matrix H: H[i][0] = H[0][j] = 0.
  std::array<int, query.size() + 1> above{};
  std::array<int, query.size() + 1> row{};
  int best = 0;
  for (int i = 0; i < n; ++i) {
    row[0] = 0;
    for (std::size_t j = 1; j <= query.size(); ++j) {
      const int diagonal = above[j - 1] + score(ex, text[i], query[j - 1]);
      row[j] = std::max({0, diagonal, above[j] + kGap, row[j - 1] + kGap});
      best = std::max(best, row[j]);
    }
    // A scanner stops at the first perfect local alignment: the whole query, matched ungapped.
    if (best == perfect) return;
    above = row;
  }
}

}  // namespace prowl::wc::examples
