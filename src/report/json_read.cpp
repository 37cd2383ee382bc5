// Reading a JSON report back into a RunReport, for `prowl report IN.json --to FORMAT:FILE`: every
// field to_json() writes, checked for its type, each mistake named by its path in the document.
#include <charconv>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "prowl/core/escape.hpp"
#include "prowl/report/json.hpp"

namespace prowl {

namespace {

using Json = nlohmann::json;

// A field that is not what the schema says: its path ("findings[2].steps[0].seed") and why.
struct Mismatch {
  std::string path;
  std::string problem;
};

// A number as the file has it ("-1", "2.5"); any other value by its kind.
std::string shown(const Json& j);

std::string kind_of(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    default:
      return "a value of another kind";
  }
}

std::string shown(const Json& j) { return j.is_number() ? j.dump() : kind_of(j); }

// One object of the document and where it is; its getters throw a Mismatch naming the field.
class Fields {
 public:
  Fields(const Json& object, std::string path) : j_(object), path_(std::move(path)) {
    if (!j_.is_object()) throw Mismatch{path_, "expected an object, found " + kind_of(j_)};
  }

  std::string at(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }
  const Json& need(std::string_view key) const {
    auto it = j_.find(key);
    if (it == j_.end()) throw Mismatch{at(key), "missing"};
    return *it;
  }
  bool has(std::string_view key) const { return j_.contains(key); }

  std::string text(std::string_view key) const {
    const Json& v = need(key);
    if (!v.is_string()) throw Mismatch{at(key), "expected a string, found " + kind_of(v)};
    return v.get<std::string>();
  }
  bool flag(std::string_view key) const {
    const Json& v = need(key);
    if (!v.is_boolean()) throw Mismatch{at(key), "expected true or false, found " + kind_of(v)};
    return v.get<bool>();
  }
  std::uint64_t count(std::string_view key) const {
    const Json& v = need(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
      throw Mismatch{at(key), "expected a whole number of at least 0, found " + shown(v)};
    }
    return v.get<std::uint64_t>();
  }
  double number(std::string_view key) const {
    const Json& v = need(key);
    if (!v.is_number()) throw Mismatch{at(key), "expected a number, found " + kind_of(v)};
    return v.get<double>();
  }
  // A 64-bit seed, written as a decimal string.
  std::uint64_t seed(std::string_view key) const {
    const std::string s = text(key);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
      throw Mismatch{at(key), fmt::format("expected a seed as a decimal string, found \"{}\"",
                                          escape_text(s))};
    }
    return value;
  }
  const Json& list(std::string_view key) const {
    const Json& v = need(key);
    if (!v.is_array()) throw Mismatch{at(key), "expected an array, found " + kind_of(v)};
    return v;
  }
  std::vector<std::string> texts(std::string_view key) const {
    std::vector<std::string> out;
    const Json& v = list(key);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        throw Mismatch{fmt::format("{}[{}]", at(key), i),
                       "expected a string, found " + kind_of(v[i])};
      }
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  // A value named by one of `names`' to_string(): the enumerator it names.
  template <typename Enum, std::size_t N>
  Enum choice(std::string_view key, const Enum (&values)[N]) const {
    const std::string s = text(key);
    std::vector<std::string> names;
    for (Enum e : values) {
      if (to_string(e) == s) return e;
      names.emplace_back(to_string(e));
    }
    throw Mismatch{at(key),
                   fmt::format("\"{}\" is not one of: {}", escape_text(s), fmt::join(names, ", "))};
  }

 private:
  const Json& j_;
  std::string path_;
};

constexpr Termination kTerminations[] = {
    Termination::kExhausted,      Termination::kMaxSteps,     Termination::kTimeLimit,
    Termination::kCoverageTarget, Termination::kFirstFinding, Termination::kInterrupted,
    Termination::kSampled,        Termination::kError,        Termination::kMemory};
constexpr RestoreMode kRestoreModes[] = {RestoreMode::kSnapshot, RestoreMode::kStack,
                                         RestoreMode::kReset};
constexpr FindingKind kFindingKinds[] = {FindingKind::kInvariant, FindingKind::kActionError,
                                         FindingKind::kNondeterminism,
                                         FindingKind::kServiceCrashed};
constexpr Severity kSeverities[] = {Severity::kCritical, Severity::kHigh, Severity::kMedium,
                                    Severity::kLow};

TraceStep read_step(const Fields& s) {
  TraceStep step{.action = s.text("action"),
                 .seed = s.seed("seed"),
                 .outcome = s.text("outcome"),
                 .detail = s.text("detail")};
  if (s.has("http")) {
    const Fields h(s.need("http"), s.at("http"));
    const std::uint64_t status = h.count("status");
    if (status > 999) throw Mismatch{h.at("status"), fmt::format("{} is no status", status)};
    step.http = HttpExchange{.method = h.text("method"),
                             .url = h.text("url"),
                             .status = static_cast<int>(status),
                             .request_body = h.text("request_body"),
                             .response_body = h.text("response_body")};
  }
  return step;
}

Finding read_finding(const Fields& f) {
  Finding finding;
  finding.kind = f.choice("kind", kFindingKinds);
  finding.name = f.text("name");
  finding.action = f.text("action");
  finding.severity = f.choice("severity", kSeverities);
  finding.message = f.text("message");
  finding.confirmed = f.flag("confirmed");
  finding.shrunk_from = f.count("shrunk_from");
  finding.state = f.text("state");
  const Json& steps = f.list("steps");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    finding.steps.push_back(read_step(Fields(steps[i], fmt::format("{}[{}]", f.at("steps"), i))));
  }
  finding.unconfirmed = f.text("unconfirmed");
  if (f.has("where")) {
    const Fields w(f.need("where"), f.at("where"));
    const std::uint64_t line = w.count("line");
    if (line > UINT32_MAX) throw Mismatch{w.at("line"), "too large"};
    finding.where = {.file = w.text("file"), .line = static_cast<std::uint32_t>(line)};
  }
  return finding;
}

void read_stats(const Fields& s, Stats& stats) {
  stats.states = s.count("states");
  stats.transitions = s.count("transitions");
  stats.steps = s.count("steps");
  stats.replayed_actions = s.count("replayed_actions");
  stats.restores = s.count("restores");
  const std::uint64_t depth = s.count("max_depth");
  if (depth > UINT32_MAX) throw Mismatch{s.at("max_depth"), "too large"};
  stats.max_depth = static_cast<std::uint32_t>(depth);
  stats.seconds = s.number("seconds");
  stats.graph_bytes = s.count("graph_bytes");
}

void read_settings(const Fields& s, RunSettings& settings) {
  settings.max_steps = s.count("max_steps");
  const std::uint64_t depth = s.count("max_depth");
  const std::uint64_t workers = s.count("workers");
  if (depth > UINT32_MAX) throw Mismatch{s.at("max_depth"), "too large"};
  if (workers > UINT32_MAX) throw Mismatch{s.at("workers"), "too large"};
  settings.max_depth = static_cast<std::uint32_t>(depth);
  settings.time_limit = s.number("time_limit");
  settings.coverage_target = s.number("coverage_target");
  settings.stop_on_first = s.flag("stop_on_first");
  settings.confirm = s.flag("confirm");
  settings.shrink = s.flag("shrink");
  settings.workers = static_cast<std::uint32_t>(workers);
  // Reports written before threads and memory limits have neither.
  if (s.has("threads")) {
    const std::uint64_t threads = s.count("threads");
    if (threads > UINT32_MAX) throw Mismatch{s.at("threads"), "too large"};
    settings.threads = static_cast<std::uint32_t>(threads);
  }
  if (s.has("memory_limit")) settings.memory_limit = s.count("memory_limit");
}

void read_coverage(const Fields& c, std::vector<ActionCoverage>& coverage) {
  const Json& actions = c.list("actions");
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const Fields a(actions[i], fmt::format("{}[{}]", c.at("actions"), i));
    coverage.push_back({.name = a.text("name"),
                        .enabled = a.count("enabled"),
                        .executed = a.count("executed"),
                        .ok = a.count("ok"),
                        .rejected = a.count("rejected"),
                        .errors = a.count("errors")});
  }
}

// Edges name their actions; the graph numbers them as the coverage lists them.
ReportGraph read_graph(const Fields& g, const std::vector<ActionCoverage>& coverage) {
  ReportGraph graph;
  graph.states = g.count("states");
  const Json& edges = g.list("edges");
  // Each state but the initial one was reached by a recorded edge: more states than that is not
  // a graph a run wrote (and would have a drawing allocate for nothing).
  if (graph.states > edges.size() + 1 || graph.states == 0) {
    throw Mismatch{g.at("states"), fmt::format("{} states for {} edges; a run's graph has from 1 "
                                               "to edges + 1",
                                               graph.states, edges.size())};
  }
  std::unordered_map<std::string, ActionId> ids;
  for (std::size_t i = 0; i < coverage.size(); ++i) {
    ids.emplace(coverage[i].name, static_cast<ActionId>(i));
  }
  graph.edges.reserve(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const Json& e = edges[i];
    const std::string path = fmt::format("{}[{}]", g.at("edges"), i);
    if (!e.is_array() || e.size() != 3 || !e[0].is_number_unsigned() || !e[1].is_string() ||
        !e[2].is_number_unsigned()) {
      throw Mismatch{path, "expected [from, \"action\", to]"};
    }
    const std::uint64_t from = e[0].get<std::uint64_t>();
    const std::uint64_t to = e[2].get<std::uint64_t>();
    if (from >= graph.states || to >= graph.states) {
      throw Mismatch{path, fmt::format("a state is not below graph.states ({})", graph.states)};
    }
    auto it = ids.find(e[1].get<std::string>());
    if (it == ids.end()) {
      throw Mismatch{path, fmt::format("action \"{}\" is not in coverage.actions",
                                       escape_text(e[1].get<std::string>()))};
    }
    graph.edges.push_back({static_cast<StateId>(from), it->second, static_cast<StateId>(to)});
  }
  return graph;
}

// Each invariant's severity, description and place in the model, in the order of "invariants".
std::vector<InvariantDetails> read_invariant_details(const Fields& d,
                                                     const std::vector<std::string>& names) {
  std::vector<InvariantDetails> out;
  const Json& list = d.list("invariant_details");
  // Empty: a report built without them (RunReport::invariant_details).
  if (!list.empty() && list.size() != names.size()) {
    throw Mismatch{"invariant_details",
                   fmt::format("{} entries for {} invariants", list.size(), names.size())};
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Fields f(list[i], fmt::format("invariant_details[{}]", i));
    if (f.text("name") != names[i]) {
      throw Mismatch{f.at("name"),
                     fmt::format("expected \"{}\", as invariants[{}]", escape_text(names[i]), i)};
    }
    InvariantDetails details{.severity = f.choice("severity", kSeverities),
                             .description = f.text("description")};
    if (!f.need("file").is_null()) {
      const std::uint64_t line = f.need("line").is_null() ? 0 : f.count("line");
      if (line > UINT32_MAX) throw Mismatch{f.at("line"), "too large"};
      details.where = {.file = f.text("file"), .line = static_cast<std::uint32_t>(line)};
    }
    out.push_back(std::move(details));
  }
  return out;
}

RunReport read_report(const Fields& d) {
  const std::string version = d.text("version");
  if (version != kJsonReportVersion) {
    throw Mismatch{"version", fmt::format("this prowl reads version \"{}\" reports, not \"{}\"",
                                          kJsonReportVersion, escape_text(version))};
  }
  if (d.text("tool") != "prowl") throw Mismatch{"tool", "not a report prowl wrote"};
  RunReport r;
  if (d.has("tool_version")) r.tool_version = d.text("tool_version");
  r.model = d.text("model");
  r.seed = d.seed("seed");
  r.strategy = d.text("strategy");
  r.restore_mode = d.choice("restore_mode", kRestoreModes);
  r.termination = d.choice("termination", kTerminations);
  // Added within version 1: absent from the reports of earlier prowls.
  if (d.has("settings")) read_settings(Fields(d.need("settings"), "settings"), r.settings);
  read_stats(Fields(d.need("stats"), "stats"), r.stats);
  const Json& findings = d.list("findings");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    r.findings.push_back(read_finding(Fields(findings[i], fmt::format("findings[{}]", i))));
  }
  read_coverage(Fields(d.need("coverage"), "coverage"), r.coverage);
  if (d.has("invariants")) r.invariants = d.texts("invariants");
  if (d.has("invariant_details")) r.invariant_details = read_invariant_details(d, r.invariants);
  r.warnings = d.texts("warnings");
  r.sampled = d.texts("sampled");
  const Json& error = d.need("error");
  if (!error.is_null() && !error.is_string()) {
    throw Mismatch{"error", "expected a string or null, found " + kind_of(error)};
  }
  if (error.is_string()) r.error = error.get<std::string>();
  if (d.has("graph")) r.graph = read_graph(Fields(d.need("graph"), "graph"), r.coverage);
  return r;
}

}  // namespace

Result<RunReport> parse_json_report(std::string_view text) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {  // parse errors, and numbers out of range (1e999)
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ...": the part after
    // the library's tag.
    std::string_view what = e.what();
    const std::size_t tag = what.find("] ");
    if (tag != std::string_view::npos) what.remove_prefix(tag + 2);
    return Status::invalid(fmt::format("not JSON: {}", what));
  }
  try {
    return read_report(Fields(doc, ""));
  } catch (const Mismatch& m) {
    return Status::invalid(
        fmt::format("{}: {}", m.path.empty() ? "the document" : m.path, m.problem));
  }
}

}  // namespace prowl
