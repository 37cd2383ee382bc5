#include "prowl/report/groups.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace prowl {

std::vector<FindingGroup> group_findings(const std::vector<Finding>& findings) {
  std::vector<FindingGroup> groups;
  std::map<std::pair<FindingKind, std::string>, std::size_t> group_of;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const auto [at, added] =
        group_of.try_emplace(std::make_pair(findings[i].kind, findings[i].name), groups.size());
    if (added) groups.emplace_back();
    groups[at->second].findings.push_back(i);
  }
  for (FindingGroup& g : groups) {
    std::stable_sort(g.findings.begin(), g.findings.end(), [&](std::size_t a, std::size_t b) {
      return findings[a].steps.size() < findings[b].steps.size();
    });
  }
  return groups;
}

}  // namespace prowl
