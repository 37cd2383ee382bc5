#include "prowl/trace/signature.hpp"

#include <cctype>

namespace prowl::trace {

std::string normalize_signature(std::string_view text) {
  constexpr std::size_t kMaxLength = 300;
  std::string out;
  std::size_t i = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < text.size() && out.size() < kMaxLength) {
    const char c = text[i];
    if (c == '0' && i + 2 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      i += 2;
      while (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i]))) ++i;
      out += "0x?";
      continue;
    }
    if (is_digit(c)) {
      while (i < text.size() && is_digit(text[i])) ++i;
      out += 'N';
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (!out.empty()) out += ' ';
      continue;
    }
    out += c;
    ++i;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > kMaxLength) out.resize(kMaxLength);
  return out;
}

}  // namespace prowl::trace
