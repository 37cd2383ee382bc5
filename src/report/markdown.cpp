#include "prowl/report/markdown.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/groups.hpp"
#include "report_file.hpp"

namespace prowl {

namespace {

// The longest run of backticks in `text`.
std::size_t longest_backticks(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// `text` as an inline code span, escaped to one line: its delimiters are longer than any run of
// backticks inside, and padded with spaces when it starts or ends with one.
std::string code(std::string_view raw) {
  const std::string text = escape_text(raw);
  const std::string ticks(longest_backticks(text) + 1, '`');
  if (text.empty()) return "` `";
  // A space, padding or the text's own, is stripped from both ends when both have one.
  const bool pad =
      text.front() == '`' || text.back() == '`' || (text.front() == ' ' && text.back() == ' ');
  return ticks + (pad ? " " : "") + text + (pad ? " " : "") + ticks;
}

// A code span in a table: GitHub ends a cell at any '|' not escaped, code spans included.
std::string cell(std::string_view raw) {
  std::string out;
  for (char c : code(raw)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// `text` (escaped, lines kept) as a fenced block whose fence no line of it can close.
std::string block(std::string_view raw, std::string_view info = "") {
  std::string text = escape_lines(raw);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const std::string fence(std::max<std::size_t>(3, longest_backticks(text) + 1), '`');
  return fmt::format("{}{}\n{}\n{}\n", fence, info, text, fence);
}

// A Mermaid label: letters, digits and a few safe marks as they are, every other character as
// Mermaid's #code; entity, so that quotes, brackets and pipes cannot end the label.
std::string mermaid_label(std::string_view raw) {
  std::string out;
  for (unsigned char c : escape_text(raw)) {
    if (std::isalnum(c) || c == ' ' || c == '_' || c == '.' || c == ',' || c == '=' || c == '-' ||
        c >= 0x80) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("#{};", static_cast<int>(c));
    }
  }
  return out;
}

// The shortest path as a left-to-right chain of states, the last one the failing state.
void write_diagram(std::ostringstream& out, const Finding& f) {
  out << "```mermaid\nflowchart LR\n  s0([start])\n";
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    const bool last = i + 1 == f.steps.size();
    out << fmt::format("  s{} -->|\"{}\"| s{}{}\n", i, mermaid_label(f.steps[i].action), i + 1,
                       last ? "([fails])" : fmt::format("(({}))", i + 1));
  }
  if (f.steps.empty()) out << "  s0 --> fails([the initial state fails])\n";
  out << "```\n\n";
}

void write_markdown_group(std::ostringstream& out, const RunReport& r, const FindingGroup& g) {
  const std::size_t first = g.findings.front();
  const Finding& f = r.findings[first];
  out << fmt::format("### [{}] {} {} {}\n\n", first + 1, to_string(f.severity), to_string(f.kind),
                     code(f.name));
  write_diagram(out, f);
  std::ostringstream text;
  write_finding_group(text, r, g);
  out << block(text.str()) << '\n';
}

void write_markdown_coverage(std::ostringstream& out, const RunReport& r) {
  out << fmt::format("### Coverage: {:.1f}% of actions ran\n\n", 100.0 * r.action_coverage());
  if (r.coverage.empty()) return;
  out << "| action | enabled | executed | ok | rejected | errors |\n";
  out << "|---|--:|--:|--:|--:|--:|\n";
  for (const ActionCoverage& c : r.coverage) {
    out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(c.name), c.enabled, c.executed,
                       c.ok, c.rejected, c.errors);
  }
  out << '\n';
}

}  // namespace

std::string to_markdown(const RunReport& r) {
  std::ostringstream out;
  out << fmt::format("## prowl: {} — {}\n\n", code(r.model), findings_text(r));
  out << "| strategy | seed | termination | states | transitions | steps | seconds |\n";
  out << "|---|---|---|--:|--:|--:|--:|\n";
  out << fmt::format("| {} | {} | {} | {} | {} | {} | {:.3f} |\n\n", cell(r.strategy), r.seed,
                     to_string(r.termination), r.stats.states, r.stats.transitions, r.stats.steps,
                     r.stats.seconds);
  if (!r.error.empty()) out << "The run failed:\n\n" << block(r.error) << '\n';
  for (const FindingGroup& g : group_findings(r.findings)) write_markdown_group(out, r, g);
  write_markdown_coverage(out, r);
  if (!r.warnings.empty()) {
    out << "### Warnings\n\n";
    for (const std::string& w : r.warnings) out << "- " << code(w) << '\n';
    out << '\n';
  }
  return out.str();
}

Status write_markdown_report(const RunReport& report, const std::string& path) {
  return detail::write_report_file(path, to_markdown(report), "Markdown");
}

}  // namespace prowl
