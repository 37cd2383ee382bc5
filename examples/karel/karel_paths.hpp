// The paper's symbolic-execution baseline for Karel program testing (seed 002, App. B.3): the
// program's paths enumerated, ranked by the branch outcomes they cover, and checked with Z3 in
// that order for an input world that follows one. The first satisfiable path's input is the
// baseline's test input, optimal among the paths enumerated.
//
// Paths. Depth first, the true outcome before the false: an IF or IFELSE splits a path in two; a
// WHILE runs 0 to max_unroll iterations, so that every path leaves each loop with its condition
// false (a path that would need one more iteration is not one); REPEAT K runs its body K times.
// A path is complete when it reaches the program's end within kMaxSteps steps, counted as run()
// counts them: one for each action executed, one for each evaluation of a condition (an IF's, an
// IFELSE's, and each test of a WHILE, the failing last one included), and one for each entry
// into a REPEAT. Paths that need more steps are dropped. Errors (a move into a wall or off the
// grid, pickMarker on no marker, putMarker at kMaxMarkers) depend on the input, so they are
// constraints of a path's check rather than reasons to drop it. A path's score is the number of
// distinct outcomes (conditional, true or false) on it; paths rank by score, ties in the order of
// enumeration.
//
// Encoding. The input is the paper's: a cell is an integer s_i in {-1, 0, 1} (wall, empty, a
// marker; i = y * width + x), the hero (x, y, facing) is on the grid, on a cell that is not a
// wall, facing 0..3. A path fixes its actions, so for each of the 4 initial facings the hero's
// displacement from the start and the markers it put or picked at each cell it reached are known
// numbers; a value known per facing is a 4-way if-then-else on the initial facing. A cell at a
// position along the path is a select, at the start's index plus such an offset, from a Z3 array
// whose cells equal the s_i (guarded by the on-grid test, as an off-grid cell's index is some
// other cell's or none); its markers are that plus the markers put there so far. Each condition
// on the path asserts its outcome, each action that it does not fail. One solver holds the
// input's constraints; each path is checked in a push/pop scope above them, with a timeout
// (check_timeout_ms). A check that times out counts as unsatisfiable.
//
// Thread-safety: a call owns its Z3 context, so concurrent calls are safe.
#pragma once

#include <cstddef>
#include <optional>

#include "karel.hpp"

namespace karel {

struct PathSearchOptions {
  int max_unroll = 3;              // the most iterations of a WHILE on a path
  int top_paths = 100;             // the best-ranked paths given to Z3
  std::size_t max_paths = 100000;  // complete paths enumerated at most
  int width = 8;
  int height = 8;
  unsigned check_timeout_ms = 10000;  // per path
};

struct PathSearchResult {
  std::optional<World> input;  // the first satisfiable path's input; nullopt if none was
  int paths = 0;               // complete paths enumerated
  bool truncated = false;      // more than max_paths exist
  int checked = 0;             // paths given to Z3
  // The chosen path's outcomes over 2 × conditionals (Coverage::fraction); run() on `input`
  // follows the path, so it covers exactly these. 0 without an input.
  double coverage = 0;
};

// REQUIRES: the program's conditionals numbered 0 .. conditionals - 1; width, height >= 1.
PathSearchResult search_paths(const Program& program, const PathSearchOptions& options = {});

}  // namespace karel
