// Golden-file comparison for report tests. The files live in tests/unit/report/golden/; run the
// tests with PROWL_UPDATE_GOLDEN=1 to rewrite them from the actual output (then review the diff).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace prowl::testing {

inline std::string golden_path(const std::string& name) {
  return std::string(PROWL_TEST_DATA_DIR) + "/report/golden/" + name;
}

inline ::testing::AssertionResult matches_golden(const std::string& name,
                                                 const std::string& actual) {
  const std::string path = golden_path(name);
  if (const char* update = std::getenv("PROWL_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return ::testing::AssertionFailure() << "cannot read golden file " << path;
  std::ostringstream expected;
  expected << in.rdbuf();
  if (expected.str() == actual) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "output differs from " << path << "\n--- expected\n"
                                       << expected.str() << "--- actual\n"
                                       << actual;
}

}  // namespace prowl::testing
