// Invariant: something that must always hold, with a severity and a timing (checked before each
// action, after it, or both). A check returns Check::pass() or Check::fail(message).
#pragma once

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

struct Invariant {
  std::string name;
  std::string description;
  Severity severity = Severity::kHigh;
  Timing timing = Timing::kAfter;
  std::function<Check(const World&, const Context&)> check;

  bool before() const { return timing != Timing::kAfter; }
  bool after() const { return timing != Timing::kBefore; }
};

}  // namespace prowl
