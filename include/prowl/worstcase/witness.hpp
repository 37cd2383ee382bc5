// The witness of a worst-case search as a trace (docs/trace-format.md, "Worst-case traces"), and
// its replay: the program run on the witness's input values, each branch deciding by its
// condition's value, so that the trace shows the input really takes a path that long.
//
//   prowl-trace 1 boyer_moore3 kind=worst-case n=10 length=9 search=spf-wca objective=decisions
//   # T boyer_moore3.cpp:12
//   # ...                                   (one comment per decision: side and site)
//   0 input text[0]=0 text[1]=2 ...
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/trace/trace.hpp"
#include "prowl/worstcase/search.hpp"

namespace prowl::wc {

trace::Trace witness_trace(const Program& program, const SearchResult& result,
                           std::string_view search, Objective objective);

struct WitnessReplay {
  std::string program;
  int n = 0;
  Objective objective = Objective::kDecisions;
  std::uint64_t recorded = 0;  // the length the trace records
  std::uint64_t replayed = 0;  // the length the input gives
  // Whether the decisions are those the trace's comments list (true when it lists none).
  bool same_decisions = true;
  std::vector<PathStep> path;  // the decisions of the replay
  bool reproduced() const { return replayed == recorded && same_decisions; }
};

// Replays a worst-case trace on the program it names (one of `programs`). An invalid Status names
// `source` and the line for a trace that is not a worst-case trace of one of them, a missing or
// bad header option, a bad input value; and the site for a program that breaks SymExec's rules.
Result<WitnessReplay> replay_witness(const std::vector<Program>& programs, const trace::Trace& t,
                                     const std::string& source);

}  // namespace prowl::wc
