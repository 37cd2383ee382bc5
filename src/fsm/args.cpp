#include "prowl/fsm/args.hpp"

#include <charconv>

#include <fmt/format.h>

namespace prowl::fsm {

void Args::fail(std::size_t i, std::string_view expected) const {
  if (i >= tokens_.size()) {
    throw TraceError(fmt::format("argument {} is missing: expected {}", i + 1, expected));
  }
  throw TraceError(fmt::format("argument {} is '{}': expected {}", i + 1, tokens_[i], expected));
}

void Args::expect_size(std::size_t n) const {
  if (tokens_.size() != n) {
    throw TraceError(fmt::format("expected {} argument(s), found {}", n, tokens_.size()));
  }
}

void Args::expect_at_least(std::size_t n) const {
  if (tokens_.size() < n) {
    throw TraceError(fmt::format("expected at least {} argument(s), found {}", n, tokens_.size()));
  }
}

const std::string& Args::text(std::size_t i) const {
  if (i >= tokens_.size()) fail(i, "a value");
  return tokens_[i];
}

std::int64_t Args::integer(std::size_t i) const {
  if (i >= tokens_.size()) fail(i, "an integer");
  const std::string& t = tokens_[i];
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || ptr != t.data() + t.size()) fail(i, "an integer");
  return value;
}

std::int64_t Args::integer(std::size_t i, std::int64_t min, std::int64_t max) const {
  const std::int64_t value = integer(i);
  if (value < min || value > max) fail(i, fmt::format("an integer in [{}, {}]", min, max));
  return value;
}

bool Args::boolean(std::size_t i) const {
  const std::size_t which = one_of(i, {"false", "true"});
  return which == 1;
}

std::size_t Args::one_of(std::size_t i, std::initializer_list<std::string_view> choices) const {
  std::size_t k = 0;
  if (i < tokens_.size()) {
    for (std::string_view c : choices) {
      if (tokens_[i] == c) return k;
      ++k;
    }
  }
  fail(i, fmt::format("one of {}", fmt::join(choices, ", ")));
}

std::size_t Args::one_of(std::size_t i, const std::vector<std::string>& choices) const {
  if (i < tokens_.size()) {
    for (std::size_t k = 0; k < choices.size(); ++k) {
      if (tokens_[i] == choices[k]) return k;
    }
  }
  fail(i, fmt::format("one of {}", fmt::join(choices, ", ")));
}

}  // namespace prowl::fsm
