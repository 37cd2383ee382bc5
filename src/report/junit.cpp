#include "prowl/report/junit.hpp"

#include <algorithm>
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
// character but '\n' and is valid UTF-8 without surrogates; of what XML 1.0 forbids, only U+FFFE
// and U+FFFF (EF BF BE, EF BF BF) can be left, and they are written as \ufffe and \uffff.
std::string xml(std::string_view text, bool attribute = false) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\xEF' && i + 2 < text.size() && text[i + 1] == '\xBF' &&
        (text[i + 2] == '\xBE' || text[i + 2] == '\xBF')) {
      out += text[i + 2] == '\xBE' ? "\\ufffe" : "\\uffff";
      i += 2;
      continue;
    }
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

// What a finding fails: an invariant, an action (it threw, answered an error, or ran
// nondeterministically), or something else (a service that died) that gets a case of its own.
enum class Subject { kInvariant, kAction, kOther };
Subject subject_of(FindingKind kind) {
  switch (kind) {
    case FindingKind::kInvariant:
      return Subject::kInvariant;
    case FindingKind::kActionError:
    case FindingKind::kNondeterminism:
      return Subject::kAction;
    default:
      return Subject::kOther;
  }
}

// Invariants first, then actions, as declared; a bug names one of them, or gets a case of its
// own: an action named by its value (a parameter the state gives, listed by place) under the
// actions, anything else under the findings.
std::vector<Case> cases_of(const RunReport& r, const std::vector<FindingGroup>& groups) {
  std::vector<Case> cases;
  std::map<std::pair<Subject, std::string>, std::size_t> at;
  for (const auto& name : r.invariants) {
    at.emplace(std::make_pair(Subject::kInvariant, name), cases.size());
    cases.push_back({r.model + ".invariants", name, {}});
  }
  for (const auto& c : r.coverage) {
    at.emplace(std::make_pair(Subject::kAction, c.name), cases.size());
    cases.push_back({r.model + ".actions", c.name, {}});
  }
  static constexpr const char* kClass[] = {".invariants", ".actions", ".findings"};
  for (const FindingGroup& g : groups) {
    const Finding& f = r.findings[g.findings.front()];
    const Subject subject = subject_of(f.kind);
    const auto [it, added] = at.emplace(std::make_pair(subject, f.name), cases.size());
    if (added) cases.push_back({r.model + kClass[static_cast<int>(subject)], f.name, {}});
    cases[it->second].groups.push_back(&g);
  }
  return cases;
}

// <failure> for an invariant or a nondeterministic action, <error> when an action or a service
// failed.
bool is_failure(FindingKind kind) {
  return kind == FindingKind::kInvariant || kind == FindingKind::kNondeterminism;
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
void write_junit_group(std::ostringstream& out, const RunReport& r, const FindingGroup& g) {
  const Finding& f = r.findings[g.findings.front()];
  const char* element = is_failure(f.kind) ? "failure" : "error";
  std::ostringstream text;
  write_finding_group(text, r, g);
  const std::string message = f.message.empty() ? std::string(to_string(f.kind)) : f.message;
  out << fmt::format("      <{} type=\"{}\" message=\"{}\">{}</{}>\n", element, to_string(f.kind),
                     attr(message), xml(text.str()), element);
}

// Why a run that did not explore everything it could is not a pass: the environment failed it,
// or a signal stopped it. "" for the other ends.
std::string unfinished(const RunReport& r) {
  if (r.termination == Termination::kError) return r.error.empty() ? "the run failed" : r.error;
  if (r.termination == Termination::kInterrupted) {
    return "the run was interrupted (SIGINT, SIGTERM or SIGHUP) before it explored everything";
  }
  return "";
}

}  // namespace

std::string to_junit(const RunReport& r) {
  const std::vector<FindingGroup> groups = group_findings(r.findings);
  const std::vector<Case> cases = cases_of(r, groups);
  const std::string why = unfinished(r);
  // Nothing explored (a service that never started): the checks did not run, they did not pass.
  const bool nothing = r.stats.states == 0;
  std::size_t failures = 0, errors = why.empty() ? 0 : 1, skipped = 0;
  for (const Case& c : cases) {  // each case counts once: an error above a failure
    const bool error = std::any_of(c.groups.begin(), c.groups.end(), [&](const FindingGroup* g) {
      return !is_failure(r.findings[g->findings.front()].kind);
    });
    if (error) {
      ++errors;
    } else if (!c.groups.empty()) {
      ++failures;
    } else if (nothing) {
      ++skipped;
    }
  }
  const std::size_t tests = cases.size() + (why.empty() ? 0 : 1);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"prowl\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n",
      tests, failures, errors, r.stats.seconds);
  out << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      attr(r.model), tests, failures, errors, skipped, r.stats.seconds);
  write_properties(out, r, groups.size());
  for (const Case& c : cases) {
    const std::string open = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
                                         attr(c.classname), attr(c.name));
    if (c.groups.empty()) {
      out << open
          << (nothing ? ">\n      <skipped message=\"nothing was explored\"/>\n"
                        "    </testcase>\n"
                      : "/>\n");
      continue;
    }
    out << open << ">\n";
    for (const FindingGroup* g : c.groups) write_junit_group(out, r, *g);
    out << "    </testcase>\n";
  }
  if (!why.empty()) {
    // The run did not finish: its own case, so that a CI tab shows why and is not all green.
    out << fmt::format(
        "    <testcase classname=\"{}\" name=\"run\" time=\"{:.3f}\">\n      <error "
        "type=\"{}\" message=\"{}\">{}</error>\n    </testcase>\n",
        attr(r.model), r.stats.seconds, to_string(r.termination), attr(why),
        xml(escape_lines(why)));
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

Status write_junit_report(const RunReport& report, const std::string& path) {
  return detail::write_report_file(path, to_junit(report), "JUnit");
}

}  // namespace prowl
