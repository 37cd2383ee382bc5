#include "prowl/core/action.hpp"

namespace prowl {

std::string_view to_string(Outcome::Kind kind) {
  switch (kind) {
    case Outcome::Kind::kOk:
      return "ok";
    case Outcome::Kind::kRejected:
      return "rejected";
    case Outcome::Kind::kSkipped:
      return "skipped";
    case Outcome::Kind::kError:
      return "error";
  }
  return "error";
}

}  // namespace prowl
