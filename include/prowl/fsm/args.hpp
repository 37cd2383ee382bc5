// Args: a step's arguments as trace tokens, with typed access. The generate step of an action
// writes them; the run step reads them, the same way whether they were just generated or read
// back from a trace, so replay runs exactly the code fuzzing ran. A missing or malformed argument
// throws TraceError naming the argument and what was expected. Not thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/fsm/handles.hpp"

namespace prowl::fsm {

class Args {
 public:
  explicit Args(const std::vector<std::string>& tokens) : tokens_(tokens) {}

  std::size_t size() const { return tokens_.size(); }
  // Throws TraceError unless there are exactly `n` arguments.
  void expect_size(std::size_t n) const;
  // Throws TraceError unless there are at least `n` arguments.
  void expect_at_least(std::size_t n) const;

  // Argument i (0-based) as text.
  const std::string& text(std::size_t i) const;
  // As a decimal integer.
  std::int64_t integer(std::size_t i) const;
  // As a decimal integer in [min, max].
  std::int64_t integer(std::size_t i, std::int64_t min, std::int64_t max) const;
  // "true" or "false".
  bool boolean(std::size_t i) const;
  // The position of the argument in `choices`.
  std::size_t one_of(std::size_t i, std::initializer_list<std::string_view> choices) const;
  std::size_t one_of(std::size_t i, const std::vector<std::string>& choices) const;
  // The handle the argument names. REQUIRES: the handle holds a V.
  template <class V>
  V& handle(std::size_t i, Handles& handles) const {
    return handles.get<V>(text(i));
  }

  const std::vector<std::string>& tokens() const { return tokens_; }

 private:
  [[noreturn]] void fail(std::size_t i, std::string_view expected) const;
  const std::vector<std::string>& tokens_;
};

}  // namespace prowl::fsm
