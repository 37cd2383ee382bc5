// libFuzzer target for the trace reader (docs/trace-format.md). Any bytes may come in: the
// reader must never crash, and must answer what it cannot read with an error naming the line
// ("FILE:LINE: ..."); what it reads must survive a round trip through the writer: the writer's
// text reads back to the same trace and is written again byte for byte. A broken property
// aborts, which libFuzzer reports as a crash.
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "prowl/core/escape.hpp"
#include "prowl/trace/trace.hpp"

namespace {

using prowl::trace::Step;
using prowl::trace::Trace;

// Reports a broken property with the text it was seen on and what came of it.
[[noreturn]] void fail(const char* property, const std::string& text, const std::string& got) {
  std::fprintf(stderr, "trace_reader_fuzzer: %s\n--- text:\n%s\n--- got:\n%s\n---\n", property,
               text.c_str(), got.c_str());
  std::abort();
}

// A comment as the writer keeps it: on one line, its line breaks and other control characters
// escaped (escape_text, which leaves escaped text as it is).
std::string one_line(std::string_view text) { return prowl::escape_text(text); }

bool same_comments(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (one_line(a[i]) != one_line(b[i])) return false;
  }
  return true;
}

// Equal apart from what the format does not keep: the line a step was read from, and the control
// characters inside comments (written escaped).
bool same_trace(const Trace& a, const Trace& b) {
  if (a.header.model != b.header.model || a.header.options != b.header.options ||
      a.steps.size() != b.steps.size() ||
      !same_comments(a.trailing_comments, b.trailing_comments)) {
    return false;
  }
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const Step& x = a.steps[i];
    const Step& y = b.steps[i];
    if (x.seed != y.seed || x.action != y.action || x.args != y.args || x.returns != y.returns ||
        !same_comments(x.comments_before, y.comments_before)) {
      return false;
    }
  }
  return true;
}

// An error reads "fuzz.trace:LINE: what was expected", LINE a line of the text (1 for an empty
// one).
bool names_a_line(const std::string& message, std::string_view text) {
  constexpr std::string_view kPrefix = "fuzz.trace:";
  if (!message.starts_with(kPrefix)) return false;
  std::size_t line = 0;
  const char* first = message.data() + kPrefix.size();
  const char* last = message.data() + message.size();
  auto [ptr, ec] = std::from_chars(first, last, line);
  if (ec != std::errc() || last - ptr < 3 || ptr[0] != ':' || ptr[1] != ' ') return false;
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  return line >= 1 && line <= lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto trace = prowl::trace::parse_trace(text, "fuzz.trace");
  if (!trace) {
    if (!names_a_line(trace.status().message(), text)) {
      fail("an error that does not name its line", std::string(text), trace.status().message());
    }
    return 0;
  }
  const std::string written = prowl::trace::write_trace(*trace);
  auto again = prowl::trace::parse_trace(written, "written.trace");
  if (!again) {
    fail("the writer's text does not read back", written, again.status().message());
  }
  const std::string rewritten = prowl::trace::write_trace(*again);
  if (!same_trace(*trace, *again)) fail("the trace read back differs", written, rewritten);
  if (rewritten != written) {
    fail("writing the trace read back gives other text", written, rewritten);
  }
  return 0;
}
