// The programs `prowl worst-case` ships (docs/worst-case.md, "Programs"): each a plain function
// over SymExec, the way users write their own.
#pragma once

#include <vector>

#include "prowl/worstcase/sym_exec.hpp"

namespace prowl::wc::examples {

// Insertion sort of n symbolic integers (WISE's "always True"): the worst case is a strictly
// decreasing input, n(n-1)/2 decisions; the exhaustive tree has n! paths.
void insertion_sort(SymExec& ex, int n);

// The shape of GNU grep's Boyer-Moore in PySE's table: a 3-symbol pattern compared right to left
// with each aligned window of n symbolic text symbols, at one compare site, shifting by 3 after a
// mismatch and stopping at the first match. Longest 3*floor(n/3) decisions (T,T,F repeated: an
// irregular policy for a memoryless learner), (3^(floor(n/3)+1) - 1) / 2 paths.
void boyer_moore3(SymExec& ex, int n);

// Smith-Waterman local alignment (Class 1, after PySE's Biopython pairwise2 benchmark): n symbolic
// text symbols against the concrete query 1,2,3, one compare site in the match function, scanning
// stopped at the first perfect local alignment. Longest 3n decisions (always False is one worst
// policy); paths P(n) = f(n) + f(0) + ... + f(n-3), where f(k) = 4f(k-1) - f(k-3), f(0..2) = 1, 4,
// 16, counts the texts of k symbols without 1,2,3 in them: 64, 253, 997 at n = 3, 4, 5.
void smith_waterman(SymExec& ex, int n);

// Dijkstra's shortest paths from node 0 of the complete directed graph on n nodes with symbolic
// weights, on a binary min-heap with lazy deletion (the seed's example of a worst case with no
// simple branching policy): negative weights rejected first, then the heap's sift-up and
// sift-down compares and the relaxations are the decisions.
void dijkstra(SymExec& ex, int n);

// Every bundled program, by name.
const std::vector<Program>& bundled_programs();

}  // namespace prowl::wc::examples
