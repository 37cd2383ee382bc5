// Status and Result<T>: how prowl returns failures the environment causes (a bad model, a
// database that is down). Findings about the system under test are never a Status; programming
// errors throw through PROWL_CHECK. Value types, not thread-safe to share while mutating.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace prowl {

enum class StatusCode {
  kOk = 0,
  kInvalid,      // bad usage, model or input file: exit code 2
  kEnvironment,  // database unreachable, service would not start: exit code 3
  kInternal,
};

// An ok Status is a null pointer: creating, passing and destroying one costs next to nothing, so
// it can be returned from the explorer's hot path.
class Status {
 public:
  Status() = default;
  Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status ok() { return {}; }
  static Status invalid(std::string message) { return {StatusCode::kInvalid, std::move(message)}; }
  static Status environment(std::string message) {
    return {StatusCode::kEnvironment, std::move(message)};
  }
  static Status internal(std::string message) {
    return {StatusCode::kInternal, std::move(message)};
  }

  bool is_ok() const { return rep_ == nullptr; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  const std::string& message() const;
  // The process exit code that belongs to this status (prowl/core/exit_code.hpp): kExitOk,
  // kExitUsage or kExitEnvironment.
  int exit_code() const;

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  Status(StatusCode code, std::string message)
      : rep_(std::make_unique<Rep>(Rep{code, std::move(message)})) {}
  std::unique_ptr<Rep> rep_;
};

// Either a value or a failed Status.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool is_ok() const { return v_.index() == 0; }
  explicit operator bool() const { return is_ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  Status status() const { return is_ok() ? Status::ok() : std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

// Thrown for programming errors (a broken precondition of prowl's API). Only main() turns it into
// an exit code.
class LogicError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
[[noreturn]] void check_failed(const char* expr, const std::string& message, const char* file,
                               int line);
}  // namespace detail

}  // namespace prowl

#define PROWL_CHECK(cond, message)                                                    \
  do {                                                                                \
    if (!(cond)) ::prowl::detail::check_failed(#cond, (message), __FILE__, __LINE__); \
  } while (false)
