// One bug, one heading: findings that break the same invariant, or fail the same action, are one
// group however many paths reach them. Every report format renders groups: the shortest path in
// full, then the others ("also reached by"). Stateless, safe from any thread.
#pragma once

#include <cstddef>
#include <vector>

#include "prowl/explore/finding.hpp"

namespace prowl {

struct FindingGroup {
  // Indices into the findings, the shortest path first (of equal lengths, the earliest).
  std::vector<std::size_t> findings;
};

// The groups of `findings` by kind and name (the invariant, or the failing action), in the order
// of each group's earliest finding.
std::vector<FindingGroup> group_findings(const std::vector<Finding>& findings);

}  // namespace prowl
