// The DOT report: the graph view as a digraph, every field as the golden files have it, and
// names from the system under test kept inside their quoted strings. That Graphviz reads it is
// tested with the real `dot` on the demo's report (tests/cli) and, for hostile names, with the
// same library in-process (html_test.cpp).
#include "prowl/report/dot.hpp"

#include <gtest/gtest.h>

#include <string>

#include "golden.hpp"
#include "graph_report.hpp"
#include "prowl/report/format.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::graph_report;
using testing::hostile_report;
using testing::matches_golden;
using testing::sample_report;

TEST(DotReport, DrawsTheGraphAsTheGoldenFile) {
  EXPECT_TRUE(matches_golden("report_graph.dot", to_dot(graph_report())));
}

TEST(DotReport, DrawsThePathsAloneWithoutAGraph) {
  EXPECT_TRUE(matches_golden("report_paths.dot", to_dot(sample_report())));
}

TEST(DotReport, KeepsHostileNamesInsideTheirQuotedStrings) {
  RunReport r = hostile_report();
  r.findings[0].steps[0].action = "a\"b\\c\\N&lt;<script>\n]; x [label=\"pwned\xff";
  const std::string text = to_dot(r);
  EXPECT_TRUE(matches_golden("report_hostile.dot", text));
  // In full in the tooltip (the label is cut after 40 characters).
  EXPECT_NE(
      text.find("tooltip=\"a\\\"b\\\\c\\\\N&amp;lt;<script>\\\\n]; x [label=\\\"pwned\\\\xff\""),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("\x1b"), std::string::npos);
  EXPECT_EQ(text.find("[label=\"pwned"), std::string::npos);
}

TEST(DotReport, QuotesEscapedTextForGraphviz) {
  EXPECT_EQ(dot_quoted("plain"), "plain");
  EXPECT_EQ(dot_quoted("a\"b"), "a\\\"b");
  EXPECT_EQ(dot_quoted("C:\\dir\\N"), "C:\\\\dir\\\\N");
  EXPECT_EQ(dot_quoted("x & y &amp;"), "x &amp; y &amp;amp;");
  EXPECT_EQ(dot_quoted("two\nlines\x1b[0m"), "two\\\\nlines\\\\e[0m");
}

TEST(DotReport, CutsLongNamesAndListsAtMostThreePerEdge) {
  RunReport r = graph_report();
  r.coverage[0].name = std::string(38, 'x') + "éèê";  // cut after 40 characters, not bytes
  r.coverage[3].name = "audit";
  r.graph->edges.push_back({5, 1, 0});
  r.graph->edges.push_back({5, 2, 0});
  const std::string text = to_dot(r);
  EXPECT_NE(text.find("n5 -> n0 [label=\"" + std::string(38, 'x') +
                      "éè…\\naudit\\nrefund\\n+1 "
                      "more\", class=\"transition\", tooltip=\"" +
                      std::string(38, 'x') + "éèê, audit, refund, cancel\"];"),
            std::string::npos)
      << text;
}

TEST(DotReport, IsAReportFormatThatNeedsTheGraph) {
  const ReportFormat* dot = find_report_format("dot");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->label, "DOT");
  EXPECT_TRUE(dot->needs_graph);
  EXPECT_EQ(dot->render(graph_report()), to_dot(graph_report()));
  EXPECT_TRUE(reports_need_graph({{"json", "a.json"}, {"dot", "a.dot"}}));
  EXPECT_FALSE(reports_need_graph({{"json", "a.json"}, {"junit", "a.xml"}}));
}

TEST(DotReport, AnUnwritablePathIsAnEnvironmentFailureNamingTheFile) {
  const std::string path = "/nonexistent-dir/report.dot";
  const Status st = write_dot_report(sample_report(), path);
  EXPECT_FALSE(st);
  EXPECT_EQ(st.message().rfind("cannot write DOT report '" + path + "'", 0), 0u) << st.message();
}

}  // namespace
}  // namespace prowl
