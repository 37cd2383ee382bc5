// An action that fails with an error may still have changed the system: the after-invariants
// judge the state it left, and the error is reported at the higher of the two severities, with
// what they found, by the exploration and by the replay that confirms it alike.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/explore/replay.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"

namespace prowl {
namespace {

// A bank of two accounts holding 10 between them. `transfer` moves 5 from a to b; its half-done
// version takes the money out of a, then throws before paying b in.
struct Bank {
  int a = 10;
  int b = 0;
  friend bool operator==(const Bank&, const Bank&) = default;
};

ObjectModel<Bank> bank_model(Severity conserved_severity) {
  ObjectModel<Bank> m("bank", Bank{});
  m.action("transfer").when([](const Bank& s) { return s.a >= 5; }).run([](Bank& s) {
    s.a -= 5;
    s.b += 5;
  });
  m.action("half_transfer").when([](const Bank& s) { return s.a >= 5; }).run([](Bank& s) {
    s.a -= 5;
    throw std::runtime_error("timeout paying in");
  });
  m.action("fail_cleanly").max_per_path(1).run([](Bank&) {
    throw std::runtime_error("refused without a change");
  });
  m.invariant("money_conserved").severity(conserved_severity).check([](const Bank& s) {
    return s.a + s.b == 10;
  });
  m.invariant("a_not_negative").severity(Severity::kLow).check([](const Bank& s) {
    return s.a >= 0;
  });
  return m;
}

const Finding* find(const RunReport& r, std::string_view name) {
  for (const Finding& f : r.findings) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(ErrorInvariants, AnErrorThatBreaksAnInvariantIsReportedAtItsSeverity) {
  auto m = bank_model(Severity::kCritical);
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  const Finding* half = find(*r, "half_transfer");
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->kind, FindingKind::kActionError);
  EXPECT_EQ(half->severity, Severity::kCritical);
  EXPECT_EQ(half->message,
            "timeout paying in; after it, invariant 'money_conserved' (critical) fails: "
            "invariant 'money_conserved' does not hold");
  EXPECT_EQ(half->steps.size(), 1u);
  EXPECT_TRUE(half->confirmed);
  // The state the failed step left is not a state of the graph: no invariant finding of its own.
  EXPECT_EQ(find(*r, "money_conserved"), nullptr);
}

TEST(ErrorInvariants, AnErrorThatChangesNothingStaysHigh) {
  auto m = bank_model(Severity::kCritical);
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  const Finding* clean = find(*r, "fail_cleanly");
  ASSERT_NE(clean, nullptr);
  EXPECT_EQ(clean->severity, Severity::kHigh);
  EXPECT_EQ(clean->message, "refused without a change");
}

// An invariant below high does not lower the error; its message still says what broke.
TEST(ErrorInvariants, ALowerSeverityDoesNotLowerTheError) {
  auto m = bank_model(Severity::kMedium);
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  const Finding* half = find(*r, "half_transfer");
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->severity, Severity::kHigh);
  EXPECT_EQ(half->message,
            "timeout paying in; after it, invariant 'money_conserved' (medium) fails: "
            "invariant 'money_conserved' does not hold");
}

TEST(ErrorInvariants, TheReplayWordsTheFailureTheSameWay) {
  auto m = bank_model(Severity::kCritical);
  auto world = m.make_world();
  ASSERT_TRUE(world) << world.status().message();
  ASSERT_TRUE((*world)->begin());
  Replayer replayer(m, **world);
  const std::vector<TraceStep> steps = {{"transfer", 1, "", "", {}},
                                        {"half_transfer", 2, "", "", {}}};
  auto result = replayer.run(steps);
  ASSERT_TRUE(result) << result.status().message();
  ASSERT_EQ(result->failures.size(), 1u);
  const ReplayFailure& f = result->failures[0];
  EXPECT_EQ(f.kind, FindingKind::kActionError);
  EXPECT_EQ(f.severity, Severity::kCritical);
  // Both accounts' sum breaks; a_not_negative still holds at a = 0.
  EXPECT_EQ(f.message,
            "timeout paying in; after it, invariant 'money_conserved' (critical) fails: "
            "invariant 'money_conserved' does not hold");
  EXPECT_EQ(f.after_steps, 2u);
}

// The one-pair-at-a-time path (DFS) words and ranks the failure as the batch path (BFS) does.
TEST(ErrorInvariants, EveryStrategyReportsItTheSameWay) {
  auto m = bank_model(Severity::kCritical);
  Dfs dfs;
  auto r = explore(m, dfs);
  ASSERT_TRUE(r) << r.status().message();
  const Finding* half = find(*r, "half_transfer");
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->severity, Severity::kCritical);
  EXPECT_EQ(half->message,
            "timeout paying in; after it, invariant 'money_conserved' (critical) fails: "
            "invariant 'money_conserved' does not hold");
  EXPECT_TRUE(half->confirmed);
}

// `leak` breaks the invariant by itself; `audit`, which fails only once it is broken, did not
// break it: its error stays high and says nothing of it.
TEST(ErrorInvariants, AnInvariantBrokenBeforeTheStepIsNotTheErrorsDoing) {
  ObjectModel<Bank> m("leaky", Bank{});
  m.action("leak").max_per_path(1).run([](Bank& s) { --s.a; });
  m.action("audit").when([](const Bank& s) { return s.a + s.b != 10; }).run([](Bank&) {
    throw std::runtime_error("books do not balance");
  });
  m.invariant("money_conserved").severity(Severity::kCritical).check([](const Bank& s) {
    return s.a + s.b == 10;
  });
  Bfs bfs;
  auto r = explore(m, bfs);
  ASSERT_TRUE(r) << r.status().message();
  const Finding* audit = find(*r, "audit");
  ASSERT_NE(audit, nullptr);
  EXPECT_EQ(audit->severity, Severity::kHigh);
  EXPECT_EQ(audit->message, "books do not balance");
  EXPECT_EQ(audit->steps.size(), 2u);
  EXPECT_TRUE(audit->confirmed);
}

// `pay` fails cleanly from the initial state, and half-applied one step later: the finding is the
// critical one, though a shorter path fails the same action.
TEST(ErrorInvariants, TheErrorThatBreaksAnInvariantOutranksAShorterCleanOne) {
  ObjectModel<Bank> m("payments", Bank{});
  m.action("transfer").max_per_path(1).run([](Bank& s) {
    s.a -= 5;
    s.b += 5;
  });
  m.action("pay").max_per_path(1).run([](Bank& s) {
    if (s.a == 10) throw std::runtime_error("declined");
    s.a -= 5;
    throw std::runtime_error("timeout paying in");
  });
  m.invariant("money_conserved").severity(Severity::kCritical).check([](const Bank& s) {
    return s.a + s.b == 10;
  });
  Bfs bfs;
  Options options;
  options.shrink = true;  // and shrinking keeps it: the clean one is another failure
  auto r = explore(m, bfs, options);
  ASSERT_TRUE(r) << r.status().message();
  const Finding* pay = find(*r, "pay");
  ASSERT_NE(pay, nullptr);
  EXPECT_EQ(pay->severity, Severity::kCritical);
  EXPECT_EQ(pay->message,
            "timeout paying in; after it, invariant 'money_conserved' (critical) fails: "
            "invariant 'money_conserved' does not hold");
  EXPECT_EQ(pay->steps.size(), 2u);
  EXPECT_TRUE(pay->confirmed);
}

}  // namespace
}  // namespace prowl
