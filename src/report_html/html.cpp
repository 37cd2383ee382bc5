#include "prowl/report_html/html.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "html_style.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/dot.hpp"
#include "prowl/report/format.hpp"
#include "prowl/report/groups.hpp"
#include "svg_layout.hpp"

namespace prowl {

namespace {

// HTML's special characters as entities, in text and in attributes (written between double
// quotes). `text` has been through escape_text or escape_lines.
std::string entities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A value from the system under test or the model, on one line.
std::string html(std::string_view raw) { return entities(escape_text(raw)); }
// The same for a multi-line value (in <pre>).
std::string html_lines(std::string_view raw) { return entities(escape_lines(raw)); }

std::string counted(std::uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", with_commas(n), n == 1 ? one : many);
}

void write_run(std::ostringstream& out, const RunReport& r) {
  const std::vector<std::pair<std::string_view, std::string>> facts = {
      {"model", "<code>" + html(r.model) + "</code>"},
      {"strategy", html(r.strategy)},
      {"termination", entities(termination_text(r))},
      {"states", with_commas(r.stats.states)},
      {"transitions", with_commas(r.stats.transitions)},
      {"steps", with_commas(r.stats.steps)},
      {"max depth", with_commas(r.stats.max_depth)},
      {"seconds", fmt::format("{:.3f}", r.stats.seconds)},
      {"seed", std::to_string(r.seed)},
      {"restore mode", std::string(to_string(r.restore_mode))},
      {"findings", findings_text(r)}};
  out << "<section id=\"run\">\n<dl class=\"facts\">\n";
  for (const auto& [name, value] : facts) {
    out << fmt::format("<div><dt>{}</dt><dd>{}</dd></div>\n", name, value);
  }
  out << "</dl>\n";
  if (!r.error.empty()) {
    out << "<p class=\"run-error\">The run failed:</p>\n<pre class=\"error\">"
        << html_lines(r.error) << "</pre>\n";
  }
  out << "</section>\n";
}

// The SVG of the view, or why there is none.
void write_graph(std::ostringstream& out, const RunReport& r, const GraphView& view) {
  out << "<section id=\"graph\">\n<h2>State graph</h2>\n";
  out << "<p class=\"drawn\">" << entities(drawn_text(view)) << "</p>\n";
  out << "<ul class=\"legend\">"
         "<li><span class=\"swatch shortest\"></span>a bug's shortest path</li>"
         "<li><span class=\"swatch other\"></span>another path to it</li>"
         "<li><span class=\"swatch failing\"></span>the state it fails in</li>"
         "<li><span class=\"swatch fails\"></span>a step that failed</li>"
         "<li><span class=\"swatch initial\"></span>the initial state</li></ul>\n";
  const Result<std::string> svg = detail::layout_svg(to_dot(r, view, {.title = false}));
  if (svg) {
    out << "<figure class=\"graph\">\n" << *svg << "</figure>\n";
  } else {
    out << "<p class=\"graph-error\">" << html_lines(svg.status().message()) << "</p>\n";
  }
  out << "</section>\n";
}

void write_http(std::ostringstream& out, const HttpExchange& x) {
  out << fmt::format(
      "<div class=\"http\"><p><span class=\"method\">{}</span> <code class=\"url\">{}</code> "
      "&rarr; <span class=\"http-status{}\">{}</span></p>\n",
      html(x.method), html(x.url), x.status >= 400 || x.status == 0 ? " bad" : "",
      x.status == 0 ? std::string("no response") : std::to_string(x.status));
  if (!x.request_body.empty()) {
    out << "<p class=\"body-label\">request</p><pre class=\"body request\">"
        << html_lines(x.request_body) << "</pre>\n";
  }
  if (!x.response_body.empty()) {
    out << "<p class=\"body-label\">response</p><pre class=\"body response\">"
        << html_lines(x.response_body) << "</pre>\n";
  }
  out << "</div>\n";
}

void write_steps(std::ostringstream& out, const Finding& f) {
  if (f.steps.empty()) {
    out << "<p class=\"steps none\">steps: none, the initial state fails</p>\n";
    return;
  }
  out << "<ol class=\"steps\">\n";
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    const TraceStep& s = f.steps[i];
    const bool last = i + 1 == f.steps.size();
    out << fmt::format("<li class=\"step{}\"><code class=\"action\">{}</code>",
                       last ? " failing" : "", html(s.action));
    if (!s.outcome.empty()) {
      out << fmt::format(" <span class=\"outcome {}\">{}</span>", html(s.outcome), html(s.outcome));
    }
    if (last) out << " <span class=\"fails-mark\">&larr; fails</span>";
    // A step's detail is its exchange on one line when it sent one: shown below, in full.
    const bool exchange_line = s.http && s.detail.starts_with(s.http->method + " ");
    if (!s.detail.empty() && !exchange_line) {
      out << "\n<div class=\"detail\">" << html(s.detail) << "</div>";
    }
    out << '\n';
    if (s.http) write_http(out, *s.http);
    out << "</li>\n";
  }
  out << "</ol>\n";
}

std::string status_text(const Finding& f) {
  std::string status = f.confirmed             ? std::string("confirmed")
                       : f.unconfirmed.empty() ? std::string("unconfirmed")
                                               : "unconfirmed: " + f.unconfirmed;
  if (f.shrunk_from > 0) status += fmt::format(", shrunk from {} steps", f.shrunk_from);
  return status;
}

// Where finding i's path runs in the drawn graph: "0 → 3 → 7", "fails" for a failed step.
std::string graph_path(const GraphView& view, std::size_t i) {
  std::vector<std::string> labels;
  for (std::size_t n : view.paths[i]) {
    const std::string label = node_label(view.nodes[n]);
    labels.push_back(label.empty() ? "&middot;" : label);
  }
  return fmt::format("{}", fmt::join(labels, " &rarr; "));
}

std::string path_summary(const RunReport& r, std::size_t i) {
  const Finding& f = r.findings[i];
  const std::string last = f.steps.empty() ? "the initial state" : html(f.action);
  return fmt::format("[{}] {} ({})", i + 1, last, counted(f.steps.size(), "step", "steps"));
}

// The group's other paths, listed and each with its steps folded.
void write_other_paths(std::ostringstream& out, const RunReport& r, const FindingGroup& g,
                       const GraphView& view) {
  if (g.findings.size() < 2) return;
  std::vector<std::string> others;
  for (std::size_t k = 1; k < g.findings.size(); ++k)
    others.push_back(path_summary(r, g.findings[k]));
  out << fmt::format("<p class=\"also\">also reached by {}: {}</p>\n",
                     counted(others.size(), "other path", "other paths"), fmt::join(others, ", "));
  for (std::size_t k = 1; k < g.findings.size(); ++k) {
    const std::size_t i = g.findings[k];
    out << fmt::format("<details class=\"other-path\" id=\"finding-{}\"><summary>{}</summary>\n",
                       i + 1, path_summary(r, i));
    out << "<p class=\"graph-path\">in the graph: " << graph_path(view, i) << "</p>\n";
    write_steps(out, r.findings[i]);
    out << "</details>\n";
  }
}

void write_group(std::ostringstream& out, const RunReport& r, const FindingGroup& g,
                 const GraphView& view) {
  const std::size_t first = g.findings.front();
  const Finding& f = r.findings[first];
  out << fmt::format("<article class=\"bug\" id=\"finding-{}\">\n", first + 1);
  out << fmt::format(
      "<h3><span class=\"number\">[{}]</span> <span class=\"severity {}\">{}</span> "
      "<span class=\"kind\">{}</span> <code>{}</code></h3>\n",
      first + 1, to_string(f.severity), to_string(f.severity), to_string(f.kind), html(f.name));
  out << fmt::format("<p class=\"status{}\">{}</p>\n", f.confirmed ? " confirmed" : "",
                     html(status_text(f)));
  if (!f.message.empty()) out << "<pre class=\"message\">" << html_lines(f.message) << "</pre>\n";
  out << "<p class=\"graph-path\">in the graph: " << graph_path(view, first) << "</p>\n";
  write_steps(out, f);
  if (!f.state.empty()) {
    out << "<p class=\"state-label\">state</p>\n<pre class=\"state\">" << html_lines(f.state)
        << "</pre>\n";
  }
  write_other_paths(out, r, g, view);
  out << "</article>\n";
}

void write_coverage(std::ostringstream& out, const RunReport& r) {
  std::size_t ran = 0;
  for (const auto& c : r.coverage) ran += c.executed > 0;
  out << fmt::format(
      "<section id=\"coverage\">\n<h2>Coverage: {} of {} actions ran ({:.1f}%)</h2>\n", ran,
      r.coverage.size(), 100.0 * r.action_coverage());
  if (!r.coverage.empty()) {
    out << "<table class=\"coverage\">\n<thead><tr><th>action</th><th>enabled</th>"
           "<th>executed</th><th>ok</th><th>rejected</th><th>errors</th></tr></thead>\n<tbody>\n";
    for (const ActionCoverage& c : r.coverage) {
      out << fmt::format(
          "<tr{}><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "</tr>\n",
          c.executed == 0 ? " class=\"never\"" : "", html(c.name), with_commas(c.enabled),
          with_commas(c.executed), with_commas(c.ok), with_commas(c.rejected),
          with_commas(c.errors));
    }
    out << "</tbody>\n</table>\n";
  }
  out << "</section>\n";
}

// As the console: one warning for each action that never ran, then the report's own that do not
// repeat one.
void write_warnings(std::ostringstream& out, const RunReport& r) {
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
  if (lines.empty()) return;
  out << "<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n";
  for (const std::string& w : lines) out << "<li>" << html(w) << "</li>\n";
  out << "</ul>\n</section>\n";
}

void write_findings(std::ostringstream& out, const RunReport& r,
                    const std::vector<FindingGroup>& groups, const GraphView& view) {
  out << "<section id=\"findings\">\n<h2>" << findings_text(r) << "</h2>\n";
  if (groups.empty())
    out << "<p class=\"none\">No invariant was broken and no action failed.</p>\n";
  for (const FindingGroup& g : groups) write_group(out, r, g, view);
  out << "</section>\n";
}

}  // namespace

std::string to_html(const RunReport& r, const HtmlOptions& options) {
  const GraphView view = select_graph(r, options.graph);
  const std::vector<FindingGroup> groups = group_findings(r.findings);
  const std::string title = fmt::format("prowl: {} — {}", html(r.model), findings_text(r));
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; img-src data:\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"prowl\">\n";
  out << "<title>" << title << "</title>\n<style>\n" << detail::kHtmlStyle << "</style>\n";
  out << "</head>\n<body>\n<header>\n";
  out << fmt::format("<h1>prowl: <code>{}</code> &mdash; {}</h1>\n", html(r.model),
                     findings_text(r));
  out << "<p class=\"summary\">" << html(summary_line(r)) << "</p>\n";
  if (!groups.empty()) {
    out << "<nav><ul>";
    for (const FindingGroup& g : groups) {
      const std::size_t i = g.findings.front();
      out << fmt::format("<li><a href=\"#finding-{}\">[{}] {}</a></li>", i + 1, i + 1,
                         html(r.findings[i].name));
    }
    out << "</ul></nav>\n";
  }
  out << "</header>\n<main>\n";
  write_run(out, r);
  write_graph(out, r, view);
  write_findings(out, r, groups, view);
  write_coverage(out, r);
  write_warnings(out, r);
  out << "</main>\n</body>\n</html>\n";
  return out.str();
}

Status write_html_report(const RunReport& report, const std::string& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file << to_html(report);
  if (file) file.close();
  if (!file) {
    return Status::environment(
        fmt::format("cannot write HTML report '{}': {}", path, std::strerror(errno)));
  }
  return Status::ok();
}

void register_html_report() {
  register_report_format({.name = "html",
                          .label = "HTML",
                          .render = [](const RunReport& r) { return to_html(r); },
                          .needs_graph = true});
}

}  // namespace prowl
