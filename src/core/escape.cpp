#include "prowl/core/escape.hpp"

#include <cstdint>

namespace prowl {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_byte(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

void append_code_point(std::string& out, std::uint32_t cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xf];
}

// Unicode characters that are escaped although they are valid: C1 controls, the line and
// paragraph separators, and the bidirectional embedding, override and isolate controls.
bool escaped_code_point(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

// The length of the valid UTF-8 sequence at text[i] and its code point, or 0 if it is not one
// (overlong forms, surrogates and values above U+10FFFF are not valid).
std::size_t utf8_sequence(std::string_view text, std::size_t i, std::uint32_t& cp) {
  const auto c = static_cast<unsigned char>(text[i]);
  std::size_t n;
  std::uint32_t min;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

std::string escape(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '\n':
          out += keep_newlines ? "\n" : "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case 0x1b:
          out += "\\e";
          break;
        default:
          append_byte(out, c);
      }
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0) {
      append_byte(out, c);
      ++i;
    } else if (escaped_code_point(cp)) {
      append_code_point(out, cp);
      i += n;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

bool needs_escape(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      ++i;
      continue;
    }
    if (c < 0x80) return true;
    std::uint32_t cp = 0;
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0 || escaped_code_point(cp)) return true;
    i += n;
  }
  return false;
}

std::string escape_text(std::string_view text) {
  if (!needs_escape(text)) return std::string(text);
  return escape(text, /*keep_newlines=*/false);
}

std::string escape_lines(std::string_view text) { return escape(text, /*keep_newlines=*/true); }

}  // namespace prowl
