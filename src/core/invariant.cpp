#include "prowl/core/invariant.hpp"

namespace prowl {

std::string_view to_string(Timing timing) {
  switch (timing) {
    case Timing::kBefore:
      return "before";
    case Timing::kAfter:
      return "after";
    case Timing::kBoth:
      return "both";
  }
  return "after";
}

}  // namespace prowl
