// The Markdown report: every field as the golden files have it, a Mermaid diagram of each bug's
// shortest path, and text from the system under test kept inside code spans and fences it cannot
// close.
#include "prowl/report/markdown.hpp"

#include <gtest/gtest.h>

#include <string>

#include "golden.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::hostile_report;
using testing::matches_golden;
using testing::sample_report;

TEST(MarkdownReport, RendersEveryFieldAsTheGoldenFile) {
  EXPECT_TRUE(matches_golden("report.md", to_markdown(sample_report())));
}

TEST(MarkdownReport, KeepsHostileTextInsideCodeAndLabels) {
  RunReport r = hostile_report();
  // A value that tries to close the fence around it and open a diagram of its own.
  r.findings[0].message += "\n```\n```mermaid\ngraph TD; a-->b\n```";
  r.findings[0].steps[0].action = "create_order\"|x|s9[evil";
  const std::string text = to_markdown(r);
  EXPECT_TRUE(matches_golden("report_hostile.md", text));
  EXPECT_NE(text.find("  s0 -->|\"create_order#34;#124;x#124;s9#91;evil\"| s1([fails])\n"),
            std::string::npos)
      << text;
  // The block holding the message is fenced with four backticks: its three cannot close it.
  EXPECT_NE(text.find("````\n[1] critical invariant_violation no_negative_stock"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("```mermaid\ngraph TD"), std::string::npos) << text;
}

TEST(MarkdownReport, CodeSpansKeepWhatTheirTextStartsAndEndsWith) {
  RunReport r = sample_report();
  r.coverage = {{"", 1, 1, 1, 0, 0}, {" padded ", 1, 1, 1, 0, 0}, {"`ticked`", 1, 1, 1, 0, 0}};
  const std::string text = to_markdown(r);
  EXPECT_NE(text.find("| ` ` | 1 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| `  padded  ` | 1 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| `` `ticked` `` | 1 |"), std::string::npos) << text;
}

TEST(MarkdownReport, AnUnwritablePathIsAnEnvironmentFailureNamingTheFile) {
  const std::string path = "/nonexistent-dir/report.md";
  const Status st = write_markdown_report(sample_report(), path);
  EXPECT_FALSE(st);
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
}

}  // namespace
}  // namespace prowl
