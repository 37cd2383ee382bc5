// examples/shop_api/README.md documents each invariant's SQL check verbatim (up to whitespace),
// with the name of its audit counter: the models written from the README use what the code runs.
#ifdef PROWL_HAVE_SHOP_API

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "unit/shop_api/shop_test_support.hpp"

namespace shop::testing {
namespace {

// Every run of whitespace as one space.
std::string squeeze(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

TEST(ShopReadme, DocumentsEveryInvariantsSqlAndAuditCounter) {
  std::ifstream file(SHOP_API_README);
  ASSERT_TRUE(file) << SHOP_API_README;
  std::stringstream text;
  text << file.rdbuf();
  const std::string readme = squeeze(text.str());
  for (const auto& check : invariant_checks()) {
    SCOPED_TRACE(check.name);
    EXPECT_NE(readme.find(squeeze(check.sql)), std::string::npos);
    EXPECT_NE(readme.find("`" + std::string(check.name) + "`"), std::string::npos);
    EXPECT_NE(readme.find("/audit/" + std::string(check.audit_field)), std::string::npos);
  }
}

}  // namespace
}  // namespace shop::testing

#endif  // PROWL_HAVE_SHOP_API
