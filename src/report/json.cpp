#include "prowl/report/json.hpp"

#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "prowl/core/version.hpp"
#include "prowl/report/groups.hpp"
#include "report_file.hpp"

namespace prowl {

namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson step_json(std::size_t index, const TraceStep& s) {
  OrderedJson step{{"index", index},
                   {"action", s.action},
                   {"seed", detail::seed_text(s.seed)},
                   {"outcome", s.outcome},
                   {"detail", s.detail}};
  if (s.http) {
    step["http"] = OrderedJson{{"method", s.http->method},
                               {"url", s.http->url},
                               {"status", s.http->status},
                               {"request_body", s.http->request_body},
                               {"response_body", s.http->response_body}};
  }
  return step;
}

OrderedJson settings_json(const RunSettings& s) {
  return OrderedJson{{"max_steps", s.max_steps},
                     {"max_depth", s.max_depth},
                     {"time_limit", s.time_limit},
                     {"coverage_target", s.coverage_target},
                     {"stop_on_first", s.stop_on_first},
                     {"confirm", s.confirm},
                     {"shrink", s.shrink},
                     {"workers", s.workers},
                     {"threads", s.threads},
                     {"memory_limit", s.memory_limit}};
}

OrderedJson finding_json(const Finding& f) {
  OrderedJson steps = OrderedJson::array();
  for (std::size_t i = 0; i < f.steps.size(); ++i) steps.push_back(step_json(i + 1, f.steps[i]));
  OrderedJson finding{{"kind", to_string(f.kind)},    {"name", f.name},
                      {"action", f.action},           {"severity", to_string(f.severity)},
                      {"message", f.message},         {"confirmed", f.confirmed},
                      {"shrunk_from", f.shrunk_from}, {"state", f.state},
                      {"steps", std::move(steps)},    {"unconfirmed", f.unconfirmed}};
  if (f.where.known())
    finding["where"] = OrderedJson{{"file", f.where.file}, {"line", f.where.line}};
  return finding;
}

OrderedJson stats_json(const Stats& s) {
  const double per_transition = s.transitions == 0 ? 0.0
                                                   : static_cast<double>(s.replayed_actions) /
                                                         static_cast<double>(s.transitions);
  return OrderedJson{{"states", s.states},
                     {"transitions", s.transitions},
                     {"steps", s.steps},
                     {"replayed_actions", s.replayed_actions},
                     {"restores", s.restores},
                     {"max_depth", s.max_depth},
                     {"seconds", s.seconds},
                     {"replayed_per_transition", per_transition},
                     {"graph_bytes", s.graph_bytes}};
}

OrderedJson coverage_json(const RunReport& r) {
  OrderedJson actions = OrderedJson::array();
  for (const auto& c : r.coverage) {
    actions.push_back(OrderedJson{{"name", c.name},
                                  {"enabled", c.enabled},
                                  {"executed", c.executed},
                                  {"ok", c.ok},
                                  {"rejected", c.rejected},
                                  {"errors", c.errors}});
  }
  return OrderedJson{{"action_coverage", r.action_coverage()}, {"actions", std::move(actions)}};
}

// Appends the graph to a document cut before its closing brace. An edge is one line,
// [from, "action", to], not an object over five indented lines: graphs can have millions.
void append_graph(const RunReport& r, std::string& out) {
  std::vector<std::string> names;  // each action's name as JSON, escaped once
  names.reserve(r.coverage.size());
  for (const ActionCoverage& c : r.coverage) {
    names.push_back(
        OrderedJson(c.name).dump(-1, ' ', false, OrderedJson::error_handler_t::replace));
  }
  fmt::format_to(std::back_inserter(out),
                 ",\n  \"graph\": {{\n    \"states\": {},\n    \"edges\": [", r.graph->states);
  const char* separator = "\n      ";
  for (const Edge& e : r.graph->edges) {
    PROWL_CHECK(e.action < names.size(),
                fmt::format("report graph: edge action {} is not in the coverage", e.action));
    fmt::format_to(std::back_inserter(out), "{}[{}, {}, {}]", separator, e.from, names[e.action],
                   e.to);
    separator = ",\n      ";
  }
  out += r.graph->edges.empty() ? "]\n  }" : "\n    ]\n  }";
}

// What the report knows of each invariant beyond its name, in the order of "invariants".
OrderedJson invariant_details_json(const RunReport& r) {
  OrderedJson details = OrderedJson::array();
  // All or none, as parse_json_report() reads them.
  if (r.invariant_details.size() != r.invariants.size()) return details;
  for (std::size_t i = 0; i < r.invariant_details.size(); ++i) {
    const InvariantDetails& d = r.invariant_details[i];
    details.push_back(
        OrderedJson{{"name", r.invariants[i]},
                    {"severity", to_string(d.severity)},
                    {"description", d.description},
                    {"file", d.where.known() ? OrderedJson(d.where.file) : OrderedJson()},
                    {"line", d.where.known() ? OrderedJson(d.where.line) : OrderedJson()}});
  }
  return details;
}

// One bug, one entry: the findings (numbered from 1, as in the console and the trace files) that
// break the same invariant or fail the same action, the shortest first.
OrderedJson groups_json(const RunReport& r) {
  OrderedJson groups = OrderedJson::array();
  for (const FindingGroup& g : group_findings(r.findings)) {
    const Finding& first = r.findings[g.findings.front()];
    OrderedJson numbers = OrderedJson::array();
    for (std::size_t i : g.findings) numbers.push_back(i + 1);
    groups.push_back(
        OrderedJson{{"kind", to_string(first.kind)}, {"name", first.name}, {"findings", numbers}});
  }
  return groups;
}

}  // namespace

std::string to_json(const RunReport& report) {
  OrderedJson findings = OrderedJson::array();
  for (const auto& f : report.findings) findings.push_back(finding_json(f));
  OrderedJson doc{
      {"version", kJsonReportVersion},
      {"tool", "prowl"},
      {"tool_version", report.tool_version.empty() ? std::string(version()) : report.tool_version},
      {"model", report.model},
      {"seed", detail::seed_text(report.seed)},
      {"strategy", report.strategy},
      {"restore_mode", to_string(report.restore_mode)},
      {"termination", to_string(report.termination)},
      {"settings", settings_json(report.settings)},
      {"stats", stats_json(report.stats)},
      {"findings", std::move(findings)},
      {"groups", groups_json(report)},
      {"coverage", coverage_json(report)},
      {"invariants", report.invariants},
      {"invariant_details", invariant_details_json(report)},
      {"warnings", report.warnings},
      {"sampled", report.sampled},
      {"error", report.error.empty() ? OrderedJson() : OrderedJson(report.error)}};
  // Replacement keeps invalid UTF-8 in user text (a detail, a message) from aborting the report.
  std::string text = doc.dump(2, ' ', false, OrderedJson::error_handler_t::replace);
  if (report.graph) {
    text.erase(text.size() - 2);  // "\n}": the graph goes before the closing brace
    append_graph(report, text);
    text += "\n}";
  }
  return text + "\n";
}

Status write_json_report(const RunReport& report, const std::string& path) {
  return detail::write_report_file(path, to_json(report), "JSON");
}

}  // namespace prowl
