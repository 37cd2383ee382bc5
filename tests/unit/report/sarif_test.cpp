// The SARIF report: every field as the golden files have it, one rule per invariant and per kind
// of finding that names no invariant, one result per finding with its bug's fingerprint and its
// steps as a code flow, invariants located where they are declared, and text from the system
// under test kept from becoming placeholders or links.
#include "prowl/report/sarif.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "golden.hpp"
#include "prowl/core/version.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/report/format.hpp"
#include "prowl/strategy/bfs.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using nlohmann::json;
using testing::hostile_report;
using testing::matches_golden;
using testing::sample_report;

// The sample report with its invariants declared in a model file under the base directory, in a
// C++ file outside it, and nowhere known.
RunReport located_report() {
  RunReport r = sample_report();
  r.invariant_details = {
      {Severity::kCritical, "no order is refunded twice", {"models/shop.yaml", 12}},
      {Severity::kLow, "", {"/opt/shop src/stock.cpp", 40}},
      {Severity::kMedium, "", {}}};
  return r;
}

// The document with prowl's version written as @VERSION@, so that the golden files outlive it.
std::string masked(std::string text) {
  const std::string v = "\"version\": \"" + std::string(version()) + "\"";
  for (std::size_t at = text.find(v); at != std::string::npos; at = text.find(v, at)) {
    text.replace(at, v.size(), "\"version\": \"@VERSION@\"");
  }
  return text;
}

json sarif_of(const RunReport& r) { return json::parse(to_sarif_with_base(r, "/work/shop")); }

TEST(SarifReport, RendersEveryFieldAsTheGoldenFile) {
  EXPECT_TRUE(
      matches_golden("report.sarif", masked(to_sarif_with_base(located_report(), "/work/shop"))));
}

TEST(SarifReport, KeepsHostileTextFromBecomingPlaceholdersOrLinks) {
  RunReport r = hostile_report();
  r.findings[0].message = "{0} see [here](https://evil.example) or \\](0)";
  const std::string text = to_sarif_with_base(r, "/work/shop");
  EXPECT_TRUE(matches_golden("report_hostile.sarif", masked(text)));
  const json doc = json::parse(text);
  EXPECT_EQ(doc["runs"][0]["results"][0]["message"]["text"],
            "{{0}} see [here\\](https://evil.example) or \\\\\\](0)\n"
            "(bug 1 of 2: invariant_violation no_negative_stock)");
  // Messages show terminal controls escaped as the console does; properties keep the data.
  const std::string died = doc["runs"][0]["results"][1]["message"]["text"];
  EXPECT_NE(died.find("last lines of its stderr:\n  panic: \\e[1mboom\\e[0m\n"), std::string::npos)
      << died;
  EXPECT_EQ(died.find('\x1b'), std::string::npos);
  EXPECT_EQ(doc["runs"][0]["properties"]["model"], "shop\x1b[2J");
}

TEST(SarifReport, HasOneRulePerInvariantAndPerKindOfOtherFinding) {
  const json doc = sarif_of(located_report());
  const json& driver = doc["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["name"], "prowl");
  EXPECT_EQ(driver["version"], std::string(version()));
  std::vector<std::string> ids, levels;
  for (const json& rule : driver["rules"]) {
    ids.push_back(rule["id"]);
    levels.push_back(rule["defaultConfiguration"]["level"]);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"invariant/refund_at_most_once",
                                           "invariant/stock_positive", "invariant/ledger_balanced",
                                           "action_error/cancel", "nondeterminism"}));
  EXPECT_EQ(levels, (std::vector<std::string>{"error", "note", "warning", "error", "warning"}));
  EXPECT_EQ(driver["rules"][0]["shortDescription"]["text"], "no order is refunded twice");
  EXPECT_EQ(driver["rules"][2]["shortDescription"]["text"],
            "invariant 'ledger_balanced' holds in every reachable state");
}

TEST(SarifReport, HasOneResultPerFindingWithItsRuleLevelAndSteps) {
  const json doc = sarif_of(located_report());
  const json& results = doc["runs"][0]["results"];
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0]["ruleId"], "invariant/refund_at_most_once");
  EXPECT_EQ(results[0]["ruleIndex"], 0);
  EXPECT_EQ(results[0]["level"], "error");
  EXPECT_EQ(results[1]["ruleId"], "action_error/cancel");
  EXPECT_EQ(results[1]["ruleIndex"], 3);
  EXPECT_EQ(results[2]["level"], "warning");
  EXPECT_EQ(results[3]["level"], "note");
  EXPECT_EQ(results[0]["message"]["text"],
            "order 0 was refunded 20 for a price of 10\n"
            "(bug 1 of 4: invariant_violation refund_at_most_once)");
  const json& steps = results[0]["codeFlows"][0]["threadFlows"][0]["locations"];
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]["executionOrder"], 1);
  EXPECT_EQ(steps[0]["location"]["message"]["text"], "create_order: order 0");
  EXPECT_EQ(steps[2]["executionOrder"], 3);
  EXPECT_EQ(steps[2]["importance"], "essential");
  EXPECT_EQ(steps[2]["state"]["state"]["text"],
            "db: orders=[0: refunded]\nbank: customer=40 merchant=-10");
  EXPECT_EQ(
      results[1]["codeFlows"][0]["threadFlows"][0]["locations"][1]["location"]["message"]["text"],
      "refund [rejected]");
  EXPECT_EQ(results[0]["codeFlows"][0]["message"]["text"], "3 steps from the initial state");
  // A finding in the initial state has no steps, and so no flow (a flow has at least one).
  EXPECT_FALSE(results[3].contains("codeFlows"));
}

TEST(SarifReport, EveryPathOfOneBugCarriesTheBugsFingerprint) {
  RunReport r = located_report();
  Finding longer = r.findings[0];
  longer.steps.insert(longer.steps.begin(), {"create_order", 99, "ok", "order 1"});
  r.findings.push_back(longer);
  const json results = sarif_of(r)["runs"][0]["results"];
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0]["partialFingerprints"]["prowlBug/v1"],
            "invariant_violation/refund_at_most_once");
  EXPECT_EQ(results[4]["partialFingerprints"], results[0]["partialFingerprints"]);
  EXPECT_NE(results[1]["partialFingerprints"], results[0]["partialFingerprints"]);
  EXPECT_EQ(results[0]["message"]["text"],
            "order 0 was refunded 20 for a price of 10\n(bug 1 of 4: invariant_violation "
            "refund_at_most_once, the shortest of 2 paths)");
  EXPECT_EQ(results[4]["message"]["text"],
            "order 0 was refunded 20 for a price of 10\n(bug 1 of 4: invariant_violation "
            "refund_at_most_once, path 2 of 2; the shortest is finding 1)");
  EXPECT_EQ(results[4]["properties"]["bug"], 1);
  EXPECT_EQ(results[4]["properties"]["finding"], 5);
}

TEST(SarifReport, LocatesInvariantsWhereTheyAreDeclaredAndTheRestAtTheModel) {
  const json doc = sarif_of(located_report());
  const json& results = doc["runs"][0]["results"];
  EXPECT_EQ(results[0]["locations"],
            json::parse(R"([{"physicalLocation": {"artifactLocation": {"uri": "models/shop.yaml",
                "uriBaseId": "SRCROOT"}, "region": {"startLine": 12}}}])"));
  // Outside the base directory: an absolute URI, percent-encoded.
  EXPECT_EQ(results[3]["locations"][0]["physicalLocation"]["artifactLocation"],
            json::parse(R"({"uri": "file:///opt/shop%20src/stock.cpp"})"));
  // An action error: the first line of the file that declares the model's invariants, as code
  // scanning needs a file for every result.
  EXPECT_EQ(results[1]["locations"],
            json::parse(R"([{"physicalLocation": {"artifactLocation": {"uri": "models/shop.yaml",
                "uriBaseId": "SRCROOT"}, "region": {"startLine": 1}}}])"));
  // A finding with a file of its own (a fuzz bucket's trace) points there.
  RunReport bucket = located_report();
  bucket.findings[1].where = {.file = "out/001-finding/trace", .line = 1};
  EXPECT_EQ(sarif_of(bucket)["runs"][0]["results"][1]["locations"],
            json::parse(R"([{"physicalLocation": {"artifactLocation": {
                "uri": "out/001-finding/trace", "uriBaseId": "SRCROOT"},
                "region": {"startLine": 1}}}])"));
  // A model that names no file: the model by name only.
  RunReport nowhere = located_report();
  for (InvariantDetails& d : nowhere.invariant_details) d.where = {};
  EXPECT_EQ(sarif_of(nowhere)["runs"][0]["results"][1]["locations"],
            json::parse(R"([{"logicalLocations": [{"name": "shop", "kind": "module"}]}])"));
  EXPECT_EQ(doc["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///work/shop/");
  // Under the base directory, an absolute path is written relative to it.
  RunReport r = located_report();
  r.invariant_details[0].where.file = "/work/shop/models/../models/shop.yaml";
  EXPECT_EQ(sarif_of(r)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
                       ["artifactLocation"]["uri"],
            "models/shop.yaml");
}

TEST(SarifReport, ShowsAnHttpStepAsItsRequestLine) {
  RunReport r = located_report();
  r.findings[0].steps[1].http = HttpExchange{"POST", "http://127.0.0.1:8080/orders/0/refund", 200};
  r.findings[0].steps[2].http = HttpExchange{"POST", "http://127.0.0.1:8080/orders/0/refund", 0};
  r.findings[0].steps[2].outcome = "error";
  const json steps =
      sarif_of(r)["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"][0]["locations"];
  EXPECT_EQ(steps[1]["location"]["message"]["text"],
            "refund: POST http://127.0.0.1:8080/orders/0/refund → 200");
  EXPECT_EQ(steps[2]["location"]["message"]["text"],
            "refund [error]: POST http://127.0.0.1:8080/orders/0/refund → no response");
  EXPECT_EQ(steps[1]["properties"]["detail"], "order 0");
  EXPECT_EQ(steps[1]["properties"]["seed"], "22");
}

TEST(SarifReport, ARunThatFailedOrWasInterruptedDidNotExecuteSuccessfully) {
  RunReport r = located_report();
  EXPECT_EQ(sarif_of(r)["runs"][0]["invocations"][0]["executionSuccessful"], true);
  r.termination = Termination::kError;
  r.error = "service 'shop' would not start again";
  r.warnings.clear();
  const json failed = sarif_of(r)["runs"][0]["invocations"][0];
  EXPECT_EQ(failed, json::parse(R"({"executionSuccessful": false, "toolExecutionNotifications": [
      {"descriptor": {"id": "run/error"}, "level": "error",
       "message": {"text": "service 'shop' would not start again"}}]})"));
  r.termination = Termination::kInterrupted;
  const json stopped = sarif_of(r)["runs"][0]["invocations"][0];
  EXPECT_EQ(stopped["executionSuccessful"], false);
  EXPECT_EQ(stopped["toolExecutionNotifications"][0]["descriptor"]["id"], "run/interrupted");
}

TEST(SarifReport, IsAReportFormatWrittenToItsFile) {
  auto spec = parse_report_spec("sarif:" + ::testing::TempDir() + "prowl-sarif-" +
                                std::to_string(::getpid()) + ".sarif");
  ASSERT_TRUE(spec.is_ok()) << spec.status().message();
  ASSERT_TRUE(write_report(*spec, located_report()).is_ok());
  std::ifstream in(spec->path);
  std::ostringstream text;
  text << in.rdbuf();
  std::filesystem::remove(spec->path);
  EXPECT_EQ(text.str(), to_sarif(located_report()));
  EXPECT_EQ(json::parse(text.str())["version"], "2.1.0");
}

TEST(SarifReport, AnUnwritablePathIsAnEnvironmentFailureNamingTheFile) {
  const std::string path = "/nonexistent-dir/report.sarif";
  const Status st = write_sarif_report(sample_report(), path);
  EXPECT_FALSE(st);
  EXPECT_EQ(st.message().rfind("cannot write SARIF report '/nonexistent-dir/report.sarif'", 0), 0u)
      << st.message();
}

struct Counter {
  int n = 0;
};

TEST(SarifReport, LocatesAnInvariantOfACppModelAtTheLineThatDeclaresIt) {
  ObjectModel<Counter> model("counter", Counter{});
  model.action("inc").when([](const Counter& c) { return c.n < 3; }).run([](Counter& c) { ++c.n; });
  const std::uint32_t line = __LINE__ + 1;
  model.invariant("below_two").check([](const Counter& c) { return c.n < 2; });
  Bfs bfs;
  auto report = explore(model, bfs, Options{});
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  ASSERT_EQ(report->invariant_details.size(), 1u);
  EXPECT_EQ(report->invariant_details[0].where.line, line);
  // The run records the file as an absolute path, from the working directory when the compiler
  // gave a relative one (ccache's CCACHE_BASEDIR does); the base is made absolute the same way.
  const json result = json::parse(to_sarif_with_base(
      *report, std::filesystem::absolute(
                   std::filesystem::path(__FILE__).parent_path())))["runs"][0]["results"][0];
  EXPECT_EQ(result["locations"][0]["physicalLocation"],
            json({{"artifactLocation", {{"uri", "sarif_test.cpp"}, {"uriBaseId", "SRCROOT"}}},
                  {"region", {{"startLine", line}}}}));
}

}  // namespace
}  // namespace prowl
