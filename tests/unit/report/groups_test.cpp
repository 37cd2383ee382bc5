// One bug, one heading (prowl/report/groups.hpp): findings of the same kind and name are one
// group, its shortest path first, the groups in the order of their earliest finding.
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/report/groups.hpp"

namespace prowl {
namespace {

Finding finding(FindingKind kind, std::string name, std::size_t steps) {
  Finding f;
  f.kind = kind;
  f.name = std::move(name);
  f.steps.resize(steps);
  return f;
}

std::vector<std::vector<std::size_t>> members(const std::vector<FindingGroup>& groups) {
  std::vector<std::vector<std::size_t>> out;
  for (const FindingGroup& g : groups) out.push_back(g.findings);
  return out;
}

TEST(FindingGroups, SameKindAndNameIsOneGroupShortestFirstEarliestOfEqualLengths) {
  const std::vector<Finding> findings = {
      finding(FindingKind::kInvariant, "stock", 5),    // 0
      finding(FindingKind::kInvariant, "refunds", 4),  // 1
      finding(FindingKind::kInvariant, "stock", 3),    // 2
      finding(FindingKind::kActionError, "stock", 1),  // 3: another kind, another bug
      finding(FindingKind::kInvariant, "stock", 3),    // 4
      finding(FindingKind::kInvariant, "refunds", 4),  // 5
  };
  EXPECT_EQ(members(group_findings(findings)),
            (std::vector<std::vector<std::size_t>>{{2, 4, 0}, {1, 5}, {3}}));
  EXPECT_TRUE(group_findings({}).empty());
}

}  // namespace
}  // namespace prowl
