#include "prowl/report/junit.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/groups.hpp"
#include "report_file.hpp"

namespace prowl {

namespace {

// XML's special characters as entities: & < > in text, and " too in an attribute (written between
// double quotes). `text` has been through escape_text or escape_lines, so it holds no control
// character but '\n' and is valid UTF-8: XML 1.0 allows all of it.
std::string xml(std::string_view text, bool attribute = false) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += attribute ? "&quot;" : "\"";
        break;
      default:
        out += c;
    }
  }
  return out;
}
std::string attr(std::string_view text) { return xml(escape_text(text), true); }

// A test case and the bugs that fail it.
struct Case {
  std::string classname;
  std::string name;
  std::vector<const FindingGroup*> groups;
};

// Invariants first, then actions, as declared; a bug names one of them, or (a finding of a kind
// that names neither, such as a service crash) gets a case of its own.
std::vector<Case> cases_of(const RunReport& r, const std::vector<FindingGroup>& groups) {
  std::vector<Case> cases;
  std::map<std::pair<bool, std::string>, std::size_t> at;  // (is invariant, name) -> case
  for (const auto& name : r.invariants) {
    at.emplace(std::make_pair(true, name), cases.size());
    cases.push_back({r.model + ".invariants", name, {}});
  }
  for (const auto& c : r.coverage) {
    at.emplace(std::make_pair(false, c.name), cases.size());
    cases.push_back({r.model + ".actions", c.name, {}});
  }
  for (const FindingGroup& g : groups) {
    const Finding& f = r.findings[g.findings.front()];
    const bool invariant = f.kind == FindingKind::kInvariant;
    const auto [it, added] = at.emplace(std::make_pair(invariant, f.name), cases.size());
    if (added) {
      cases.push_back({r.model + (invariant ? ".invariants" : ".findings"), f.name, {}});
    }
    cases[it->second].groups.push_back(&g);
  }
  return cases;
}

void write_properties(std::ostringstream& out, const RunReport& r, std::size_t groups) {
  const std::vector<std::pair<std::string_view, std::string>> properties = {
      {"tool", "prowl"},
      {"strategy", r.strategy},
      {"seed", std::to_string(r.seed)},
      {"restore_mode", std::string(to_string(r.restore_mode))},
      {"termination", std::string(to_string(r.termination))},
      {"states", std::to_string(r.stats.states)},
      {"transitions", std::to_string(r.stats.transitions)},
      {"steps", std::to_string(r.stats.steps)},
      {"max_depth", std::to_string(r.stats.max_depth)},
      {"action_coverage", fmt::format("{:.4f}", r.action_coverage())},
      {"findings", std::to_string(groups)},
      {"paths", std::to_string(r.findings.size())},
      {"error", r.error}};
  out << "    <properties>\n";
  for (const auto& [name, value] : properties) {
    out << fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, attr(value));
  }
  out << "    </properties>\n";
}

// A bug's element: <failure> on an invariant or a nondeterministic action, <error> when an action
// failed (threw, answered an error, or the service died).
void write_group(std::ostringstream& out, const RunReport& r, const FindingGroup& g) {
  const Finding& f = r.findings[g.findings.front()];
  const char* element = f.kind == FindingKind::kInvariant || f.kind == FindingKind::kNondeterminism
                            ? "failure"
                            : "error";
  std::ostringstream text;
  write_finding_group(text, r, g);
  const std::string message = f.message.empty() ? std::string(to_string(f.kind)) : f.message;
  out << fmt::format("      <{} type=\"{}\" message=\"{}\">{}</{}>\n", element, to_string(f.kind),
                     attr(message), xml(text.str()), element);
}

}  // namespace

std::string to_junit(const RunReport& r) {
  const std::vector<FindingGroup> groups = group_findings(r.findings);
  const std::vector<Case> cases = cases_of(r, groups);
  std::size_t failures = 0, errors = 0;
  for (const Case& c : cases) {
    for (const FindingGroup* g : c.groups) {
      const FindingKind kind = r.findings[g->findings.front()].kind;
      ++(kind == FindingKind::kInvariant || kind == FindingKind::kNondeterminism ? failures
                                                                                 : errors);
    }
  }
  const bool failed = r.termination == Termination::kError;
  const std::size_t tests = cases.size() + (failed ? 1 : 0);
  errors += failed ? 1 : 0;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"prowl\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n",
      tests, failures, errors, r.stats.seconds);
  out << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
      "time=\"{:.3f}\">\n",
      attr(r.model), tests, failures, errors, r.stats.seconds);
  write_properties(out, r, groups.size());
  for (const Case& c : cases) {
    const std::string open = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
                                         attr(c.classname), attr(c.name));
    if (c.groups.empty()) {
      out << open << "/>\n";
      continue;
    }
    out << open << ">\n";
    for (const FindingGroup* g : c.groups) write_group(out, r, *g);
    out << "    </testcase>\n";
  }
  if (failed) {
    // The environment ended the run: its own case, so that a CI tab shows why.
    out << fmt::format(
        "    <testcase classname=\"{}\" name=\"run\" time=\"{:.3f}\">\n      <error "
        "type=\"error\" message=\"{}\">{}</error>\n    </testcase>\n",
        attr(r.model), r.stats.seconds, attr(r.error), xml(escape_lines(r.error)));
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

Status write_junit_report(const RunReport& report, const std::string& path) {
  return detail::write_report_file(path, to_junit(report), "JUnit");
}

}  // namespace prowl
