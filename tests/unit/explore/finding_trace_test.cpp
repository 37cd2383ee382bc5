#include "prowl/explore/finding_trace.hpp"

#include <gtest/gtest.h>

#include "prowl/core/exit_code.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/replay.hpp"
#include "prowl/strategy/bfs.hpp"
#include "refund/refund.hpp"

namespace prowl {
namespace {

RunReport refund_run() {
  RunReport report;
  report.model = "refund";
  report.strategy = "bfs";
  report.seed = 42;
  return report;
}

Finding double_refund() {
  Finding f;
  f.kind = FindingKind::kInvariant;
  f.name = "refund_at_most_once";
  f.severity = Severity::kCritical;
  f.message = "order 0 was refunded 20 for a price of 10";
  f.steps = {{"create_order", 11, "ok", "order 0"},
             {"refund", 22, "ok", "order 0"},
             {"refund", 18446744073709551615u, "ok", "order 0"}};
  return f;
}

// The steps' actions and seeds, which is all a trace keeps of them.
std::vector<std::pair<std::string, std::uint64_t>> actions_and_seeds(
    const std::vector<TraceStep>& steps) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const TraceStep& s : steps) out.emplace_back(s.action, s.seed);
  return out;
}

TEST(FindingTrace, WritesAFindingAsAnExplorerTrace) {
  EXPECT_EQ(trace::write_trace(finding_to_trace(refund_run(), double_refund())),
            "prowl-trace 1 refund kind=explore finding=invariant:refund_at_most_once "
            "severity=critical seed=42 strategy=bfs\n"
            "# ok: order 0\n"
            "11 create_order\n"
            "# ok: order 0\n"
            "22 refund\n"
            "# ok: order 0\n"
            "18446744073709551615 refund\n"
            "# fails after step 3: order 0 was refunded 20 for a price of 10\n");
}

TEST(FindingTrace, ReadsItsOwnTextBackAsTheSameSteps) {
  const auto model = examples::make_refund_model();
  const Finding finding = double_refund();
  auto parsed =
      trace::parse_trace(trace::write_trace(finding_to_trace(refund_run(), finding)), "t.trace");
  ASSERT_TRUE(parsed) << parsed.status().message();
  auto steps = trace_to_steps(*parsed, model, "t.trace");
  ASSERT_TRUE(steps) << steps.status().message();
  EXPECT_EQ(actions_and_seeds(*steps), actions_and_seeds(finding.steps));
  for (const TraceStep& s : *steps) {
    EXPECT_EQ(s.outcome, "");
    EXPECT_EQ(s.detail, "");
  }
  auto failure = recorded_failure(*parsed, "t.trace");
  ASSERT_TRUE(failure) << failure.status().message();
  EXPECT_EQ(*failure, (FailureId{FindingKind::kInvariant, "refund_at_most_once"}));
  EXPECT_EQ(parsed->header.option("seed"), "42");
  EXPECT_EQ(parsed->header.option("strategy"), "bfs");
}

TEST(FindingTrace, ReplaysEveryFindingOfARealRunToTheSameFailure) {
  const auto model = examples::make_refund_model();
  Bfs bfs;
  Options options;
  options.seed = 42;
  auto report = explore(model, bfs, options);
  ASSERT_TRUE(report) << report.status().message();
  ASSERT_EQ(report->findings.size(), 3u);
  auto world = model.make_world();
  ASSERT_TRUE(world);
  ASSERT_TRUE((*world)->begin());
  Replayer replayer(model, **world);
  for (const Finding& f : report->findings) {
    auto parsed = trace::parse_trace(trace::write_trace(finding_to_trace(*report, f)));
    ASSERT_TRUE(parsed) << parsed.status().message();
    auto steps = trace_to_steps(*parsed, model, "<trace>");
    ASSERT_TRUE(steps) << steps.status().message();
    EXPECT_EQ(actions_and_seeds(*steps), actions_and_seeds(f.steps));
    auto r = replayer.run(*steps, /*keep_going=*/true);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_NE(r->find(f.kind, f.name, f.steps.size()), nullptr) << f.name;
  }
}

TEST(FindingTrace, CutsDetailsAndMessagesToOneShortCommentLine) {
  Finding f;
  f.kind = FindingKind::kActionError;
  f.name = "pay";
  f.message = "boom\nstack: a\nb";
  f.steps = {{"pay", 7, "error", std::string(130, 'x') + " tail"}};
  const trace::Trace t = finding_to_trace(f, trace::Header{"shop", {}});
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.steps[0].comments_before,
            std::vector<std::string>{"error: " + std::string(120, 'x') + "..."});
  EXPECT_EQ(t.trailing_comments, std::vector<std::string>{"fails after step 1: boom..."});
}

TEST(FindingTrace, CutsACommentAtACharacterBoundary) {
  Finding f;
  f.name = "i";
  // 119 ASCII bytes, then a two-byte character across the 120-byte cut.
  f.steps = {{"a", 1, "ok", std::string(119, 'x') + "\xc3\xa9" + "yz"}};
  const trace::Trace t = finding_to_trace(f, trace::Header{"m", {}});
  EXPECT_EQ(t.steps[0].comments_before,
            std::vector<std::string>{"ok: " + std::string(119, 'x') + "..."});
}

TEST(FindingTrace, WritesAFailingInitialStateAsATraceWithoutSteps) {
  Finding f;
  f.kind = FindingKind::kInvariant;
  f.name = "starts_valid";
  f.severity = Severity::kLow;
  f.message = "stock is -1";
  RunReport report = refund_run();
  report.strategy = "dfs";
  report.seed = 0;
  EXPECT_EQ(trace::write_trace(finding_to_trace(report, f)),
            "prowl-trace 1 refund kind=explore finding=invariant:starts_valid severity=low "
            "seed=0 strategy=dfs\n"
            "# fails in the initial state: stock is -1\n");
}

TEST(FindingTrace, NamesFilesByNumberKindAndName) {
  Finding f = double_refund();
  EXPECT_EQ(finding_trace_file_name(1, f), "001-invariant-refund_at_most_once.trace");
  f.kind = FindingKind::kActionError;
  f.name = "POST /orders/{id} pay";
  EXPECT_EQ(finding_trace_file_name(12, f), "012-action_error-POST__orders__id__pay.trace");
  f.kind = FindingKind::kNondeterminism;
  f.name = "tick.v2";
  EXPECT_EQ(finding_trace_file_name(1234, f), "1234-nondeterminism-tick.v2.trace");
}

TEST(FindingTrace, NamesEachKindOfFailure) {
  EXPECT_EQ((FailureId{FindingKind::kInvariant, "a"}).to_string(), "invariant:a");
  EXPECT_EQ((FailureId{FindingKind::kActionError, "b"}).to_string(), "action_error:b");
  EXPECT_EQ((FailureId{FindingKind::kNondeterminism, "c:d"}).to_string(), "nondeterminism:c:d");
}

// The first failure of turning `text` into steps of the refund model, or "" if there is none.
std::string rejection(std::string_view text) {
  const auto model = examples::make_refund_model();
  auto parsed = trace::parse_trace(text, "t.trace");
  if (!parsed) return "parse: " + parsed.status().message();
  auto steps = trace_to_steps(*parsed, model, "t.trace");
  if (!steps) {
    EXPECT_EQ(steps.status().exit_code(), kExitUsage);
    return steps.status().message();
  }
  return "";
}

TEST(FindingTrace, AcceptsAHandWrittenTraceWithoutOptions) {
  EXPECT_EQ(rejection("prowl-trace 1 refund\n1 create_order\n\n# twice\n2 refund\n"), "");
}

TEST(FindingTrace, RejectsAStepWithArgumentsByItsLine) {
  EXPECT_EQ(rejection("prowl-trace 1 refund kind=explore\n1 create_order\n# comment\n"
                      "2 refund 5 \"x y\"\n"),
            "t.trace:4: step 'refund' has 2 arguments; explorer actions take none (a step is "
            "'SEED ACTION')");
}

TEST(FindingTrace, RejectsAStepWithAReturnLine) {
  EXPECT_EQ(rejection("prowl-trace 1 refund\n1 create_order\nreturn o1\n"),
            "t.trace:2: step 'create_order' has a return line; explorer actions return no "
            "handles");
}

TEST(FindingTrace, RejectsATraceOfAnotherModel) {
  EXPECT_EQ(rejection("prowl-trace 1 shop kind=explore\n1 create_order\n"),
            "t.trace:1: the trace is of model 'shop', not of model 'refund'");
}

TEST(FindingTrace, RejectsATraceOfAnotherKind) {
  EXPECT_EQ(rejection("prowl-trace 1 refund kind=fuzz\n1 create_order\n"),
            "t.trace:1: a trace of kind 'fuzz'; only explorer traces (kind=explore) replay "
            "against a model's actions");
}

TEST(FindingTrace, RejectsAnUnknownActionByItsLine) {
  EXPECT_EQ(rejection("prowl-trace 1 refund\n1 create_order\n\n2 refnud\n"),
            "t.trace:4: unknown action 'refnud'; the actions of model 'refund' are: "
            "create_order, refund, cancel");
}

// The failure recorded in a trace with this header, or its error message.
std::string recorded(std::string_view header) {
  auto parsed = trace::parse_trace(std::string(header) + "\n", "t.trace");
  EXPECT_TRUE(parsed) << parsed.status().message();
  if (!parsed) return {};
  auto failure = recorded_failure(*parsed, "t.trace");
  if (!failure) return failure.status().message();
  return *failure ? (*failure)->to_string() : "none";
}

TEST(FindingTrace, ReadsTheRecordedFailure) {
  EXPECT_EQ(recorded("prowl-trace 1 m"), "none");
  EXPECT_EQ(recorded("prowl-trace 1 m finding=invariant:x"), "invariant:x");
  EXPECT_EQ(recorded("prowl-trace 1 m finding=action_error:pay:twice"), "action_error:pay:twice");
  EXPECT_EQ(recorded("prowl-trace 1 m finding=nondeterminism:tick"), "nondeterminism:tick");
  EXPECT_EQ(recorded("prowl-trace 1 m finding=service_crashed:service"), "service_crashed:service");
}

TEST(FindingTrace, RejectsAMalformedRecordedFailure) {
  const std::string expected =
      " is not KIND:NAME with KIND one of invariant, action_error, nondeterminism, "
      "service_crashed";
  EXPECT_EQ(recorded("prowl-trace 1 m finding=invariant"),
            "t.trace:1: option finding=invariant" + expected);
  EXPECT_EQ(recorded("prowl-trace 1 m finding=invariant:"),
            "t.trace:1: option finding=invariant:" + expected);
  EXPECT_EQ(recorded("prowl-trace 1 m finding=crash:x"),
            "t.trace:1: option finding=crash:x" + expected);
  EXPECT_EQ(recorded("prowl-trace 1 m finding=\"\""), "t.trace:1: option finding=\"\"" + expected);
}

}  // namespace
}  // namespace prowl
