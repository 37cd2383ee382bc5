// The HTML report's style sheet, inlined in every page (the page may load nothing). Its colours
// are those of the graph (report/dot.cpp): red for a bug's shortest path, orange for its other
// paths.
#pragma once

#include <string_view>

namespace prowl::detail {

inline constexpr std::string_view kHtmlStyle = R"css(
:root { --red: #d62728; --orange: #ff7f0e; --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb;
        --paper: #ffffff; --tint: #f9fafb; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--tint);
       font: 14px/1.45 "DejaVu Sans", system-ui, -apple-system, "Segoe UI", sans-serif; }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 0 0 6px; }
code, pre { font-family: "DejaVu Sans Mono", ui-monospace, Menlo, Consolas, monospace;
            font-size: 12.5px; }
h1 code, h3 code { font-size: 0.95em; }
pre { background: var(--tint); border: 1px solid var(--line); border-radius: 4px;
      padding: 6px 8px; margin: 4px 0 8px; white-space: pre-wrap; overflow-wrap: anywhere; }
.summary { color: var(--muted); margin: 0 0 8px; overflow-wrap: anywhere; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 6px; padding: 0; margin: 0 0 12px; }
nav a { display: inline-block; padding: 2px 8px; border-radius: 10px; background: #fde2e1;
        color: #991b1b; text-decoration: none; font-size: 12.5px; }
section { background: var(--paper); border: 1px solid var(--line); border-radius: 6px;
          padding: 14px 16px; margin: 0 0 14px; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 0; }
.facts div { min-width: 90px; }
.facts dt { color: var(--muted); font-size: 11.5px; text-transform: uppercase;
            letter-spacing: 0.04em; }
.facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.drawn { color: var(--muted); margin: 0 0 6px; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 0;
          margin: 0 0 8px; color: var(--muted); font-size: 12.5px; }
.swatch { display: inline-block; width: 22px; height: 10px; margin-right: 6px;
          vertical-align: middle; }
.swatch.shortest { border-top: 3px solid var(--red); height: 0; }
.swatch.other { border-top: 2px dashed var(--orange); height: 0; }
.swatch.failing { width: 12px; height: 12px; border-radius: 50%; background: #fde2e1;
                  border: 2px solid var(--red); }
.swatch.fails { width: 14px; height: 12px; background: var(--red); }
.swatch.initial { width: 12px; height: 12px; border-radius: 50%; background: #dbeafe;
                  border: 3px double #4b5563; }
figure.graph { margin: 0; overflow: auto; max-height: 85vh; text-align: center; }
figure.graph svg { max-width: none; height: auto; }
.graph-error { color: var(--red); }
.bug { border-top: 1px solid var(--line); padding: 12px 0 4px; }
.bug:first-of-type { border-top: 0; padding-top: 0; }
.number { color: var(--muted); }
.severity { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 12px;
            color: #fff; background: var(--muted); }
.severity.critical { background: #991b1b; }
.severity.high { background: var(--red); }
.severity.medium { background: #d97706; }
.kind { color: var(--muted); font-weight: normal; }
.status { margin: 0 0 6px; color: var(--muted); }
.status.confirmed { color: #166534; }
.graph-path { color: var(--muted); margin: 0 0 6px; font-size: 12.5px; }
ol.steps { margin: 4px 0 8px; padding-left: 26px; }
.step { margin: 0 0 6px; }
.step.failing > .action { color: var(--red); font-weight: 700; }
.outcome { display: inline-block; padding: 0 5px; border-radius: 3px; font-size: 11.5px;
           background: #e5e7eb; }
.outcome.ok { background: #dcfce7; color: #166534; }
.outcome.rejected { background: #fef3c7; color: #92400e; }
.outcome.error { background: #fde2e1; color: #991b1b; }
.fails-mark { color: var(--red); font-weight: 600; }
.detail { color: var(--muted); font-size: 12.5px; overflow-wrap: anywhere; }
.http { border-left: 3px solid var(--line); padding-left: 8px; margin: 4px 0; }
.http p { margin: 2px 0; }
.method { font-weight: 700; }
.http-status { font-weight: 700; color: #166534; }
.http-status.bad { color: var(--red); }
.body-label, .state-label { color: var(--muted); font-size: 11.5px; text-transform: uppercase;
                            letter-spacing: 0.04em; margin: 6px 0 0; }
.also { margin: 6px 0 4px; }
details.other-path { margin: 0 0 6px 12px; }
details.other-path summary { cursor: pointer; color: #c2410c; }
table.coverage { border-collapse: collapse; }
table.coverage th, table.coverage td { padding: 3px 10px; border-bottom: 1px solid var(--line);
                                       text-align: right; }
table.coverage th:first-child, table.coverage td:first-child { text-align: left; }
table.coverage tr.never td { color: var(--red); }
.warnings li { overflow-wrap: anywhere; }
)css";

}  // namespace prowl::detail
