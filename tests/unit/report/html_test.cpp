// The HTML report: every field as the golden files have them (the SVG, whose coordinates depend
// on the fonts Graphviz finds, is checked apart: one SVG node per view node, one edge per view
// edge, the paths' classes), the page's policy against scripts and fetches, text from the system
// under test escaped in the page and in the SVG, the node budget, and Graphviz's errors.
#include "prowl/report_html/html.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <string>
#include <vector>

#include "golden.hpp"
#include "graph_report.hpp"
#include "prowl/report/format.hpp"
#include "report_html/svg_layout.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::graph_report;
using testing::hostile_report;
using testing::matches_golden;
using testing::tree_report;

constexpr std::string_view kFigure = "<figure class=\"graph\">\n";

// The page with the SVG in its figure replaced by a mark, for the golden files.
std::string masked(std::string html) {
  const std::size_t begin = html.find(kFigure);
  const std::size_t end = html.find("</figure>");
  if (begin == std::string::npos || end == std::string::npos) return html;
  const std::size_t from = begin + kFigure.size();
  html.replace(from, end - from, "(the SVG Graphviz drew)\n");
  return html;
}

std::string svg_of(const std::string& html) {
  const std::size_t begin = html.find("<svg");
  const std::size_t end = html.find("</svg>");
  if (begin == std::string::npos || end == std::string::npos) return "";
  return html.substr(begin, end + 6 - begin);
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The graph report with the HTTP exchanges of a service: one answered, one never answered.
RunReport http_report() {
  RunReport r = graph_report();
  r.findings[0].steps[0].http = HttpExchange{.method = "POST",
                                             .url = "http://127.0.0.1:8080/orders?a=1&b=2",
                                             .status = 201,
                                             .request_body = "{\"item\": \"</pre><script>\"}",
                                             .response_body = "{\"id\": 0}\n"};
  r.findings[0].steps[2].http =
      HttpExchange{.method = "POST", .url = "http://127.0.0.1:8080/orders/0/refund"};
  return r;
}

TEST(HtmlReport, RendersEveryFieldAsTheGoldenFile) {
  const std::string html = to_html(http_report());
  EXPECT_TRUE(matches_golden("report.html", masked(html)));
}

TEST(HtmlReport, DrawsEveryNodeAndEdgeOfTheViewWithThePathsClasses) {
  const RunReport r = graph_report();
  const std::string svg = svg_of(to_html(r));
  const GraphView view = select_graph(r);
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(count(svg, "<g id=\"node"), view.nodes.size());
  EXPECT_EQ(count(svg, "<g id=\"edge"), view.edges.size());
  EXPECT_EQ(count(svg, "class=\"node state initial path shortest failing\""), 1u) << svg;
  EXPECT_EQ(count(svg, "class=\"node fails path shortest failing\""), 2u) << svg;
  EXPECT_EQ(count(svg, "class=\"edge transition path shortest\""), 5u) << svg;
  EXPECT_EQ(count(svg, "class=\"edge transition path other\""), 4u) << svg;
  // create_order labels 0 -> 1, 1 -> 3, 0 -> fails, and is one line of 5 -> 0.
  EXPECT_EQ(count(svg, ">create_order</text>"), 4u) << svg;
  EXPECT_EQ(svg.find("<!--"), std::string::npos);
}

TEST(HtmlReport, LoadsNothingAndRunsNothing) {
  const std::string html = to_html(http_report());
  EXPECT_NE(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src 'unsafe-inline'; img-src data:\">\n"),
            std::string::npos);
  for (std::string_view markup : {"<script", "<link", " src=", "href=\"http", "url(", "@import"}) {
    EXPECT_EQ(html.find(markup), std::string::npos) << markup;
  }
}

TEST(HtmlReport, EscapesHostileTextInThePageAndInTheGraph) {
  RunReport r = hostile_report();
  r.findings[0].steps[0].action = "<script>&\"\\\xff";
  r.findings[0].name = "x'><img src=x onerror=alert(1)>";
  const std::string html = to_html(r);
  EXPECT_TRUE(matches_golden("report_hostile.html", masked(html)));
  const std::string escaped = "&lt;script&gt;&amp;&quot;\\\\xff";
  EXPECT_NE(html.find("<code class=\"action\">" + escaped + "</code>"), std::string::npos);
  const std::string svg = svg_of(html);
  EXPECT_NE(svg.find(">" + escaped + "</text>"), std::string::npos) << svg;
  EXPECT_NE(html.find("x&#39;&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  for (std::string_view markup : {"<script", "<img", "\x1b", "\xff", "\xc2\x9b", "\xe2\x80\xae"}) {
    EXPECT_EQ(html.find(markup), std::string::npos) << markup;
  }
}

TEST(HtmlReport, DrawsNoMoreStatesThanTheBudgetAndSaysHowMany) {
  const std::string html = to_html(tree_report(100000, 16), {.graph = {.node_budget = 100}});
  EXPECT_EQ(count(svg_of(html), "<g id=\"node"), 100u);
  EXPECT_NE(html.find("<p class=\"drawn\">drawn: 100 of 100,000 states and "), std::string::npos);
  EXPECT_NE(html.find("in the graph: 0 &rarr; 1 &rarr; 3 &rarr; 7 &rarr; 15 &rarr; 31"),
            std::string::npos);
}

TEST(HtmlReport, RendersTheSamePageFromManyThreads) {
  const RunReport r = graph_report();
  const std::string one = to_html(r);
  std::vector<std::future<std::string>> pages;
  for (int i = 0; i < 4; ++i)
    pages.push_back(std::async(std::launch::async, [&] { return to_html(r); }));
  for (auto& page : pages) EXPECT_EQ(page.get(), one);
}

TEST(HtmlReport, SaysWhyWhenGraphvizCannotReadTheGraph) {
  const Result<std::string> svg = detail::layout_svg("digraph { a -> }");
  ASSERT_FALSE(svg.is_ok());
  EXPECT_EQ(svg.status().code(), StatusCode::kEnvironment);
  EXPECT_EQ(svg.status().message().rfind("Graphviz could not read the state graph: ", 0), 0u)
      << svg.status().message();
  const Result<std::string> good = detail::layout_svg("digraph { a -> b }");
  ASSERT_TRUE(good.is_ok()) << good.status().message();
  EXPECT_EQ(good->rfind("<svg ", 0), 0u) << *good;
  EXPECT_EQ(good->find("<!--"), std::string::npos) << *good;
}

TEST(HtmlReport, RegistersItselfAsAReportFormatThatNeedsTheGraph) {
  register_html_report();
  register_html_report();
  const ReportFormat* html = find_report_format("html");
  ASSERT_NE(html, nullptr);
  EXPECT_EQ(html->label, "HTML");
  EXPECT_TRUE(html->needs_graph);
  EXPECT_EQ(html->render(graph_report()), to_html(graph_report()));
  const auto& names = report_format_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "html"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "dot"), 1);
  EXPECT_TRUE(parse_report_spec("html:out/report.html").is_ok());
  EXPECT_TRUE(reports_need_graph({{"html", "r.html"}}));
}

TEST(HtmlReport, AnUnwritablePathIsAnEnvironmentFailureNamingTheFile) {
  const std::string path = "/nonexistent-dir/report.html";
  const Status st = write_html_report(graph_report(), path);
  EXPECT_FALSE(st);
  EXPECT_EQ(st.message().rfind("cannot write HTML report '" + path + "'", 0), 0u) << st.message();
}

}  // namespace
}  // namespace prowl
