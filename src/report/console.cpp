#include "prowl/report/console.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/core/plural.hpp"
#include "prowl/report/groups.hpp"

namespace prowl {

namespace {

// ANSI colours (SGR sequences) for a terminal; with colour off, text as it is. Only prowl's own
// words are coloured; text from the system under test is escaped before it gets here.
class Paint {
 public:
  explicit Paint(bool on) : on_(on) {}
  std::string operator()(std::string_view text, std::string_view sgr) const {
    if (!on_ || text.empty()) return std::string(text);
    return fmt::format("\x1b[{}m{}\x1b[0m", sgr, text);
  }
  std::string severity(Severity s) const { return (*this)(to_string(s), severity_sgr(s)); }

  static constexpr std::string_view kBold = "1";
  static constexpr std::string_view kRed = "31";
  static constexpr std::string_view kGreen = "32";
  static constexpr std::string_view kYellow = "33";

 private:
  static std::string_view severity_sgr(Severity s) {
    switch (s) {
      case Severity::kCritical:
        return "1;31";  // bold red
      case Severity::kHigh:
        return "31";
      case Severity::kMedium:
        return "33";
      case Severity::kLow:
        return "36";  // cyan
    }
    return "0";
  }
  bool on_;
};

void write_summary(std::ostream& out, const RunReport& r) {
  const double per_transition = r.stats.transitions == 0
                                    ? 0.0
                                    : static_cast<double>(r.stats.replayed_actions) /
                                          static_cast<double>(r.stats.transitions);
  out << fmt::format("model         {}\n", escape_text(r.model));
  out << fmt::format("strategy      {}\n", escape_text(r.strategy));
  out << fmt::format("seed          {}\n", r.seed);
  out << fmt::format("restore mode  {}\n", to_string(r.restore_mode));
  out << fmt::format("termination   {}\n", termination_text(r));
  if (!r.error.empty()) out << fmt::format("error         {}\n", escape_text(r.error));
  out << fmt::format("states        {}\n", r.stats.states);
  out << fmt::format("transitions   {}\n", r.stats.transitions);
  out << fmt::format("steps         {}\n", r.stats.steps);
  out << fmt::format("replayed      {} ({:.2f} per transition)\n",
                     plural(r.stats.replayed_actions, "action", "actions"), per_transition);
  out << fmt::format("seconds       {:.3f}\n", r.stats.seconds);
}

// Writes each line of `text` with `indent` in front of it, escaped (escape_lines): no line of it
// can reach the left margin or carry a control sequence.
void write_indented(std::ostream& out, std::string_view raw, std::string_view indent) {
  const std::string escaped = escape_lines(raw);
  std::string_view text = escaped;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    out << indent << line << '\n';
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

void write_finding(std::ostream& out, std::size_t number, const Finding& f, const Paint& paint) {
  std::string status = f.confirmed             ? std::string("confirmed")
                       : f.unconfirmed.empty() ? std::string("unconfirmed")
                                               : "unconfirmed: " + f.unconfirmed;
  if (f.shrunk_from > 0) status += fmt::format(", shrunk from {} steps", f.shrunk_from);
  out << fmt::format("{} {} {} {} ({})\n", paint(fmt::format("[{}]", number), Paint::kBold),
                     paint.severity(f.severity), to_string(f.kind),
                     paint(escape_text(f.name), Paint::kBold), escape_text(status));
  if (!f.message.empty()) write_indented(out, f.message, "    ");
  if (f.steps.empty()) {
    out << "    steps: none, the initial state fails\n";
  } else {
    out << "    steps:\n";
    for (std::size_t i = 0; i < f.steps.size(); ++i) {
      const TraceStep& s = f.steps[i];
      std::string line = fmt::format("      {}. {}", i + 1, escape_text(s.action));
      if (!s.outcome.empty() && s.outcome != "ok") {
        line += fmt::format(" [{}]", escape_text(s.outcome));
      }
      if (!s.detail.empty()) line += fmt::format(": {}", escape_text(s.detail));
      if (i + 1 == f.steps.size()) line += "  " + paint("<- fails", Paint::kRed);
      out << line << '\n';
    }
  }
  if (!f.state.empty()) {
    out << "    state:\n";
    write_indented(out, f.state, "      ");
  }
}

// A group's other paths, by their numbers (the trace files' too), final actions and lengths.
void write_also_reached(std::ostream& out, const RunReport& r, const FindingGroup& g) {
  if (g.findings.size() < 2) return;
  std::vector<std::string> others;
  for (std::size_t k = 1; k < g.findings.size(); ++k) {
    const Finding& f = r.findings[g.findings[k]];
    const std::string last = f.steps.empty() ? "the initial state" : escape_text(f.action);
    others.push_back(fmt::format("[{}] {} ({})", g.findings[k] + 1, last,
                                 plural(f.steps.size(), "step", "steps")));
  }
  out << fmt::format("    also reached by {}: {}\n",
                     plural(others.size(), "other path", "other paths"), fmt::join(others, ", "));
}

void write_findings(std::ostream& out, const RunReport& r, const ConsoleOptions& options) {
  for (const FindingGroup& g : group_findings(r.findings)) {
    write_finding_group(out, r, g, options);
    out << '\n';
  }
}

void write_console_coverage(std::ostream& out, const RunReport& r) {
  std::size_t ran = 0;
  for (const auto& c : r.coverage) ran += c.executed > 0;
  out << fmt::format("coverage: {} of {} actions ran ({:.1f}%)\n", ran, r.coverage.size(),
                     100.0 * r.action_coverage());
  if (r.coverage.empty()) return;
  static constexpr std::string_view kHeaders[] = {"enabled", "executed", "ok", "rejected",
                                                  "errors"};
  std::vector<std::string> names;
  for (const auto& c : r.coverage) names.push_back(escape_text(c.name));
  std::size_t name_width = std::string_view("action").size();
  for (const auto& n : names) name_width = std::max(name_width, n.size());
  auto counts = [](const ActionCoverage& c) {
    return std::vector<std::uint64_t>{c.enabled, c.executed, c.ok, c.rejected, c.errors};
  };
  std::vector<std::size_t> widths;
  for (auto h : kHeaders) widths.push_back(h.size());
  for (const auto& c : r.coverage) {
    const auto values = counts(c);
    for (std::size_t i = 0; i < values.size(); ++i) {
      widths[i] = std::max(widths[i], fmt::formatted_size("{}", values[i]));
    }
  }
  std::string header = fmt::format("  {:<{}}", "action", name_width);
  for (std::size_t i = 0; i < widths.size(); ++i) {
    header += fmt::format("  {:>{}}", kHeaders[i], widths[i]);
  }
  out << header << '\n';
  for (std::size_t k = 0; k < r.coverage.size(); ++k) {
    const ActionCoverage& c = r.coverage[k];
    std::string row = fmt::format("  {:<{}}", names[k], name_width);
    const auto values = counts(c);
    for (std::size_t i = 0; i < values.size(); ++i) {
      row += fmt::format("  {:>{}}", values[i], widths[i]);
    }
    out << row << '\n';
  }
}

// One warning for each action that never ran, then the report's warnings that do not repeat one
// (the explorer words its never-ran warnings the same way).
std::vector<std::string> warnings_of(const RunReport& r) {
  std::vector<std::string> lines;
  for (const auto& c : r.coverage) {
    if (c.executed == 0) {
      lines.push_back(fmt::format("action '{}' never ran{}", c.name,
                                  c.enabled == 0 ? " (it was never enabled)" : ""));
    }
  }
  for (const auto& w : r.warnings) {
    if (std::find(lines.begin(), lines.end(), w) == lines.end()) lines.push_back(w);
  }
  return lines;
}

// The summary line with its count of findings in colour: red when there are any, else green.
std::string summary_with(const RunReport& r, std::string_view count) {
  return fmt::format("{}: {}; {}, {}, {} in {:.3f} s ({}, seed {})", escape_text(r.model), count,
                     plural(r.stats.states, "state", "states"),
                     plural(r.stats.transitions, "transition", "transitions"),
                     plural(r.stats.steps, "step", "steps"), r.stats.seconds, termination_text(r),
                     r.seed);
}

std::string painted_summary(const RunReport& r, const Paint& paint) {
  return summary_with(
      r,
      paint(findings_text(r),
            r.findings.empty() ? Paint::kGreen : fmt::format("{};{}", Paint::kBold, Paint::kRed)));
}

}  // namespace

void write_finding_group(std::ostream& out, const RunReport& r, const FindingGroup& group,
                         const ConsoleOptions& options) {
  const std::size_t first = group.findings.front();
  write_finding(out, first + 1, r.findings[first], Paint(options.color));
  write_also_reached(out, r, group);
}

std::string findings_text(const RunReport& r) {
  if (r.findings.empty()) return "no findings";
  const std::size_t groups = group_findings(r.findings).size();
  std::string text = plural(groups, "finding", "findings");
  if (groups < r.findings.size()) text += fmt::format(" ({} paths)", r.findings.size());
  return text;
}

std::string summary_line(const RunReport& r) { return summary_with(r, findings_text(r)); }

void write_console_report(std::ostream& out, const RunReport& report,
                          const ConsoleOptions& options) {
  const Paint paint(options.color);
  if (options.quiet) {
    write_findings(out, report, options);
    out << painted_summary(report, paint) << '\n';
    return;
  }
  write_summary(out, report);
  out << '\n';
  out << findings_text(report) << "\n\n";
  write_findings(out, report, options);
  write_console_coverage(out, report);
  out << '\n';
  const auto warnings = warnings_of(report);
  for (const auto& w : warnings) {
    out << paint("warning:", Paint::kYellow) << ' ' << escape_text(w) << '\n';
  }
  if (!warnings.empty()) out << '\n';
  out << painted_summary(report, paint) << '\n';
}

std::string termination_text(const RunReport& r) {
  if (r.termination != Termination::kSampled) return std::string(to_string(r.termination));
  std::vector<std::string> names;
  for (const auto& n : r.sampled) names.push_back(escape_text(n));
  return fmt::format("exhausted (sampled: {} {})", fmt::join(names, ", "),
                     names.size() == 1 ? "draws values" : "draw values");
}

bool console_color(ColorChoice choice, bool stream_is_terminal) {
  if (choice != ColorChoice::kAuto) return choice == ColorChoice::kAlways;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return stream_is_terminal && (no_color == nullptr || *no_color == '\0') &&
         !(term != nullptr && std::string_view(term) == "dumb");
}

void ProgressLine::update(const Progress& p) {
  if (!(p.seconds > delay_)) return;
  const double rate = static_cast<double>(p.transitions) / p.seconds;
  std::string line =
      fmt::format("{}, {}, {:.0f} transitions/s, {}, {:.1f} s", plural(p.states, "state", "states"),
                  plural(p.transitions, "transition", "transitions"), rate,
                  plural(p.findings, "finding", "findings"), p.seconds);
  const std::size_t shown = line.size();
  if (shown < width_) line.append(width_ - shown, ' ');
  width_ = std::max(width_, shown);
  out_ << '\r' << line << std::flush;
}

void ProgressLog::update(const Progress& p) {
  if (next_ == 0) next_ = every_;
  if (p.seconds < next_) return;
  while (next_ <= p.seconds) next_ += every_;
  out_ << fmt::format("progress: {}, {}, {}, {:.0f} s\n", plural(p.states, "state", "states"),
                      plural(p.transitions, "transition", "transitions"),
                      plural(p.findings, "finding", "findings"), p.seconds)
       << std::flush;
}

void ProgressLine::finish() {
  if (width_ == 0) return;
  out_ << '\r' << std::string(width_, ' ') << '\r' << std::flush;
  width_ = 0;
}

}  // namespace prowl
