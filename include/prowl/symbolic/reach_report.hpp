// The console and JSON reports of one `prowl reach` run (docs/symbolic.md, "Reports").
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "prowl/symbolic/cross_check.hpp"
#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

struct ReachRun {
  const TransitionSystem* system = nullptr;
  std::string file;
  ReachOptions options;
  const ReachResult* result = nullptr;
  std::optional<std::uint64_t> states;    // --count
  std::optional<CrossCheck> cross_check;  // --cross-check
  std::vector<std::string> traces;        // per check: the trace written, or ""
  std::vector<std::string> warnings;
};

void print_reach_report(std::ostream& out, const ReachRun& run);
std::string reach_json(const ReachRun& run);

}  // namespace prowl::sym
