#include "prowl/core/status.hpp"

#include <fmt/format.h>

#include "prowl/core/exit_code.hpp"

namespace prowl {

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

int Status::exit_code() const {
  switch (code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalid:
      return kExitUsage;
    case StatusCode::kEnvironment:
      return kExitEnvironment;
    case StatusCode::kInternal:
      // A system that does not replay the same way is at fault, not prowl: prowl's own bugs
      // are exceptions, kExitInternal.
      return kExitEnvironment;
  }
  return kExitEnvironment;
}

namespace detail {
void check_failed(const char* expr, const std::string& message, const char* file, int line) {
  throw LogicError(fmt::format("{} ({}:{}: check '{}' failed)", message, file, line, expr));
}
}  // namespace detail

}  // namespace prowl
