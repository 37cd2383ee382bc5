// Invariant: something that must always hold, with a severity and a timing (checked before each
// action, after it, or both). A check returns Check::pass() or Check::fail(message).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "prowl/core/context.hpp"
#include "prowl/core/severity.hpp"

namespace prowl {

class World;

enum class Timing { kBefore, kAfter, kBoth };
std::string_view to_string(Timing timing);

struct Check {
  bool ok = true;
  std::string message;
  static Check pass() { return {}; }
  static Check fail(std::string message) { return {false, std::move(message)}; }
};

// Where something is declared in a model's source: a model file's line, or the C++ call that
// declared it (std::source_location). An empty file: not known.
struct SourceLocation {
  std::string file{};      // as the model gave it: relative to the working directory, or absolute
  std::uint32_t line = 0;  // 1-based; 0: the file only
  bool known() const { return !file.empty(); }
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

struct Invariant {
  std::string name;
  std::string description;
  Severity severity = Severity::kHigh;
  Timing timing = Timing::kAfter;
  std::function<Check(const World&, const Context&)> check;
  SourceLocation where{};  // for reports that point at the declaration (SARIF)

  bool before() const { return timing != Timing::kAfter; }
  bool after() const { return timing != Timing::kBefore; }
};

}  // namespace prowl
