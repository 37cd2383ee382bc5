// Reading a JSON report back (prowl report IN.json --to ...): what to_json() writes comes back
// whole, and a document that is not a report is refused with the field it got wrong.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "prowl/report/json.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::hostile_report;
using testing::sample_report;

RunReport with_graph_and_http(RunReport r) {
  r.settings = {.max_steps = 9,
                .max_depth = 4,
                .time_limit = 2.5,
                .coverage_target = 0.5,
                .stop_on_first = true,
                .confirm = false,
                .shrink = true,
                .workers = 2};
  r.graph = ReportGraph{.states = 3, .edges = {{0, 0, 1}, {1, 1, 2}, {2, 1, 2}}};
  r.findings[0].steps[0].http = HttpExchange{.method = "POST",
                                             .url = "http://127.0.0.1:1/orders",
                                             .status = 201,
                                             .request_body = "{\"qty\": 1}",
                                             .response_body = "{\"id\": 0}"};
  r.findings[1].steps[2].http = HttpExchange{.method = "DELETE",
                                             .url = "http://127.0.0.1:1/orders/0",
                                             .status = 0,
                                             .request_body = "",
                                             .response_body = ""};
  r.error = "the service went away";
  r.findings[2].where = {.file = "out/001-finding/trace", .line = 1};
  r.invariant_details = {
      {.severity = Severity::kCritical, .description = "refunds", .where = {"shop.yaml", 60}},
      {.severity = Severity::kLow, .description = "", .where = {}},
      {.severity = Severity::kMedium, .description = "x", .where = {"/src/model.cpp", 0}}};
  return r;
}

TEST(JsonReportRead, ReadsBackEveryFieldItWrote) {
  for (const RunReport& original :
       {sample_report(), hostile_report(), with_graph_and_http(sample_report())}) {
    const std::string text = to_json(original);
    auto read = parse_json_report(text);
    ASSERT_TRUE(read.is_ok()) << read.status().message();
    EXPECT_EQ(to_json(*read), text);
  }
}

TEST(JsonReportRead, KeepsTheStructuredHttpStepsAndTheGraph) {
  auto read = parse_json_report(to_json(with_graph_and_http(sample_report())));
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  ASSERT_TRUE(read->findings[0].steps[0].http.has_value());
  EXPECT_EQ(read->findings[0].steps[0].http->url, "http://127.0.0.1:1/orders");
  EXPECT_EQ(read->findings[0].steps[0].http->status, 201);
  EXPECT_FALSE(read->findings[0].steps[1].http.has_value());
  ASSERT_TRUE(read->graph.has_value());
  EXPECT_EQ(read->graph->edges, (std::vector<Edge>{{0, 0, 1}, {1, 1, 2}, {2, 1, 2}}));
  EXPECT_EQ(read->settings.workers, 2U);
  ASSERT_EQ(read->invariant_details.size(), 3U);
  EXPECT_EQ(read->invariant_details[0].where, (SourceLocation{"shop.yaml", 60}));
  EXPECT_FALSE(read->invariant_details[1].where.known());
  EXPECT_EQ(read->invariant_details[2].severity, Severity::kMedium);
  EXPECT_EQ(read->seed, 18446744073709551557ULL);
}

// A report of an earlier prowl of the same version, before settings were added, still reads.
TEST(JsonReportRead, ReadsAVersionOneReportWithoutSettings) {
  auto doc = nlohmann::ordered_json::parse(to_json(sample_report()));
  doc.erase("settings");
  doc.erase("tool_version");
  auto read = parse_json_report(doc.dump());
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read->settings.workers, 1U);
  EXPECT_EQ(read->findings.size(), 4U);
}

std::string refusal(const std::function<void(nlohmann::ordered_json&)>& change) {
  auto doc = nlohmann::ordered_json::parse(to_json(with_graph_and_http(sample_report())));
  change(doc);
  auto read = parse_json_report(doc.dump());
  EXPECT_FALSE(read.is_ok());
  return read.is_ok() ? std::string() : read.status().message();
}

TEST(JsonReportRead, NamesTheFieldItCannotRead) {
  using J = nlohmann::ordered_json;
  EXPECT_EQ(refusal([](J& d) { d["version"] = "2"; }),
            "version: this prowl reads version \"1\" reports, not \"2\"");
  EXPECT_EQ(refusal([](J& d) { d["tool"] = "tlc"; }), "tool: not a report prowl wrote");
  EXPECT_EQ(refusal([](J& d) { d.erase("stats"); }), "stats: missing");
  EXPECT_EQ(refusal([](J& d) { d["findings"][1]["steps"][0]["seed"] = "12a"; }),
            "findings[1].steps[0].seed: expected a seed as a decimal string, found \"12a\"");
  EXPECT_EQ(refusal([](J& d) { d["findings"][0]["severity"] = "fatal"; }),
            "findings[0].severity: \"fatal\" is not one of: critical, high, medium, low");
  EXPECT_EQ(refusal([](J& d) { d["stats"]["states"] = -1; }),
            "stats.states: expected a whole number of at least 0, found -1");
  EXPECT_EQ(refusal([](J& d) { d["stats"]["steps"] = 2.5; }),
            "stats.steps: expected a whole number of at least 0, found 2.5");
  EXPECT_EQ(refusal([](J& d) { d["graph"]["states"] = 4294967295U; }),
            "graph.states: 4294967295 states for 3 edges; a run's graph has from 1 to edges + 1");
  // What the file says is shown escaped: it cannot forge a line of the message.
  EXPECT_EQ(refusal([](J& d) { d["findings"][0]["kind"] = "x\njunit report written"; }),
            "findings[0].kind: \"x\\njunit report written\" is not one of: invariant_violation, "
            "action_error, nondeterminism, service_crashed");
  EXPECT_EQ(refusal([](J& d) { d["findings"][0]["steps"][0]["http"]["url"] = 3; }),
            "findings[0].steps[0].http.url: expected a string, found a number");
  EXPECT_EQ(refusal([](J& d) {
              d["graph"]["edges"][1] = J::array({1, "nope", 2});
            }),
            "graph.edges[1]: action \"nope\" is not in coverage.actions");
  EXPECT_EQ(refusal([](J& d) {
              d["graph"]["edges"][0] = J::array({0, "create_order", 3});
            }),
            "graph.edges[0]: a state is not below graph.states (3)");
  EXPECT_EQ(refusal([](J& d) { d["warnings"][0] = false; }),
            "warnings[0]: expected a string, found a boolean");
  EXPECT_EQ(refusal([](J& d) { d["error"] = 1; }),
            "error: expected a string or null, found a number");
  EXPECT_EQ(refusal([](J& d) { d["invariant_details"].erase(1); }),
            "invariant_details: 2 entries for 3 invariants");
  EXPECT_EQ(refusal([](J& d) { d["invariant_details"][2]["name"] = "other"; }),
            "invariant_details[2].name: expected \"ledger_balanced\", as invariants[2]");
  EXPECT_EQ(refusal([](J& d) { d = J::array(); }),
            "the document: expected an object, found an array");
}

TEST(JsonReportRead, KeepsTheVersionOfTheProwlThatMadeTheRun) {
  auto doc = nlohmann::ordered_json::parse(to_json(sample_report()));
  doc["tool_version"] = "0.0.9";
  auto read = parse_json_report(doc.dump());
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read->tool_version, "0.0.9");
  EXPECT_EQ(nlohmann::json::parse(to_json(*read))["tool_version"], "0.0.9");
}

TEST(JsonReportRead, ANumberBeyondRangeIsBadInputNotACrash) {
  std::string text = to_json(sample_report());
  const std::string seconds = "\"seconds\": 2.5";
  text.replace(text.find(seconds), seconds.size(), "\"seconds\": 1e999");
  auto read = parse_json_report(text);
  ASSERT_FALSE(read.is_ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(read.status().message().rfind("not JSON: number overflow parsing '1e999'", 0), 0u)
      << read.status().message();
}

TEST(JsonReportRead, NamesTheLineOfBrokenJson) {
  auto read = parse_json_report("{\n  \"version\": \"1\",\n  \"tool\"\n}");
  ASSERT_FALSE(read.is_ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(read.status().message(),
            "not JSON: parse error at line 4, column 1: syntax error while parsing object "
            "separator - unexpected '}'; expected ':'");
}

}  // namespace
}  // namespace prowl
