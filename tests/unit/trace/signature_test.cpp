#include "prowl/trace/signature.hpp"

#include <gtest/gtest.h>

namespace prowl::trace {
namespace {

TEST(Signature, MasksAddressesAndNumbers) {
  EXPECT_EQ(normalize_signature("segfault at 0x7ffd1234abcd in pid 4242"),
            "segfault at 0x? in pid N");
  EXPECT_EQ(normalize_signature("get(12) returned 7, expected 9"), "get(N) returned N, expected N");
  EXPECT_EQ(normalize_signature("term t123 of width 32"), "term tN of width N");
}

TEST(Signature, CollapsesWhitespaceAndTrims) {
  EXPECT_EQ(normalize_signature("  a \n\t b  "), "a b");
  EXPECT_EQ(normalize_signature(""), "");
}

TEST(Signature, KeepsAZeroThatIsNotAnAddress) {
  EXPECT_EQ(normalize_signature("0x"), "Nx");
  EXPECT_EQ(normalize_signature("0xg"), "Nxg");
}

TEST(Signature, CutsLongTextsTo300Bytes) {
  EXPECT_EQ(normalize_signature(std::string(500, 'a')), std::string(300, 'a'));
}

}  // namespace
}  // namespace prowl::trace
