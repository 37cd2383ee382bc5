#include "prowl/report/console.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "golden.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"
#include "refund/refund.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::matches_golden;
using testing::sample_report;

std::string render(const RunReport& r, ConsoleOptions options = {}) {
  std::ostringstream out;
  write_console_report(out, r, options);
  return out.str();
}

TEST(Console, RendersSummaryFindingsCoverageAndWarnings) {
  EXPECT_TRUE(matches_golden("console_full.txt", render(sample_report())));
}

// No text of the system under test reaches the terminal raw: every control character is escaped,
// and no line it holds starts at the left margin.
TEST(Console, EscapesEveryValueOfTheSystemUnderTest) {
  const std::string text = render(testing::hostile_report());
  EXPECT_TRUE(matches_golden("console_hostile.txt", text));
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find("\n[1] critical forged"), std::string::npos);
  EXPECT_EQ(text.find("\n[2] critical forged"), std::string::npos);
  EXPECT_EQ(text.find("\nshop: 0 findings"), std::string::npos);
}

// With colour, the same report with SGR sequences around prowl's own words only: stripped of them
// it is the uncoloured report, and a hostile value's escape stays escaped.
TEST(Console, ColoursSeveritiesFailingStepsWarningsAndTheCount) {
  const std::string text = render(sample_report(), {.color = true});
  EXPECT_TRUE(matches_golden("console_color.txt", text));
  EXPECT_EQ(std::regex_replace(text, std::regex("\x1b\\[[0-9;]*m"), ""), render(sample_report()));
  EXPECT_NE(text.find("\x1b[1m[1]\x1b[0m \x1b[1;31mcritical\x1b[0m invariant_violation "
                      "\x1b[1mrefund_at_most_once\x1b[0m (confirmed)\n"),
            std::string::npos);
  EXPECT_NE(text.find("  \x1b[31m<- fails\x1b[0m\n"), std::string::npos);
  EXPECT_NE(text.find("\x1b[33mwarning:\x1b[0m action 'audit' never ran"), std::string::npos);
  EXPECT_NE(text.find("shop: \x1b[1;31m4 findings\x1b[0m; 1234 states"), std::string::npos);
  const std::string hostile = render(testing::hostile_report(), {.color = true});
  EXPECT_EQ(std::regex_replace(hostile, std::regex("\x1b\\[[0-9;]*m"), ""),
            render(testing::hostile_report()));
}

TEST(Console, ColoursNoFindingsGreen) {
  RunReport r = sample_report();
  r.findings.clear();
  const std::string text = render(r, {.quiet = true, .color = true});
  EXPECT_EQ(text.substr(0, text.find(';')), "shop: \x1b[32mno findings\x1b[0m");
}

// --color auto: a terminal, without NO_COLOR (set and not empty) and not TERM=dumb.
TEST(Console, ColourIsOnForATerminalUnlessNoColorSaysOtherwise) {
  const char* saved_no_color = std::getenv("NO_COLOR");
  const char* saved_term = std::getenv("TERM");
  const std::string no_color = saved_no_color ? saved_no_color : "";
  const std::string term = saved_term ? saved_term : "";
  ::unsetenv("NO_COLOR");
  ::setenv("TERM", "xterm-256color", 1);
  EXPECT_TRUE(console_color(ColorChoice::kAuto, true));
  EXPECT_FALSE(console_color(ColorChoice::kAuto, false));
  EXPECT_TRUE(console_color(ColorChoice::kAlways, false));
  EXPECT_FALSE(console_color(ColorChoice::kNever, true));
  ::setenv("NO_COLOR", "", 1);
  EXPECT_TRUE(console_color(ColorChoice::kAuto, true));  // empty: not set
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(console_color(ColorChoice::kAuto, true));
  EXPECT_TRUE(console_color(ColorChoice::kAlways, true));  // the flag wins
  ::unsetenv("NO_COLOR");
  ::setenv("TERM", "dumb", 1);
  EXPECT_FALSE(console_color(ColorChoice::kAuto, true));
  if (saved_no_color) ::setenv("NO_COLOR", no_color.c_str(), 1);
  if (saved_term) {
    ::setenv("TERM", term.c_str(), 1);
  } else {
    ::unsetenv("TERM");
  }
}

TEST(Console, QuietPrintsOnlyTheFindingsAndTheSummaryLine) {
  EXPECT_TRUE(matches_golden("console_quiet.txt", render(sample_report(), {.quiet = true})));
}

TEST(Console, SaysNoFindingsAndWarnsOfNothingWhenEveryActionRan) {
  RunReport r;
  r.model = "counters";
  r.strategy = "dfs";
  r.seed = 1;
  r.stats = {.states = 1, .transitions = 1, .steps = 1, .seconds = 0.0004};
  r.coverage = {{"inc_0", 1, 1, 1, 0, 0}};
  EXPECT_EQ(
      render(r),
      "model         counters\n"
      "strategy      dfs\n"
      "seed          1\n"
      "restore mode  snapshot\n"
      "termination   exhausted\n"
      "states        1\n"
      "transitions   1\n"
      "steps         1\n"
      "replayed      0 actions (0.00 per transition)\n"
      "seconds       0.000\n"
      "\n"
      "no findings\n"
      "\n"
      "coverage: 1 of 1 actions ran (100.0%)\n"
      "  action  enabled  executed  ok  rejected  errors\n"
      "  inc_0         1         1   1         0       0\n"
      "\n"
      "counters: no findings; 1 state, 1 transition, 1 step in 0.000 s (exhausted, seed 1)\n");
}

TEST(Console, SummaryLineCountsFindingsStatesTransitionsAndSteps) {
  EXPECT_EQ(summary_line(sample_report()),
            "shop: 4 findings; 1234 states, 5678 transitions, 6000 steps in 2.500 s (max_steps, "
            "seed 18446744073709551557)");
}

// Replaces the only timing-dependent values, the seconds, with "X".
std::string mask_seconds(const std::string& text) {
  static const std::regex seconds_line("seconds       [0-9]+\\.[0-9]+");
  static const std::regex summary_seconds(" in [0-9]+\\.[0-9]+ s \\(");
  return std::regex_replace(std::regex_replace(text, seconds_line, "seconds       X"),
                            summary_seconds, " in X s (");
}

TEST(Console, RendersABfsRunOfTheRefundModel) {
  auto report = testing::refund_bfs_report();
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  EXPECT_TRUE(matches_golden("console_refund_bfs.txt", mask_seconds(render(*report))));
}

TEST(ConsoleProgress, StaysSilentDuringTheFirstSecond) {
  std::ostringstream out;
  ProgressLine line(out);
  line.update({.states = 5, .transitions = 9, .steps = 9, .findings = 0, .seconds = 0.5});
  line.update({.states = 6, .transitions = 10, .steps = 10, .findings = 0, .seconds = 1.0});
  line.finish();
  EXPECT_FALSE(line.drawn());
  EXPECT_EQ(out.str(), "");
}

TEST(ConsoleProgress, RewritesOneLineInPlaceAndBlanksItWhenFinished) {
  std::ostringstream out;
  ProgressLine line(out);
  line.update({.states = 10, .transitions = 2000, .steps = 2100, .findings = 1, .seconds = 2.0});
  EXPECT_EQ(out.str(), "\r10 states, 2000 transitions, 1000 transitions/s, 1 finding, 2.0 s");
  out.str("");
  // A shorter line is padded so that it covers the longer one.
  line.update({.states = 1, .transitions = 30, .steps = 30, .findings = 0, .seconds = 3.0});
  EXPECT_EQ(out.str(),
            "\r1 state, 30 transitions, 10 transitions/s, 0 findings, 3.0 s" + std::string(5, ' '));
  out.str("");
  line.finish();
  EXPECT_EQ(out.str(), "\r" + std::string(65, ' ') + "\r");
  EXPECT_FALSE(line.drawn());
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

// Without a terminal (a CI log): one plain line every 10 s, none before, never rewritten.
TEST(ConsoleProgressLog, WritesALineEveryTenSeconds) {
  std::ostringstream out;
  ProgressLog log(out);
  log.update({.states = 5, .transitions = 9, .steps = 9, .findings = 0, .seconds = 9.9});
  EXPECT_EQ(out.str(), "");
  log.update({.states = 50, .transitions = 90, .steps = 90, .findings = 1, .seconds = 10.1});
  log.update({.states = 51, .transitions = 91, .steps = 91, .findings = 1, .seconds = 12});
  log.update({.states = 1, .transitions = 1, .steps = 2, .findings = 2, .seconds = 31.5});
  EXPECT_EQ(out.str(),
            "progress: 50 states, 90 transitions, 1 finding, 10 s\n"
            "progress: 1 state, 1 transition, 2 findings, 32 s\n");
}

}  // namespace
}  // namespace prowl
