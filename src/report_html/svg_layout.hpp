// Graphviz, for the HTML report: a DOT text laid out by the dot layout and rendered as SVG, in
// this process (libgvc). Graphviz keeps global state and is not thread-safe: every call holds one
// process-wide mutex while Graphviz runs, so it is safe to call from any thread, one at a time.
// One Graphviz context serves the process and lives as long as it; its text layout (pango and
// fontconfig) keeps caches that LeakSanitizer reports at exit (tests/lsan.supp).
#pragma once

#include <string>

#include "prowl/core/status.hpp"

namespace prowl::detail {

// `dot` laid out and rendered as an <svg> element to inline in HTML: from its "<svg" on, without
// the XML prolog, doctype and comments. Graphviz escapes the labels' & < > " ' itself. An
// environment Status with Graphviz's own message when it cannot read or lay out the graph.
Result<std::string> layout_svg(const std::string& dot);

}  // namespace prowl::detail
