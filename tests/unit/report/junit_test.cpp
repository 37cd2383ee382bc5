// The JUnit XML report: every field as the golden files have it, one test case per invariant and
// per action with a failure or error per bug, and hostile text escaped into well-formed XML.
#include "prowl/report/junit.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "golden.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::hostile_report;
using testing::matches_golden;
using testing::sample_report;

TEST(JunitReport, RendersEveryFieldAsTheGoldenFile) {
  EXPECT_TRUE(matches_golden("report.junit.xml", to_junit(sample_report())));
}

TEST(JunitReport, KeepsHostileTextOutOfTheMarkup) {
  const std::string text = to_junit(hostile_report());
  EXPECT_TRUE(matches_golden("report_hostile.junit.xml", text));
  // No raw control character but '\n', and no markup from the system under test.
  for (char c : text) {
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
  }
  EXPECT_EQ(text.find("<script>"), std::string::npos);
  EXPECT_NE(text.find("name=\"&lt;script&gt;&quot;&amp;amp;\\e[2J\""), std::string::npos) << text;
}

TEST(JunitReport, ARunThatFailedHasACaseSayingWhy) {
  RunReport r = sample_report();
  r.termination = Termination::kError;
  r.error = "service 'shop' would not start again";
  const std::string text = to_junit(r);
  EXPECT_NE(text.find("<testsuites name=\"prowl\" tests=\"8\" failures=\"3\" errors=\"2\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("<testcase classname=\"shop\" name=\"run\" time=\"2.500\">\n      <error "
                      "type=\"error\" message=\"service 'shop' would not start again\">"),
            std::string::npos)
      << text;
}

TEST(JunitReport, NoncharactersXmlForbidsAreWrittenAsEscapes) {
  const std::string text = to_junit(hostile_report());
  EXPECT_NE(text.find("name=\"nonchar\\ufffe\\uffff\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\xef\xbf\xbe"), std::string::npos);
}

TEST(JunitReport, EachCaseCountsOnceAndAValueNamedActionStaysAnAction) {
  RunReport r = sample_report();
  // cancel also ran nondeterministically: one case, an error (above the failure), counted once.
  Finding twice = r.findings[2];
  twice.name = "cancel";
  // An action whose parameter the state gives is listed by place and fails by value.
  Finding by_value = r.findings[1];
  by_value.name = "erase(key=5)";
  r.findings.push_back(twice);
  r.findings.push_back(by_value);
  const std::string text = to_junit(r);
  EXPECT_NE(text.find("<testsuite name=\"shop\" tests=\"8\" failures=\"3\" errors=\"2\" "
                      "skipped=\"0\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("<testcase classname=\"shop.actions\" name=\"erase(key=5)\" time=\"0\">\n"
                      "      <error type=\"action_error\""),
            std::string::npos)
      << text;
}

TEST(JunitReport, AnInterruptedRunIsNotAPassAndNothingExploredIsSkipped) {
  RunReport r = sample_report();
  r.termination = Termination::kInterrupted;
  r.findings.clear();
  r.stats.states = 0;
  const std::string text = to_junit(r);
  EXPECT_NE(text.find("<testsuite name=\"shop\" tests=\"8\" failures=\"0\" errors=\"1\" "
                      "skipped=\"7\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("<testcase classname=\"shop.invariants\" name=\"ledger_balanced\" "
                      "time=\"0\">\n      <skipped message=\"nothing was explored\"/>\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("name=\"run\" time=\"2.500\">\n      <error type=\"interrupted\" "
                      "message=\"the run was interrupted (SIGINT, SIGTERM or SIGHUP) before it "
                      "explored everything\">"),
            std::string::npos)
      << text;
}

TEST(JunitReport, AnUnwritablePathIsAnEnvironmentFailureNamingTheFile) {
  const std::string path = "/nonexistent-dir/report.xml";
  const Status st = write_junit_report(sample_report(), path);
  EXPECT_FALSE(st);
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
}

}  // namespace
}  // namespace prowl
