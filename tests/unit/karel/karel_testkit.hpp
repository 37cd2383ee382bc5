// What the Karel tests share: a program from the benchmark's token text.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "karel.hpp"

namespace karel_testkit {

// The program `text` writes; a test failure (and an empty program) when it does not parse.
inline karel::Program program(const std::string& text) {
  std::string error;
  std::optional<karel::Program> p = karel::parse(text, &error);
  EXPECT_TRUE(p.has_value()) << error;
  return p.value_or(karel::Program{});
}

}  // namespace karel_testkit
