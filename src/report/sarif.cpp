#include "prowl/report/sarif.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "prowl/core/escape.hpp"
#include "prowl/core/version.hpp"
#include "prowl/report/groups.hpp"
#include "report_file.hpp"

namespace prowl {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// The uriBaseId of files under the run's base directory (run.originalUriBaseIds).
constexpr const char* kSrcRoot = "SRCROOT";

// A plain-text SARIF message from text the model or the system under test wrote: escaped for
// display (escape.hpp: no terminal controls or bidi overrides, line breaks kept), then as SARIF
// §3.11.5-6 asks: '{' and '}' doubled, since "{0}" would be a placeholder, and a "](" that could
// close an embedded link written "\](" (with any backslashes before it doubled), so that no text
// becomes a link. Brackets elsewhere are left as they are, as the standard allows.
std::string message_text(std::string_view raw) {
  const std::string text = escape_lines(raw);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '}') {
      out += c;
    } else if (c == ']' && i + 1 < text.size() && text[i + 1] == '(') {
      std::size_t slashes = 0;
      while (slashes < out.size() && out[out.size() - 1 - slashes] == '\\') ++slashes;
      out.append(slashes, '\\');
      out += '\\';
    }
    out += c;
  }
  return out;
}

Json message(std::string_view raw) { return Json{{"text", message_text(raw)}}; }

std::string_view level_of(Severity s) {
  switch (s) {
    case Severity::kCritical:
    case Severity::kHigh:
      return "error";
    case Severity::kMedium:
      return "warning";
    case Severity::kLow:
      break;
  }
  return "note";
}

// A path as a URI reference: unreserved characters and '/' as they are, every other byte
// percent-encoded.
std::string uri_path(const std::string& path) {
  std::string out;
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    const bool keep = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    out += keep ? std::string(1, c) : fmt::format("%{:02X}", u);
  }
  return out;
}

// A source file as an artifactLocation: relative to the base directory when it is (or lies under
// it), otherwise an absolute file:// URI.
Json artifact_location(const std::string& file, const fs::path& base) {
  const fs::path path = fs::path(file).lexically_normal();
  if (path.is_relative()) {
    return Json{{"uri", uri_path(path.generic_string())}, {"uriBaseId", kSrcRoot}};
  }
  const fs::path relative = path.lexically_relative(base);
  if (!base.empty() && !relative.empty() && *relative.begin() != "..") {
    return Json{{"uri", uri_path(relative.generic_string())}, {"uriBaseId", kSrcRoot}};
  }
  return Json{{"uri", "file://" + uri_path(path.generic_string())}};
}

// The directory as an absolute URI ending in '/', for originalUriBaseIds.
std::string directory_uri(const fs::path& base) {
  std::string path = base.lexically_normal().generic_string();
  if (path.empty() || path.back() != '/') path += '/';
  return "file://" + uri_path(path);
}

// One rule per invariant, and per kind of finding that names no invariant: what a result
// refers to by ruleId and ruleIndex.
class Rules {
 public:
  explicit Rules(const RunReport& r) : report_(r) {
    for (std::size_t i = 0; i < r.invariants.size(); ++i) add_invariant(i);
  }

  // The index of the rule the finding breaks; the rule is added when it is the first of it.
  std::size_t of(const Finding& f) {
    const std::string id = rule_id(f);
    const auto [at, added] = index_.try_emplace(id, rules_.size());
    if (added) rules_.push_back(kind_rule(id, f));
    return at->second;
  }
  const std::string& id(std::size_t index) const { return ids_[index]; }
  Json take() { return std::move(rules_); }

  static std::string rule_id(const Finding& f) {
    switch (f.kind) {
      case FindingKind::kInvariant:
        return "invariant/" + f.name;
      case FindingKind::kActionError:
        return "action_error/" + (f.action.empty() ? f.name : f.action);
      case FindingKind::kNondeterminism:
      case FindingKind::kServiceCrashed:
        break;
    }
    return std::string(to_string(f.kind));
  }

 private:
  void add_invariant(std::size_t i) {
    const std::string& name = report_.invariants[i];
    const InvariantDetails details =
        i < report_.invariant_details.size() ? report_.invariant_details[i] : InvariantDetails{};
    const std::string id = "invariant/" + name;
    if (!index_.try_emplace(id, rules_.size()).second) return;  // a name given twice
    const std::string text =
        details.description.empty()
            ? fmt::format("invariant '{}' holds in every reachable state", name)
            : details.description;
    rules_.push_back(rule(id, name, text, details.severity));
  }

  Json kind_rule(const std::string& id, const Finding& f) {
    std::string text;
    switch (f.kind) {
      case FindingKind::kInvariant:
        text = fmt::format("invariant '{}' holds in every reachable state", f.name);
        break;
      case FindingKind::kActionError:
        text = fmt::format("action '{}' runs without an error (it neither throws nor answers one)",
                           f.action.empty() ? f.name : f.action);
        break;
      case FindingKind::kNondeterminism:
        text = "every action reaches the same state when it runs again from the same state";
        break;
      case FindingKind::kServiceCrashed:
        text = "no service dies while an action runs";
        break;
    }
    return rule(id, id, text, f.severity);
  }

  Json rule(const std::string& id, const std::string& name, const std::string& text,
            Severity severity) {
    ids_.push_back(id);
    return Json{{"id", id},
                {"name", name},
                {"shortDescription", message(text)},
                {"defaultConfiguration", Json{{"level", level_of(severity)}}},
                {"properties", Json{{"severity", to_string(severity)}}}};
  }

  const RunReport& report_;
  Json rules_ = Json::array();
  std::vector<std::string> ids_;
  std::map<std::string, std::size_t> index_;
};

// A step as a code flow shows it, on one line once escaped: e.g. "refund [rejected]: order 0",
// or for a step that sent an HTTP request its request line,
// "pay: POST http://127.0.0.1:8080/orders/1/pay → 200".
std::string step_text(const TraceStep& s) {
  std::string text = s.action;
  if (!s.outcome.empty() && s.outcome != "ok") text += " [" + s.outcome + "]";
  if (s.http) {
    const std::string status = s.http->status == 0 ? "no response" : std::to_string(s.http->status);
    text += fmt::format(": {} {} → {}", s.http->method, s.http->url, status);
  } else if (!s.detail.empty()) {
    text += ": " + s.detail;
  }
  return text;
}

Json thread_flow_location(const Finding& f, std::size_t i) {
  const TraceStep& s = f.steps[i];
  const bool last = i + 1 == f.steps.size();
  Json properties{{"seed", detail::seed_text(s.seed)}, {"outcome", s.outcome}};
  if (s.http) properties["detail"] = s.detail;
  Json location{{"executionOrder", i + 1},
                {"location", Json{{"message", message(escape_text(step_text(s)))}}},
                {"kinds", Json::array({"call"})},
                {"importance", last ? "essential" : "important"}};
  if (last && !f.state.empty()) location["state"] = Json{{"state", message(f.state)}};
  location["properties"] = std::move(properties);
  return location;
}

// The steps as one thread flow. REQUIRES: the finding has steps (a flow has at least one).
Json code_flows(const Finding& f) {
  Json locations = Json::array();
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    locations.push_back(thread_flow_location(f, i));
  }
  const std::string text = fmt::format("{} step{} from the initial state", f.steps.size(),
                                       f.steps.size() == 1 ? "" : "s");
  return Json::array({Json{{"message", message(text)},
                           {"threadFlows", Json::array({Json{{"locations", locations}}})}}});
}

// Where the result points, as code scanning needs a file and a line (GitHub refuses a log with a
// result that has none): the invariant's declaration when the report knows it; else the file the
// finding names (a fuzz bucket's trace); else the file that declares the model's invariants, at
// its first line. A model that names no file at all gets the model by name only.
Json locations(const RunReport& r, const Finding& f, const fs::path& base) {
  auto physical = [&](const SourceLocation& where) {
    Json p{{"artifactLocation", artifact_location(where.file, base)},
           {"region", Json{{"startLine", std::max<std::uint32_t>(where.line, 1)}}}};
    return Json::array({Json{{"physicalLocation", std::move(p)}}});
  };
  const std::size_t n = std::min(r.invariants.size(), r.invariant_details.size());
  if (f.kind == FindingKind::kInvariant) {
    for (std::size_t i = 0; i < n; ++i) {
      const SourceLocation& where = r.invariant_details[i].where;
      if (r.invariants[i] == f.name && where.known()) return physical(where);
    }
  }
  if (f.where.known()) return physical(f.where);
  for (std::size_t i = 0; i < n; ++i) {
    const SourceLocation& where = r.invariant_details[i].where;
    if (where.known()) return physical({.file = where.file, .line = 1});
  }
  return Json::array(
      {Json{{"logicalLocations", Json::array({Json{{"name", r.model}, {"kind", "module"}}})}}});
}

// A bug and the place of one of its paths, for a result's message.
struct Place {
  std::size_t bug = 0, bugs = 0;  // 1-based
  std::size_t path = 0, paths = 0;
  std::size_t shortest = 0;  // the finding number of the bug's shortest path
};

std::string result_text(const Finding& f, const Place& p) {
  std::string text = f.message.empty() ? std::string(to_string(f.kind)) : f.message;
  text += fmt::format("\n(bug {} of {}: {} {}", p.bug, p.bugs, to_string(f.kind), f.name);
  if (p.paths == 1) return text + ")";
  if (p.path == 1) return text + fmt::format(", the shortest of {} paths)", p.paths);
  return text +
         fmt::format(", path {} of {}; the shortest is finding {})", p.path, p.paths, p.shortest);
}

Json result(const RunReport& r, std::size_t index, const Place& place, Rules& rules,
            const fs::path& base) {
  const Finding& f = r.findings[index];
  const std::size_t rule = rules.of(f);
  Json out{{"ruleId", rules.id(rule)},
           {"ruleIndex", rule},
           {"level", level_of(f.severity)},
           {"message", message(result_text(f, place))},
           {"locations", locations(r, f, base)},
           {"partialFingerprints",
            Json{{"prowlBug/v1", fmt::format("{}/{}", to_string(f.kind), f.name)}}}};
  // A finding in the initial state has no steps, and so no flow.
  if (!f.steps.empty()) out["codeFlows"] = code_flows(f);
  out["properties"] = Json{{"finding", index + 1},        {"bug", place.bug},
                           {"kind", to_string(f.kind)},   {"name", f.name},
                           {"action", f.action},          {"severity", to_string(f.severity)},
                           {"confirmed", f.confirmed},    {"unconfirmed", f.unconfirmed},
                           {"shrunkFrom", f.shrunk_from}, {"state", f.state}};
  return out;
}

// Results in the order of the findings, each placed in its bug.
Json results(const RunReport& r, Rules& rules, const fs::path& base) {
  const std::vector<FindingGroup> groups = group_findings(r.findings);
  std::vector<Place> places(r.findings.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::vector<std::size_t>& members = groups[g].findings;
    for (std::size_t k = 0; k < members.size(); ++k) {
      places[members[k]] = {g + 1, groups.size(), k + 1, members.size(), members.front() + 1};
    }
  }
  Json out = Json::array();
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    out.push_back(result(r, i, places[i], rules, base));
  }
  return out;
}

// How the run went: it succeeded unless the environment failed it or a signal stopped it; its
// error and warnings are notifications.
Json invocation(const RunReport& r) {
  Json notifications = Json::array();
  auto notify = [&](std::string_view level, std::string_view id, const std::string& text) {
    notifications.push_back(
        Json{{"descriptor", Json{{"id", id}}}, {"level", level}, {"message", message(text)}});
  };
  if (r.termination == Termination::kError) {
    notify("error", "run/error", r.error.empty() ? "the run failed" : r.error);
  } else if (r.termination == Termination::kInterrupted) {
    notify("warning", "run/interrupted",
           "the run was interrupted (SIGINT, SIGTERM or SIGHUP) before it explored everything");
  }
  for (const std::string& w : r.warnings) notify("warning", "run/warning", w);
  const bool ok =
      r.termination != Termination::kError && r.termination != Termination::kInterrupted;
  return Json{{"executionSuccessful", ok}, {"toolExecutionNotifications", notifications}};
}

Json run_properties(const RunReport& r) {
  const Stats& s = r.stats;
  return Json{{"model", r.model},
              {"seed", detail::seed_text(r.seed)},
              {"strategy", r.strategy},
              {"restoreMode", to_string(r.restore_mode)},
              {"termination", to_string(r.termination)},
              {"stats", Json{{"states", s.states},
                             {"transitions", s.transitions},
                             {"steps", s.steps},
                             {"replayedActions", s.replayed_actions},
                             {"restores", s.restores},
                             {"maxDepth", s.max_depth},
                             {"seconds", s.seconds}}},
              {"actionCoverage", r.action_coverage()},
              {"findings", group_findings(r.findings).size()},
              {"paths", r.findings.size()},
              {"sampled", r.sampled}};
}

}  // namespace

std::string to_sarif_with_base(const RunReport& r, const fs::path& base_dir) {
  const fs::path base = base_dir.lexically_normal();
  Rules rules(r);
  Json found = results(r, rules, base);  // adds the rules of findings that name no invariant
  // The descriptors the invocation's notifications refer to by id.
  auto descriptor = [](std::string_view id, std::string_view text) {
    return Json{{"id", id}, {"shortDescription", Json{{"text", text}}}};
  };
  Json notifications = Json::array(
      {descriptor("run/error", "The environment failed the run (a service, a database)."),
       descriptor("run/interrupted", "A signal stopped the run before it explored everything."),
       descriptor("run/warning", "Something the user should know about the run.")});
  Json driver{{"name", "prowl"},
              {"version", r.tool_version.empty() ? std::string(version()) : r.tool_version},
              {"notifications", std::move(notifications)},
              {"rules", rules.take()}};
  Json run{{"tool", Json{{"driver", std::move(driver)}}},
           {"invocations", Json::array({invocation(r)})}};
  if (base.is_absolute()) {
    run["originalUriBaseIds"] = Json{{kSrcRoot, Json{{"uri", directory_uri(base)}}}};
  }
  run["results"] = std::move(found);
  run["properties"] = run_properties(r);
  const Json doc{{"$schema", kSarifSchemaUri}, {"version", "2.1.0"}, {"runs", Json::array({run})}};
  // Replacement keeps invalid UTF-8 in properties (a detail, a state) from aborting the report.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string to_sarif(const RunReport& report) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  return to_sarif_with_base(report, ec ? fs::path() : cwd);
}

Status write_sarif_report(const RunReport& report, const std::string& path) {
  return detail::write_report_file(path, to_sarif(report), "SARIF");
}

}  // namespace prowl
