// The DOT report (`--report dot:FILE`): the explored state graph as a Graphviz `digraph`, for
// `dot -Tsvg` and other Graphviz tools. What it draws is a GraphView (report/graph_view.hpp): the
// findings' paths, each bug's shortest one in red and the others dashed in orange, a failing
// state filled red, a step that failed without reaching a state drawn to a "fails" node, the
// initial state as a double circle, and around the paths as much of the graph as the node budget
// allows; the graph's label says how much that is. Edges are labelled with their actions
// (parallel transitions as one edge). Every text is escaped (escape.hpp) and then written as a DOT
// quoted string that Graphviz shows as it is: `\` and `"` escaped, `&` as an entity, so no name
// can end the string, add an attribute or become a Graphviz escape (\N, \G) or an entity. Needs
// no Graphviz library. Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "prowl/core/status.hpp"
#include "prowl/explore/report.hpp"
#include "prowl/report/graph_view.hpp"

namespace prowl {

struct DotOptions {
  // A graph label naming the model, its findings and what is drawn (the HTML report, which says
  // so in its own text, leaves it out).
  bool title = true;
};

// The report's graph under the default GraphViewOptions.
std::string to_dot(const RunReport& report);

// `view` (select_graph(report, ...)) as a digraph.
std::string to_dot(const RunReport& report, const GraphView& view, const DotOptions& options);

// `text` as the inside of a DOT quoted string that Graphviz shows as `text` escaped
// (escape_text): `\` -> `\\`, `"` -> `\"`, `&` -> `&amp;`.
std::string dot_quoted(std::string_view text);

// Writes to_dot(report) to `path`. An environment Status naming the file when it cannot.
Status write_dot_report(const RunReport& report, const std::string& path);

}  // namespace prowl
