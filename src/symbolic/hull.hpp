// Candidate literals for merging two cubes: the facets of the convex hull (over the reals) of
// their linear integer literals, by Fourier-Motzkin elimination. The candidates are only
// proposals: the caller keeps those both cubes imply and checks the merged cube exactly, so a
// candidate that is wrong, weak or rounded costs a query, never soundness.
#pragma once

#include <vector>

#include <z3++.h>

namespace prowl::sym {

// REQUIRES: both lists hold literals of one context.
std::vector<z3::expr> hull_candidates(const std::vector<z3::expr>& a,
                                      const std::vector<z3::expr>& b);

}  // namespace prowl::sym
