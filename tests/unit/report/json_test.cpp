#include "prowl/report/json.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <fmt/format.h>

#include "golden.hpp"
#include "prowl/core/version.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"
#include "refund/refund.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::matches_golden;
using testing::sample_report;

// The document with its tool_version written as "VERSION", so that goldens outlive a release.
std::string versionless_json(const RunReport& report) {
  std::string text = to_json(report);
  const std::string field = fmt::format("\"tool_version\": \"{}\"", version());
  const std::size_t at = text.find(field);
  EXPECT_NE(at, std::string::npos) << "no tool_version field";
  if (at != std::string::npos) text.replace(at, field.size(), "\"tool_version\": \"VERSION\"");
  return text;
}

TEST(JsonReport, RendersEveryFieldAsTheGoldenFile) {
  EXPECT_TRUE(matches_golden("report.json", versionless_json(sample_report())));
}

TEST(JsonReport, NamesTheProwlVersionAndTheRunsSettings) {
  RunReport r = sample_report();
  r.settings = {.max_steps = 500,
                .max_depth = 7,
                .time_limit = 1.5,
                .coverage_target = 0.9,
                .stop_on_first = true,
                .confirm = false,
                .shrink = true,
                .workers = 3,
                .threads = 2,
                .memory_limit = std::uint64_t{1} << 33};
  const auto doc = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(doc["tool_version"], std::string(version()));
  EXPECT_EQ(doc["settings"], nlohmann::json::parse(R"({"max_steps": 500, "max_depth": 7,
      "time_limit": 1.5, "coverage_target": 0.9, "stop_on_first": true, "confirm": false,
      "shrink": true, "workers": 3, "threads": 2, "memory_limit": 8589934592})"));
}

// An HTTP step is also data: method, URL, status and both bodies, beside its one-line detail.
TEST(JsonReport, WritesAnHttpStepAsStructuredData) {
  RunReport r = sample_report();
  r.findings[0].steps[1].http = HttpExchange{.method = "POST",
                                             .url = "http://127.0.0.1:8080/orders/0/refund",
                                             .status = 200,
                                             .request_body = R"({"amount": 10})",
                                             .response_body = "{\"ok\": true}\n\x01"};
  const auto doc = nlohmann::json::parse(to_json(r));
  const auto& step = doc["findings"][0]["steps"][1];
  EXPECT_EQ(step["http"], nlohmann::json::parse(R"({"method": "POST",
      "url": "http://127.0.0.1:8080/orders/0/refund", "status": 200,
      "request_body": "{\"amount\": 10}", "response_body": "{\"ok\": true}\n\u0001"})"));
  EXPECT_FALSE(doc["findings"][0]["steps"][0].contains("http"));
}

TEST(JsonReport, WritesSeedsAsDecimalStringsSoTheyAreNotRounded) {
  const auto doc = nlohmann::json::parse(to_json(sample_report()));
  EXPECT_EQ(doc["seed"], "18446744073709551557");
  EXPECT_EQ(doc["findings"][0]["steps"][2]["seed"], "33");
}

TEST(JsonReport, WritesTheDocumentToAFile) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("prowl-json-test-" + std::to_string(::getpid()) + ".json");
  ASSERT_TRUE(write_json_report(sample_report(), path.string()).is_ok());
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), to_json(sample_report()));
  std::filesystem::remove(path);
}

// /dev/null is a file: nothing can be made below it, not even by root.
TEST(JsonReport, AnUnwritablePathIsAnEnvironmentFailureNamingTheFile) {
  const Status st = write_json_report(sample_report(), "/dev/null/report.json");
  EXPECT_EQ(st.code(), StatusCode::kEnvironment);
  EXPECT_EQ(st.message(), "cannot write JSON report '/dev/null/report.json': Not a directory");
}

// JSON escapes control characters itself; the report keeps the system's text exactly.
TEST(JsonReport, KeepsHostileValuesAsEscapedJsonStrings) {
  const std::string text = versionless_json(testing::hostile_report());
  EXPECT_TRUE(matches_golden("report_hostile.json", text));
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["model"], "shop\x1b[2J");
  EXPECT_EQ(doc["termination"], "sampled");
  EXPECT_EQ(doc["sampled"], nlohmann::json::array({"put", "get\r\n[2] critical forged"}));
  EXPECT_EQ(doc["findings"][1]["kind"], "service_crashed");
  EXPECT_EQ(doc["findings"][1]["unconfirmed"], "interrupted before it could be replayed");
  EXPECT_TRUE(doc["error"].is_null());
}

TEST(JsonReport, WritesNoGraphWhenTheReportHasNone) {
  EXPECT_FALSE(nlohmann::json::parse(to_json(sample_report())).contains("graph"));
}

// Last in the document, so that a report without one reads as it always has.
TEST(JsonReport, WritesTheGraphAsStatesAndEdgesNamingTheirActions) {
  RunReport r = sample_report();
  r.graph = ReportGraph{3, {{0, 0, 1}, {1, 1, 2}, {2, 2, 2}}};
  const std::string text = to_json(r);
  const std::string expected = R"(  "error": null,
  "graph": {
    "states": 3,
    "edges": [
      [0, "create_order", 1],
      [1, "refund", 2],
      [2, "cancel", 2]
    ]
  }
}
)";
  ASSERT_GE(text.size(), expected.size());
  EXPECT_EQ(text.substr(text.size() - expected.size()), expected);
  EXPECT_EQ(to_json(sample_report()), text.substr(0, text.find(",\n  \"graph\"")) + "\n}\n");
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["graph"]["edges"][1], nlohmann::json::parse(R"([1, "refund", 2])"));
  r.graph->edges.clear();
  EXPECT_EQ(nlohmann::json::parse(to_json(r))["graph"],
            nlohmann::json::parse(R"({"states": 3, "edges": []})"));
}

// The refund model explored breadth-first, as `refund --seed 7` does: the double refund breaks
// two invariants on the same three steps, and cancelling a second order afterwards breaks the
// merchant's balance again.
TEST(JsonReport, DescribesABfsRunOfTheRefundModel) {
  auto report = testing::refund_bfs_report();
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  const auto doc = nlohmann::json::parse(to_json(*report));

  EXPECT_EQ(doc["version"], "1");
  EXPECT_EQ(doc["tool"], "prowl");
  EXPECT_EQ(doc["model"], "refund");
  EXPECT_EQ(doc["seed"], "7");
  EXPECT_EQ(doc["strategy"], "bfs");
  EXPECT_EQ(doc["restore_mode"], "snapshot");
  EXPECT_EQ(doc["termination"], "exhausted");

  const auto& stats = doc["stats"];
  EXPECT_EQ(stats["states"], 43);
  EXPECT_EQ(stats["transitions"], 78);
  EXPECT_EQ(stats["steps"], 78);
  EXPECT_EQ(stats["replayed_actions"], 0);
  EXPECT_EQ(stats["max_depth"], 7);
  EXPECT_EQ(stats["replayed_per_transition"], 0.0);
  EXPECT_TRUE(stats["restores"].is_number_unsigned());
  EXPECT_TRUE(stats["seconds"].is_number() && stats["seconds"].get<double>() >= 0);

  const auto& findings = doc["findings"];
  ASSERT_EQ(findings.size(), 3u);
  auto actions_of = [](const nlohmann::json& f) {
    std::vector<std::string> names;
    for (const auto& step : f["steps"]) names.push_back(step["action"]);
    return names;
  };
  const std::vector<std::string> double_refund = {"create_order", "refund", "refund"};

  const auto& first = findings[0];
  EXPECT_EQ(first["kind"], "invariant_violation");
  EXPECT_EQ(first["name"], "refund_at_most_once");
  EXPECT_EQ(first["action"], "refund");
  EXPECT_EQ(first["severity"], "critical");
  EXPECT_EQ(first["message"], "order 0 was refunded 20 for a price of 10");
  EXPECT_EQ(first["confirmed"], true);
  EXPECT_EQ(first["shrunk_from"], 0);
  EXPECT_EQ(first["state"], "customer=40 merchant=-10 order0=refunded(refunded 20)");
  EXPECT_EQ(actions_of(first), double_refund);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(first["steps"][i]["index"], i + 1);
    EXPECT_EQ(first["steps"][i]["outcome"], "ok");
    EXPECT_EQ(first["steps"][i]["detail"], "order 0");
  }

  const auto& second = findings[1];
  EXPECT_EQ(second["name"], "merchant_balance_non_negative");
  EXPECT_EQ(second["severity"], "high");
  EXPECT_EQ(second["message"], "merchant balance is -10");
  EXPECT_EQ(second["confirmed"], true);
  EXPECT_EQ(actions_of(second), double_refund);
  // The same step from the same state runs with the same seed, whichever finding it is part of.
  EXPECT_EQ(second["steps"], first["steps"]);

  const auto& third = findings[2];
  EXPECT_EQ(third["name"], "merchant_balance_non_negative");
  EXPECT_EQ(third["action"], "cancel");
  EXPECT_EQ(third["confirmed"], true);
  EXPECT_EQ(actions_of(third), (std::vector<std::string>{"create_order", "refund", "refund",
                                                         "create_order", "cancel"}));
  EXPECT_EQ(third["steps"][3]["detail"], "order 1");
  EXPECT_EQ(third["state"],
            "customer=40 merchant=-10 order0=refunded(refunded 20) order1=cancelled(refunded 10)");

  EXPECT_EQ(doc["coverage"]["action_coverage"], 1.0);
  EXPECT_EQ(doc["coverage"]["actions"], nlohmann::json::parse(R"([
    {"name": "create_order", "enabled": 9, "executed": 9, "ok": 9, "rejected": 0, "errors": 0},
    {"name": "refund", "enabled": 27, "executed": 27, "ok": 15, "rejected": 12, "errors": 0},
    {"name": "cancel", "enabled": 42, "executed": 42, "ok": 9, "rejected": 33, "errors": 0}])"));
  EXPECT_EQ(doc["warnings"], nlohmann::json::array());
}

}  // namespace
}  // namespace prowl
