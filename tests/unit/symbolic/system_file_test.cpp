#include "prowl/symbolic/system_file.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "prowl/symbolic/cross_check.hpp"
#include "prowl/symbolic/reach_trace.hpp"
#include "prowl/symbolic/region.hpp"

namespace prowl::sym {
namespace {

constexpr const char* kCounter2 = R"(system: counter2
vars:
  x: Int
  y: Int
inputs:
  p: {sort: Int, values: [1, 2]}
init: (and (= x 0) (= y 0))
transitions:
  - name: inc
    guard: (and (< x 3) (<= 1 p) (<= p 2))
    update: {x: (+ x p)}
  - name: carry
    guard: (and (>= x 3) (< y 2))
    update: {x: 0, y: (+ y 1)}
invariants:
  x_below_4: (< x 4)
)";

std::string error_of(const std::string& text) {
  z3::context c;
  Result<SystemFile> f = parse_system_file(c, text, "s.yaml");
  return f ? "" : f.status().message();
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(SystemFile, ReadsCounter2) {
  z3::context c;
  Result<SystemFile> f = parse_system_file(c, kCounter2, "s.yaml");
  ASSERT_TRUE(f) << f.status().message();
  EXPECT_EQ(f->system->name(), "counter2");
  EXPECT_EQ(f->system->vars().size(), 2u);
  EXPECT_EQ(f->system->transitions().size(), 2u);
  ASSERT_EQ(f->domains.size(), 1u);
  ASSERT_TRUE(f->domains[0].has_value());
  EXPECT_EQ(f->domains[0]->size(), 2u);
  const ReachResult r = reach(*f->system);
  EXPECT_EQ(r.status, ReachStatus::kViolated);
}

TEST(SystemFile, ErrorsNameTheFileLineColumnAndField) {
  EXPECT_EQ(error_of(with(kCounter2, "(< x 3)", "(< z 3)")),
            "s.yaml:10:20: transitions[0] (inc).guard: unknown symbol 'z'\n"
            "  hint: declare it under vars or inputs (declared: x, y, p)");
  EXPECT_EQ(error_of(with(kCounter2, "guard: (and (>= x 3) (< y 2))", "guard: (+ x 1)")),
            "s.yaml:13:12: transitions[1] (carry).guard: must be Bool, but is Int\n"
            "  hint: a condition compares, e.g. (< x 3)");
  EXPECT_EQ(error_of(with(kCounter2, "{x: 0, y: (+ y 1)}", "{x: 0, y: (> y 1)}")),
            "s.yaml:14:23: transitions[1] (carry).update.y: sort mismatch: y is Int, the term is "
            "Bool");
  EXPECT_EQ(error_of(with(kCounter2, "{x: (+ x p)}", "{p: (+ x 1)}")),
            "s.yaml:11:14: transitions[0] (inc).update.p: p is an input\n"
            "  hint: inputs take a fresh value at each step and cannot be updated; declare it "
            "under vars to keep it in the state");
  const std::string no_transitions =
      std::string(kCounter2).substr(0, std::string(kCounter2).find("transitions:")) +
      "transitions: []\n";
  EXPECT_EQ(error_of(no_transitions).substr(0, 55),
            "s.yaml:8:14: transitions: the system has no transitions");
  EXPECT_EQ(error_of(with(kCounter2, "y: Int", "y: Integer")).substr(0, 42),
            "s.yaml:4:6: vars.y: unknown sort 'Integer'");
  EXPECT_EQ(error_of(with(kCounter2, "(+ x p)", "(+ x p")),
            "s.yaml:11:23: transitions[0] (inc).update.x: a parenthesis or quote is not closed");
  EXPECT_EQ(error_of(with(kCounter2, "init:", "start:")).substr(0, 41),
            "s.yaml:7:1: the file: unknown key 'start'");
}

TEST(ReachTrace, RoundTripsAndReplaysToTheSameFinding) {
  z3::context c;
  Result<SystemFile> f = parse_system_file(c, kCounter2, "s.yaml");
  ASSERT_TRUE(f);
  const ReachResult r = reach(*f->system);
  ASSERT_TRUE(r.checks[0].counterexample);
  const trace::Trace t =
      counterexample_trace(*f->system, *r.checks[0].counterexample, "s.yaml", ImageMode::kQe2);
  const std::string text = trace::write_trace(t);
  EXPECT_EQ(text,
            "prowl-trace 1 counter2 kind=reach finding=invariant:x_below_4 init=\"x=0 y=0\" "
            "depth=2 image=qe2 system-file=s.yaml\n"
            "0 inc p=2\n# x=2 y=0\n0 inc p=2\n# x=4 y=0\n");
  Result<trace::Trace> back = trace::parse_trace(text, "t.trace");
  ASSERT_TRUE(back);
  std::ostringstream log;
  Result<ReplayResult> replay = replay_reach_trace(*f->system, *back, "t.trace", log);
  ASSERT_TRUE(replay) << replay.status().message();
  EXPECT_TRUE(replay->reproduced);
  EXPECT_EQ(replay->happened, "invariant:x_below_4");
  EXPECT_EQ(log.str(), "init: x=0 y=0\nstep 1: inc p=2 -> x=2 y=0\nstep 2: inc p=2 -> x=4 y=0\n");
}

TEST(ReachTrace, ReplayRejectsAStepThatBreaksItsGuardNamingTheLine) {
  z3::context c;
  Result<SystemFile> f = parse_system_file(c, kCounter2, "s.yaml");
  ASSERT_TRUE(f);
  Result<trace::Trace> t = trace::parse_trace(
      "prowl-trace 1 counter2 kind=reach finding=invariant:x_below_4 init=\"x=0 y=0\"\n"
      "0 inc p=2\n0 inc p=5\n",
      "t.trace");
  ASSERT_TRUE(t);
  std::ostringstream log;
  Result<ReplayResult> r = replay_reach_trace(*f->system, *t, "t.trace", log);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().message().substr(0, 52),
            "t.trace:3: step 'inc p=5' breaks the guard of inc: (");
  EXPECT_NE(r.status().message().find("is not true in x=2 y=0"), std::string::npos);
}

TEST(ReachTrace, ReplayRejectsATraceOfAnotherSystemNamingBoth) {
  z3::context c;
  Result<SystemFile> f = parse_system_file(c, kCounter2, "s.yaml");
  ASSERT_TRUE(f);
  Result<trace::Trace> t =
      trace::parse_trace("prowl-trace 1 orders kind=reach init=\"x=0 y=0\"\n", "t.trace");
  ASSERT_TRUE(t);
  std::ostringstream log;
  Result<ReplayResult> r = replay_reach_trace(*f->system, *t, "t.trace", log);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().message(),
            "t.trace:1: the trace is of system 'orders', but the system file describes "
            "'counter2'");
}

TEST(CrossCheck, Counter2AgreesWithExplicitBfs) {
  z3::context c;
  Result<SystemFile> f = parse_system_file(c, kCounter2, "s.yaml");
  ASSERT_TRUE(f);
  ReachOptions options;
  options.explore_after_violations = true;
  const ReachResult r = reach(*f->system, options);
  ASSERT_EQ(r.depth, 8u);
  Result<CrossCheck> x = cross_check(*f->system, r, f->domains);
  ASSERT_TRUE(x) << x.status().message();
  EXPECT_TRUE(x->ok()) << x->mismatches.front();
  EXPECT_EQ(x->bfs_states, 15u);
  EXPECT_EQ(x->bfs_depth, 8u);
  EXPECT_EQ(x->bfs_levels, (std::vector<std::uint64_t>{1, 2, 2, 1, 2, 2, 1, 2, 2}));
  EXPECT_EQ(x->bfs_shortest, (std::vector<std::optional<std::uint32_t>>{2u}));
}

TEST(CrossCheck, NeedsValuesForEveryInputATransitionReads) {
  z3::context c;
  Result<SystemFile> f =
      parse_system_file(c, with(kCounter2, "{sort: Int, values: [1, 2]}", "Int"), "s.yaml");
  ASSERT_TRUE(f);
  Result<std::unique_ptr<Model>> m = to_model(*f->system, f->domains);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.status().message().substr(0, 69),
            "inputs.p: the explicit model needs the values of p (transition inc re");
}

}  // namespace
}  // namespace prowl::sym
