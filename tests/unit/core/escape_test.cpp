#include "prowl/core/escape.hpp"

#include <string>

#include <gtest/gtest.h>

namespace prowl {
namespace {

TEST(EscapeText, KeepsPrintableTextAndUtf8AsTheyAre) {
  EXPECT_EQ(escape_text("POST /orders/1 -> 201 {\"a\":\"b\"}"),
            "POST /orders/1 -> 201 {\"a\":\"b\"}");
  EXPECT_EQ(escape_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x88"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x88");
  EXPECT_EQ(escape_text(""), "");
  EXPECT_EQ(escape_text("back\\slash"), "back\\slash");
  EXPECT_FALSE(needs_escape("plain text, caf\xc3\xa9"));
}

TEST(EscapeText, NamesTheCommonControlsAndWritesTheOthersInHex) {
  EXPECT_EQ(escape_text("\x1b[31mred\x1b[0m"), "\\e[31mred\\e[0m");
  EXPECT_EQ(escape_text("a\r\nb\tc"), "a\\r\\nb\\tc");
  EXPECT_EQ(escape_text(std::string("nul\0bel\x07"
                                    "del\x7f",
                                    12)),
            "nul\\x00bel\\x07del\\x7f");
  EXPECT_TRUE(needs_escape("x\ny"));
}

TEST(EscapeText, EscapesC1ControlsSeparatorsAndBidiOverrides) {
  EXPECT_EQ(escape_text("a\xc2\x9b"
                        "31m"),
            "a\\u009b31m");  // CSI as one C1 character
  EXPECT_EQ(escape_text("line\xe2\x80\xa8sep"), "line\\u2028sep");
  EXPECT_EQ(escape_text("\xe2\x80\xae"
                        "txt.exe"),
            "\\u202etxt.exe");
  EXPECT_EQ(escape_text("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");
}

TEST(EscapeText, WritesBytesThatAreNotUtf8InHex) {
  EXPECT_EQ(escape_text("caf\xe9"), "caf\\xe9");                       // Latin-1
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(escape_text("\xe2\x82"), "\\xe2\\x82");                    // cut short
  EXPECT_EQ(escape_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST(EscapeLines, KeepsLineBreaksAndEscapesTheRest) {
  EXPECT_EQ(escape_lines("one\ntwo\r\n\x1b[2Jthree"), "one\ntwo\\r\n\\e[2Jthree");
  EXPECT_EQ(escape_lines("plain"), "plain");
}

}  // namespace
}  // namespace prowl
