#include "prowl/explore/finding_trace.hpp"

#include <utility>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"

namespace prowl {

namespace {

constexpr std::size_t kCommentBytes = 120;

// `text` as one short comment line: its first line, escaped (escape_text), cut to about
// kCommentBytes bytes at a UTF-8 character boundary, with "..." when something was left out.
std::string one_line(std::string_view whole) {
  const std::size_t nl = whole.find_first_of("\r\n");
  bool cut = nl != std::string_view::npos && whole.find_first_not_of(" \r\n", nl) != whole.npos;
  const std::string escaped = escape_text(whole.substr(0, nl));
  std::string_view text = escaped;
  if (text.size() > kCommentBytes) {
    std::size_t end = kCommentBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end);
    cut = true;
  }
  std::string out(text);
  if (cut) out += "...";
  return out;
}

Status invalid_at(std::string_view source, std::size_t line, const std::string& message) {
  return Status::invalid(fmt::format("{}:{}: {}", source, line, message));
}

}  // namespace

std::string_view trace_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::kInvariant:
      return "invariant";
    case FindingKind::kActionError:
      return "action_error";
    case FindingKind::kNondeterminism:
      return "nondeterminism";
    case FindingKind::kServiceCrashed:
      return "service_crashed";
  }
  return "invariant";
}

std::string FailureId::to_string() const {
  return fmt::format("{}:{}", trace_kind_name(kind), name);
}

trace::Header finding_trace_header(const RunReport& report, const Finding& finding) {
  trace::Header header;
  header.model = report.model;
  header.set_option("kind", std::string(kExploreTraceKind));
  header.set_option("finding", FailureId{finding.kind, finding.name}.to_string());
  header.set_option("severity", std::string(to_string(finding.severity)));
  header.set_option("seed", std::to_string(report.seed));
  header.set_option("strategy", report.strategy);
  return header;
}

trace::Trace finding_to_trace(const Finding& finding, trace::Header header) {
  trace::Trace out;
  out.header = std::move(header);
  for (const TraceStep& s : finding.steps) {
    trace::Step step;
    step.seed = s.seed;
    step.action = s.action;
    const std::string outcome = s.outcome.empty() ? "ok" : s.outcome;
    step.comments_before.push_back(
        s.detail.empty() ? outcome : fmt::format("{}: {}", outcome, one_line(s.detail)));
    out.steps.push_back(std::move(step));
  }
  std::string where = finding.steps.empty()
                          ? std::string("fails in the initial state")
                          : fmt::format("fails after step {}", finding.steps.size());
  if (!finding.message.empty()) where += ": " + one_line(finding.message);
  out.trailing_comments.push_back(std::move(where));
  return out;
}

trace::Trace finding_to_trace(const RunReport& report, const Finding& finding) {
  return finding_to_trace(finding, finding_trace_header(report, finding));
}

std::string finding_trace_file_name(std::size_t number, const Finding& finding) {
  std::string name = finding.name;
  for (char& c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    if (!keep) c = '_';
  }
  return fmt::format("{:03}-{}-{}.trace", number, trace_kind_name(finding.kind), name);
}

Result<std::vector<TraceStep>> trace_to_steps(const trace::Trace& trace, const Model& model,
                                              std::string_view source) {
  // The header is the first line of every trace prowl writes; the reader keeps no line for it.
  constexpr std::size_t kHeaderLine = 1;
  if (auto kind = trace.header.option("kind"); kind && *kind != kExploreTraceKind) {
    return invalid_at(source, kHeaderLine,
                      fmt::format("a trace of kind '{}'; only explorer traces (kind={}) replay "
                                  "against a model's actions",
                                  *kind, kExploreTraceKind));
  }
  if (trace.header.model != model.name()) {
    return invalid_at(source, kHeaderLine,
                      fmt::format("the trace is of model '{}', not of model '{}'",
                                  trace.header.model, model.name()));
  }
  std::vector<TraceStep> steps;
  steps.reserve(trace.steps.size());
  for (const trace::Step& s : trace.steps) {
    if (!s.args.empty()) {
      return invalid_at(source, s.line,
                        fmt::format("step '{}' has {} argument{}; explorer actions take none "
                                    "(a step is 'SEED ACTION')",
                                    s.action, s.args.size(), s.args.size() == 1 ? "" : "s"));
    }
    if (!s.returns.empty()) {
      return invalid_at(source, s.line,
                        fmt::format("step '{}' has a return line; explorer actions return no "
                                    "handles",
                                    s.action));
    }
    if (!model.may_name(s.action)) {
      std::vector<std::string_view> known;
      for (const Action& a : model.actions()) known.push_back(a.name);
      return invalid_at(source, s.line,
                        fmt::format("unknown action '{}'; the actions of model '{}' are: {}",
                                    s.action, model.name(), fmt::join(known, ", ")));
    }
    steps.push_back({s.action, s.seed, {}, {}});
  }
  return steps;
}

Result<std::optional<FailureId>> recorded_failure(const trace::Trace& trace,
                                                  std::string_view source) {
  const std::optional<std::string> text = trace.header.option("finding");
  if (!text) return std::optional<FailureId>();
  const std::size_t colon = text->find(':');
  const std::string_view kind =
      std::string_view(*text).substr(0, colon == std::string::npos ? 0 : colon);
  for (FindingKind k : {FindingKind::kInvariant, FindingKind::kActionError,
                        FindingKind::kNondeterminism, FindingKind::kServiceCrashed}) {
    if (kind == trace_kind_name(k) && colon + 1 < text->size()) {
      return std::optional<FailureId>(FailureId{k, text->substr(colon + 1)});
    }
  }
  return invalid_at(source, 1,
                    fmt::format("option finding={} is not KIND:NAME with KIND one of invariant, "
                                "action_error, nondeterminism, service_crashed",
                                trace::quote_token(*text)));
}

}  // namespace prowl
