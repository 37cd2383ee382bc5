#include "prowl/report/dot.hpp"

#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/report/console.hpp"
#include "report_file.hpp"

namespace prowl {

namespace {

constexpr std::string_view kFont = "Helvetica,Arial,sans-serif";
constexpr std::string_view kRed = "#d62728";
constexpr std::string_view kOrange = "#ff7f0e";
// What an edge label shows at most: names per edge, and characters per name.
constexpr std::size_t kLabelNames = 3;
constexpr std::size_t kLabelChars = 40;
constexpr std::size_t kTooltipNames = 20;

// `text` cut after `chars` characters (UTF-8: continuation bytes never start one), with "…".
std::string shortened(const std::string& text, std::size_t chars) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (count++ == chars) return text.substr(0, i) + "…";
  }
  return text;
}

// An already escaped text as the inside of a DOT quoted string (dot_quoted without escape_text).
std::string quoted_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string finding_ref(const RunReport& r, std::size_t i) {
  return fmt::format("[{}] {}", i + 1, escape_text(r.findings[i].name));
}

std::string node_tooltip(const RunReport& r, const ViewNode& node) {
  std::string tip;
  switch (node.kind) {
    case ViewNode::Kind::kState:
      tip = node.initial() ? "state 0 (the initial state)" : fmt::format("state {}", node.state);
      break;
    case ViewNode::Kind::kStep:
      tip = "a state off the recorded graph";
      break;
    case ViewNode::Kind::kFails:
      tip = "the step failed";
      break;
  }
  if (!node.failing.empty()) {
    std::vector<std::string> refs;
    for (std::size_t i : node.failing) refs.push_back(finding_ref(r, i));
    tip += fmt::format("; fails here: {}", fmt::join(refs, ", "));
  }
  return tip;
}

std::string_view mark_class(PathMark mark) {
  switch (mark) {
    case PathMark::kShortestPath:
      return " path shortest";
    case PathMark::kOtherPath:
      return " path other";
    default:
      return "";
  }
}

void write_node(std::ostringstream& out, const RunReport& r, const GraphView& v, std::size_t i) {
  const ViewNode& node = v.nodes[i];
  static constexpr std::string_view kKind[] = {"state", "step", "fails"};
  std::string attrs = fmt::format(
      "label=\"{}\", class=\"{}{}{}{}\", tooltip=\"{}\"", node_label(node),
      kKind[static_cast<int>(node.kind)], node.initial() ? " initial" : "", mark_class(node.mark),
      node.failing.empty() ? "" : " failing", quoted_escaped(node_tooltip(r, node)));
  if (node.initial()) attrs += ", shape=doublecircle";
  if (node.kind == ViewNode::Kind::kStep) attrs += ", width=0.18";
  if (node.kind == ViewNode::Kind::kFails) attrs += ", shape=octagon, fontcolor=\"#ffffff\"";
  // Red for a failed step, pink for a failing state, blue for the initial state.
  if (node.kind == ViewNode::Kind::kFails) {
    attrs += fmt::format(", fillcolor=\"{}\"", kRed);
  } else if (!node.failing.empty()) {
    attrs += ", fillcolor=\"#fde2e1\"";
  } else if (node.initial()) {
    attrs += ", fillcolor=\"#dbeafe\"";
  } else if (node.kind == ViewNode::Kind::kStep) {
    attrs += ", fillcolor=\"#e5e7eb\"";
  }
  if (node.mark == PathMark::kShortestPath) {
    attrs += fmt::format(", color=\"{}\", penwidth=2", kRed);
  } else if (node.mark == PathMark::kOtherPath) {
    attrs += fmt::format(", color=\"{}\", penwidth=1.6", kOrange);
  }
  out << fmt::format("  n{} [{}];\n", i, attrs);
}

void write_edge(std::ostringstream& out, const ViewEdge& e, bool labelled) {
  std::vector<std::string> names;
  for (const std::string& a : e.actions) names.push_back(escape_text(a));
  std::vector<std::string> lines;
  for (std::size_t k = 0; k < names.size() && k < kLabelNames; ++k) {
    lines.push_back(quoted_escaped(shortened(names[k], kLabelChars)));
  }
  if (names.size() > kLabelNames)
    lines.push_back(fmt::format("+{} more", names.size() - kLabelNames));
  std::vector<std::string> tips;
  for (std::size_t k = 0; k < names.size() && k < kTooltipNames; ++k) {
    tips.push_back(quoted_escaped(names[k]));
  }
  if (names.size() > kTooltipNames) {
    tips.push_back(fmt::format("+{} more", names.size() - kTooltipNames));
  }
  std::string attrs;
  if (labelled || e.mark != PathMark::kNone) {
    attrs = fmt::format("label=\"{}\", ", fmt::join(lines, "\\n"));
  }
  attrs += fmt::format("class=\"transition{}\", tooltip=\"{}\"", mark_class(e.mark),
                       fmt::join(tips, ", "));
  if (e.mark == PathMark::kShortestPath) {
    attrs += fmt::format(", color=\"{}\", fontcolor=\"{}\", penwidth=2.2", kRed, kRed);
  } else if (e.mark == PathMark::kOtherPath) {
    attrs +=
        fmt::format(", color=\"{}\", fontcolor=\"#c2410c\", penwidth=1.6, style=dashed", kOrange);
  }
  out << fmt::format("  n{} -> n{} [{}];\n", e.from, e.to, attrs);
}

}  // namespace

std::string dot_quoted(std::string_view text) { return quoted_escaped(escape_text(text)); }

std::string to_dot(const RunReport& r, const GraphView& v, const DotOptions& options) {
  std::ostringstream out;
  out << "digraph prowl {\n";
  // newrank: Graphviz's other ranking, which lays out a dense neighbourhood of 500 states with
  // thousands of transitions in a fraction of a second where the default takes minutes.
  out << fmt::format("  graph [newrank=true, fontname=\"{}\", fontsize=11", kFont);
  if (options.title) {
    out << fmt::format(", labelloc=t, label=\"{}: {}\\n{}\"", dot_quoted(r.model), findings_text(r),
                       quoted_escaped(drawn_text(v)));
  }
  out << "];\n";
  out << fmt::format(
      "  node [fontname=\"{}\", fontsize=10, shape=circle, width=0.3, margin=0.02, "
      "style=filled, fillcolor=\"#ffffff\", color=\"#4b5563\"];\n",
      kFont);
  out << fmt::format(
      "  edge [fontname=\"{}\", fontsize=9, color=\"#9ca3af\", fontcolor=\"#4b5563\", "
      "arrowsize=0.6];\n",
      kFont);
  for (std::size_t i = 0; i < v.nodes.size(); ++i) write_node(out, r, v, i);
  for (const ViewEdge& e : v.edges) write_edge(out, e, v.labelled);
  out << "}\n";
  return out.str();
}

std::string to_dot(const RunReport& report) {
  return to_dot(report, select_graph(report), DotOptions{});
}

Status write_dot_report(const RunReport& report, const std::string& path) {
  return detail::write_report_file(path, to_dot(report), "DOT");
}

}  // namespace prowl
