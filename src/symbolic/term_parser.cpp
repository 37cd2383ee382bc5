#include "term_parser.hpp"

#include <regex>

namespace prowl::sym {

namespace {

// The term goes into one assertion; reading its value back from (= t t) keeps its sort.
constexpr std::string_view kPrefix = "(assert (let ((|prowl term| ";
constexpr std::string_view kSuffix = ")) (= |prowl term| |prowl term|)))";

// The offset of the first unbalanced parenthesis, of the end when one is missing, or npos.
std::size_t unbalanced(std::string_view text) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '|' || c == '"') {
      quote = c;
    } else if (c == ';') {
      return i;  // a comment would swallow the rest of the assertion
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth < 0) {
      return i;
    }
  }
  return depth != 0 || quote != 0 ? text.size() : std::string_view::npos;
}

// The offset of `name` as a whole symbol in `text`, or 0.
std::size_t find_symbol(std::string_view text, const std::string& name) {
  auto is_symbol_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("~!@$%^&*_-+=<>.?/'").find(c) != std::string_view::npos;
  };
  for (std::size_t at = text.find(name); at != std::string_view::npos;
       at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !is_symbol_char(text[at - 1]);
    const bool ends = at + name.size() == text.size() || !is_symbol_char(text[at + name.size()]);
    if (starts && ends) return at;
  }
  return 0;
}

}  // namespace

void TermParser::declare(const z3::expr& constant) {
  decls_.push_back(constant.decl());
  names_ += (names_.empty() ? "" : ", ") + constant.decl().name().str();
}

Status TermParser::fail(std::size_t offset, std::string message, std::string hint) const {
  error_ = {offset, std::move(message), std::move(hint)};
  return Status::invalid(error_.message);
}

Result<z3::expr> TermParser::parse(std::string_view text) const {
  if (std::size_t at = unbalanced(text); at != std::string_view::npos) {
    if (at < text.size() && text[at] == ';') return fail(at, "a term cannot hold a ';' comment");
    return fail(
        at, at == text.size() ? "a parenthesis or quote is not closed" : "this ')' closes nothing");
  }
  const std::string script = std::string(kPrefix) + std::string(text) + std::string(kSuffix);
  z3::expr_vector parsed(context_);
  try {
    parsed = context_.parse_string(script.c_str(), sorts_, decls_);
  } catch (const z3::exception& e) {
    static const std::regex kError(R"(line \d+ column (\d+): ([^"]*))");
    std::smatch m;
    const std::string msg = e.msg();
    if (!std::regex_search(msg, m, kError)) return fail(0, "not a valid SMT-LIB term: " + msg);
    const std::size_t column = std::stoul(m[1].str());
    const std::size_t offset =
        column > kPrefix.size() ? std::min(column - kPrefix.size() - 1, text.size()) : 0;
    std::string what = m[2].str();
    while (!what.empty() && (what.back() == ' ' || what.back() == '\n')) what.pop_back();
    static const std::regex kUnknown(R"(unknown (constant|function/constant) ([^ ]+))");
    std::smatch u;
    if (std::regex_search(what, u, kUnknown)) {
      const std::string name = u[2].str();
      return fail(find_symbol(text, name), "unknown symbol '" + name + "'",
                  "declare it under vars or inputs (declared: " + names_ + ")");
    }
    return fail(offset, what);
  }
  if (parsed.size() != 1) return fail(0, "expected one term");
  return parsed[0].arg(0);
}

}  // namespace prowl::sym
