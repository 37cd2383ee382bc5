#include "prowl/trace/trace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/core/text_file.hpp"

namespace prowl::trace {
namespace {

constexpr std::string_view kMagic = "prowl-trace";

bool is_bare_char(unsigned char c) {
  return c >= 0x21 && c <= 0x7e && c != '"' && c != '\\' && c != '#' && c != '\'';
}

bool is_option_key(std::string_view key) {
  if (key.empty() || !(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_')) {
    return false;
  }
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

// Splits one line into tokens, reporting the first problem as "COL: message".
struct Tokenizer {
  std::string_view line;
  std::size_t pos = 0;

  void skip_space() {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  }
  bool done() {
    skip_space();
    return pos >= line.size();
  }
  // The next token; nullopt with `error` set on a malformed one.
  std::optional<std::string> next(std::string& error) {
    skip_space();
    std::string out;
    if (line[pos] != '"') {
      const std::size_t start = pos;
      while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') {
        if (line[pos] == '"' && pos > start && line[pos - 1] == '=') {
          // KEY="VALUE" in the header: the value is quoted, the key is not.
          std::string key(line.substr(start, pos - start));
          auto value = next(error);
          if (!value) return std::nullopt;
          return key + *value;
        }
        if (line[pos] == '"' || line[pos] == '\\') {
          error = fmt::format("column {}: '{}' inside a bare token; quote the token (\"...\")",
                              pos + 1, line[pos]);
          return std::nullopt;
        }
        ++pos;
      }
      return std::string(line.substr(start, pos - start));
    }
    const std::size_t open = pos++;
    while (pos < line.size() && line[pos] != '"') {
      char c = line[pos++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= line.size()) break;
      const char e = line[pos++];
      switch (e) {
        case '\\':
          out += '\\';
          break;
        case '"':
          out += '"';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'x': {
          unsigned value = 0;
          const char* first = line.data() + pos;
          const char* last = first + std::min<std::size_t>(2, line.size() - pos);
          auto [ptr, ec] = std::from_chars(first, last, value, 16);
          if (ec != std::errc() || ptr != last || last - first != 2) {
            error = fmt::format("column {}: \\x needs two hexadecimal digits", pos - 1);
            return std::nullopt;
          }
          pos += 2;
          out += static_cast<char>(value);
          break;
        }
        default:
          error = fmt::format("column {}: unknown escape '\\{}' (use \\\\ \\\" \\n \\t \\r \\xHH)",
                              pos - 1, e);
          return std::nullopt;
      }
    }
    if (pos >= line.size()) {
      error = fmt::format("column {}: unterminated quoted token (a '\"' is missing)", open + 1);
      return std::nullopt;
    }
    ++pos;  // the closing quote
    if (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') {
      error = fmt::format("column {}: expected a space after the closing '\"'", pos + 1);
      return std::nullopt;
    }
    return out;
  }
};

// A comment is one line, shown as it is by whoever reads the file: line breaks, escape sequences
// and other control characters inside its text are escaped (escape_text).
std::string comment_line(std::string_view text) { return "# " + escape_text(text); }

std::string trim_comment(std::string_view line) {
  std::string_view text = line.substr(1);
  if (!text.empty() && text[0] == ' ') text.remove_prefix(1);
  return std::string(text);
}

}  // namespace

std::optional<std::string> Header::option(std::string_view key) const {
  for (const auto& [k, v] : options) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void Header::set_option(std::string key, std::string value) {
  for (auto& [k, v] : options) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  options.emplace_back(std::move(key), std::move(value));
}

std::optional<std::string_view> handle_kind(std::string_view name) {
  std::size_t i = 0;
  while (i < name.size() && name[i] >= 'a' && name[i] <= 'z') ++i;
  if (i == 0 || i == name.size()) return std::nullopt;
  for (std::size_t j = i; j < name.size(); ++j) {
    if (name[j] < '0' || name[j] > '9') return std::nullopt;
  }
  return name.substr(0, i);
}

std::string quote_token(std::string_view token) {
  bool bare = !token.empty();
  for (unsigned char c : token) bare = bare && is_bare_char(c);
  if (bare) return std::string(token);
  std::string out = "\"";
  for (unsigned char c : token) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string format_header(const Header& header) {
  std::string out = fmt::format("{} {} {}", kMagic, kFormatVersion, quote_token(header.model));
  for (const auto& [key, value] : header.options) {
    out += fmt::format(" {}={}", key, quote_token(value));
  }
  return out;
}

std::string format_step(const Step& step) {
  std::string out = fmt::format("{} {}", step.seed, quote_token(step.action));
  for (const std::string& arg : step.args) {
    out += ' ';
    out += quote_token(arg);
  }
  return out;
}

std::string format_returns(const Step& step) {
  if (step.returns.empty()) return {};
  std::string out = "return";
  for (const std::string& name : step.returns) {
    out += ' ';
    out += name;
  }
  return out;
}

std::string write_trace(const Trace& trace) {
  std::string out = format_header(trace.header) + '\n';
  auto comment = [&](const std::string& text) { out += comment_line(text) + '\n'; };
  for (const Step& step : trace.steps) {
    for (const std::string& c : step.comments_before) comment(c);
    out += format_step(step) + '\n';
    if (!step.returns.empty()) out += format_returns(step) + '\n';
  }
  for (const std::string& c : trace.trailing_comments) comment(c);
  return out;
}

namespace {

// Reads a trace one line at a time: the header line, then steps, each maybe followed by its
// return line; a comment is kept for the step after it.
class TraceReader {
 public:
  explicit TraceReader(std::string_view source) : source_(source) {}

  Result<Trace> read(std::string_view text);

 private:
  // "SOURCE:LINE: message", for the line read last.
  Status fail(const std::string& message) const {
    return Status::invalid(fmt::format("{}:{}: {}", source_, line_no_, message));
  }
  Status read_line(std::string_view line);
  Status read_header(const std::vector<std::string>& tokens);
  Status read_returns(const std::vector<std::string>& tokens);
  Status read_step(const std::vector<std::string>& tokens);

  std::string_view source_;
  Trace trace_;
  std::size_t line_no_ = 0;
  bool have_header_ = false;
  std::vector<std::string> pending_comments_;
  std::unordered_map<std::string, std::size_t> returned_on_;  // handle name -> line
};

Result<Trace> TraceReader::read(std::string_view text) {
  // A byte order mark, as some editors write one, is not part of the header.
  std::size_t pos = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no_;
    if (Status st = read_line(line); !st) return st;
  }
  if (!have_header_) {
    line_no_ = 1;
    return fail(fmt::format("empty: a trace starts with '{} {} MODEL'", kMagic, kFormatVersion));
  }
  trace_.trailing_comments = std::move(pending_comments_);
  return std::move(trace_);
}

Status TraceReader::read_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find('\0') != std::string_view::npos) {
    return fail("a NUL byte; a trace is a text file");
  }
  Tokenizer tok{line};
  if (tok.done()) return Status::ok();  // blank line
  if (line[tok.pos] == '#') {
    if (!have_header_) return fail("a comment before the header line");
    pending_comments_.push_back(trim_comment(line.substr(tok.pos)));
    return Status::ok();
  }
  std::vector<std::string> tokens;
  std::string error;
  while (!tok.done()) {
    auto t = tok.next(error);
    if (!t) return fail(error);
    tokens.push_back(std::move(*t));
  }
  if (!have_header_) return read_header(tokens);
  if (tokens[0] == "return") return read_returns(tokens);
  return read_step(tokens);
}

Status TraceReader::read_header(const std::vector<std::string>& tokens) {
  if (tokens[0] != kMagic || tokens.size() < 3) {
    return fail(
        fmt::format("not a prowl trace: the first line must be '{} {} MODEL [KEY=VALUE...]'",
                    kMagic, kFormatVersion));
  }
  if (tokens[1] != std::to_string(kFormatVersion)) {
    return fail(fmt::format("trace format version '{}' is not supported (this prowl reads {})",
                            tokens[1], kFormatVersion));
  }
  trace_.header.model = tokens[2];
  // Each option is one token, KEY=VALUE, its value unquoted already.
  for (std::size_t i = 3; i < tokens.size(); ++i) {
    const std::size_t eq = tokens[i].find('=');
    if (eq == std::string::npos || !is_option_key(tokens[i].substr(0, eq))) {
      return fail(fmt::format("option '{}' is not KEY=VALUE", tokens[i]));
    }
    std::string key = tokens[i].substr(0, eq);
    if (trace_.header.option(key)) return fail(fmt::format("option '{}' given twice", key));
    trace_.header.options.emplace_back(std::move(key), tokens[i].substr(eq + 1));
  }
  have_header_ = true;
  return Status::ok();
}

Status TraceReader::read_returns(const std::vector<std::string>& tokens) {
  if (trace_.steps.empty()) return fail("a return line before any step");
  Step& last = trace_.steps.back();
  if (!last.returns.empty() || !pending_comments_.empty() || tokens.size() < 2) {
    return fail(tokens.size() < 2 ? "a return line without names (expected 'return NAME...')"
                                  : "a return line that does not directly follow its step");
  }
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    if (!handle_kind(tokens[i])) {
      return fail(fmt::format(
          "'{}' is not a handle name (lower-case letters then a number, e.g. t12)", tokens[i]));
    }
    auto [it, fresh] = returned_on_.emplace(tokens[i], line_no_);
    if (!fresh) {
      return fail(fmt::format("handle {} was already returned on line {}", tokens[i], it->second));
    }
    last.returns.push_back(tokens[i]);
  }
  return Status::ok();
}

Status TraceReader::read_step(const std::vector<std::string>& tokens) {
  Step step;
  const std::string& seed = tokens[0];
  auto [ptr, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), step.seed);
  if (ec != std::errc() || ptr != seed.data() + seed.size()) {
    return fail(fmt::format(
        "expected a step 'SEED ACTION [ARG...]' (SEED a number up to 2^64-1), a return line or a "
        "'#' comment; found '{}'",
        seed));
  }
  if (tokens.size() < 2) return fail("a step without an action (expected 'SEED ACTION [ARG...]')");
  step.action = tokens[1];
  step.args.assign(tokens.begin() + 2, tokens.end());
  step.comments_before = std::move(pending_comments_);
  pending_comments_.clear();
  step.line = line_no_;
  trace_.steps.push_back(std::move(step));
  return Status::ok();
}

}  // namespace

Result<Trace> parse_trace(std::string_view text, std::string_view source) {
  return TraceReader(source).read(text);
}

Result<Trace> read_trace_file(const std::string& path) {
  Result<std::string> text = read_text_file(path, "trace file");
  if (!text) return text.status();
  return parse_trace(*text, path);
}

Status write_trace_file(const std::string& path, const Trace& trace) {
  const std::string text = write_trace(trace);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (file) file.close();
  if (!file) {
    return Status::environment(
        fmt::format("cannot write trace file '{}': {}", path, std::strerror(errno)));
  }
  return Status::ok();
}

std::string shrunk_trace_path(std::string_view path) {
  std::filesystem::path p(path);
  const std::filesystem::path name = p.filename();
  if (name.empty()) return std::string(path) + ".shrunk";
  p.replace_filename(name.stem().string() + ".shrunk" + name.extension().string());
  return p.string();
}

void TraceWriter::line(const std::string& text) {
  std::string out = text + '\n';
  const char* data = out.data();
  std::size_t left = out.size();
  while (ok_ && left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok_ = false;
      break;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void TraceWriter::header(const Header& header) { line(format_header(header)); }

void TraceWriter::step(const Step& step) {
  for (const std::string& c : step.comments_before) comment(c);
  line(format_step(step));
}

void TraceWriter::returns(const std::vector<std::string>& names) {
  if (names.empty()) return;
  Step s;
  s.returns = names;
  line(format_returns(s));
}

void TraceWriter::comment(std::string_view text) { line(comment_line(text)); }

}  // namespace prowl::trace
