#include "prowl/core/status.hpp"

#include <fmt/format.h>

namespace prowl {

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

int Status::exit_code() const {
  switch (code()) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kInvalid:
      return 2;
    case StatusCode::kEnvironment:
      return 3;
    case StatusCode::kInternal:
      return 3;
  }
  return 3;
}

namespace detail {
void check_failed(const char* expr, const std::string& message, const char* file, int line) {
  throw LogicError(fmt::format("{} ({}:{}: check '{}' failed)", message, file, line, expr));
}
}  // namespace detail

}  // namespace prowl
