#include "prowl/explore/options.hpp"

#include <fmt/format.h>

#include "prowl/explore/finding.hpp"
#include "prowl/explore/report.hpp"

namespace prowl {

Status Options::validate() const {
  if (!(coverage_target >= 0 && coverage_target <= 1)) {
    return Status::invalid(fmt::format(
        "coverage target {} is outside 0..1 (it is a fraction of actions)", coverage_target));
  }
  if (!(time_limit >= 0)) {
    return Status::invalid(fmt::format("time limit {} must be >= 0 seconds", time_limit));
  }
  if (workers < 1) return Status::invalid("workers must be at least 1");
  if (threads > 1024) {
    return Status::invalid(fmt::format("threads {} is more than 1024", threads));
  }
  if (!(confirm_grace >= 0)) {
    return Status::invalid(fmt::format("confirm grace {} must be >= 0 seconds", confirm_grace));
  }
  return Status::ok();
}

std::string_view to_string(Termination t) {
  switch (t) {
    case Termination::kExhausted:
      return "exhausted";
    case Termination::kMaxSteps:
      return "max_steps";
    case Termination::kTimeLimit:
      return "time_limit";
    case Termination::kCoverageTarget:
      return "coverage_target";
    case Termination::kFirstFinding:
      return "first_finding";
    case Termination::kInterrupted:
      return "interrupted";
    case Termination::kSampled:
      return "sampled";
    case Termination::kError:
      return "error";
    case Termination::kMemory:
      return "memory";
  }
  return "exhausted";
}

std::string_view to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::kInvariant:
      return "invariant_violation";
    case FindingKind::kActionError:
      return "action_error";
    case FindingKind::kNondeterminism:
      return "nondeterminism";
    case FindingKind::kServiceCrashed:
      return "service_crashed";
  }
  return "invariant_violation";
}

double RunReport::action_coverage() const {
  if (coverage.empty()) return 0;
  std::size_t ran = 0;
  for (const auto& c : coverage) ran += c.executed > 0;
  return static_cast<double>(ran) / static_cast<double>(coverage.size());
}

}  // namespace prowl
