// The oracles against fake solvers that answer wrongly: the cross-check of two solvers, model
// validation, ground values and sorts. Each fake is a real solver with one answer changed.
#ifdef PROWL_HAVE_SMT_FUZZ

#include <gtest/gtest.h>

#include "unit/smt_fuzz/smt_test_support.hpp"

namespace smt_fuzz::testing {
namespace {

using prowl::fsm::RunKind;

// x + y = 3 and x > 5 (sat); with y > 0 too (unsat) when `contradict`.
std::string integers(bool contradict) {
  std::string steps = R"(1 new_solver
2 mk_sort int
return s1
3 mk_const s1 x
return t1
4 mk_const s1 y
return t2
5 mk_term + t1 t2
return t3
6 mk_value s1 3
return t4
7 mk_term = t3 t4
return t5
8 mk_value s1 5
return t6
9 mk_term > t1 t6
return t7
10 mk_value s1 0
return t8
11 mk_term > t2 t8
return t9
12 assert t5
13 assert t7
)";
  if (contradict) steps += "14 assert t9\n";
  return steps + "15 check_sat\n";
}

// Says unsat for sat and sat for unsat.
class Liar : public ForwardingSolver {
 public:
  using ForwardingSolver::ForwardingSolver;
  Answer check_sat(const std::vector<TermRef>& assumptions) override {
    last_ = flip(ForwardingSolver::check_sat(assumptions));
    return last_;
  }
  Answer last_answer() const override { return last_; }

 private:
  static Answer flip(Answer a) {
    return a == Answer::kSat ? Answer::kUnsat : a == Answer::kUnsat ? Answer::kSat : a;
  }
  Answer last_ = Answer::kUnknown;
};

// Gives up on every check.
class Shrugger : public ForwardingSolver {
 public:
  using ForwardingSolver::ForwardingSolver;
  Answer check_sat(const std::vector<TermRef>& assumptions) override {
    ForwardingSolver::check_sat(assumptions);
    return Answer::kUnknown;
  }
  Answer last_answer() const override { return Answer::kUnknown; }
};

// Its model maps every Bool term to false and every bit-vector term to zero.
class BadModel : public ForwardingSolver {
 public:
  using ForwardingSolver::ForwardingSolver;
  std::string value(TermRef t) override {
    std::string v = ForwardingSolver::value(t);
    if (v == "true") return "false";
    if (v.rfind("#b", 0) == 0) return "#b" + std::string(v.size() - 2, '0');
    return v;
  }
};

// Claims every term is an integer.
class WrongSort : public ForwardingSolver {
 public:
  using ForwardingSolver::ForwardingSolver;
  SortType sort_of(TermRef) override { return SortType::integer(); }
};

// Claims the first assumption alone makes the check unsat.
class ShortCore : public ForwardingSolver {
 public:
  using ForwardingSolver::ForwardingSolver;
  std::vector<std::size_t> unsat_assumptions() override { return {0}; }
};

template <class Fake>
SolverFactory fake(const char* name, SolverFactory inner) {
  return [name, inner] { return std::make_unique<Fake>(name, inner()); };
}

SolverFactory z3_and(SolverFactory second) {
  return [second] { return make_both_solver(make_z3_solver(), second()); };
}

TEST(SmtCrossCheck, SatAgainstUnsatIsAFinding) {
  Replayed r = replay_steps(z3_and(fake<Liar>("liar", make_cvc5_solver)), integers(false));
  EXPECT_EQ(r.result.kind, RunKind::kFinding);
  EXPECT_EQ(r.result.action, "check_sat");
  EXPECT_EQ(r.result.message, "z3 says sat, liar says unsat");
  EXPECT_EQ(r.result.signature(), "finding in check_sat: zN says sat, liar says unsat");
}

TEST(SmtCrossCheck, UnsatAgainstSatIsAFindingToo) {
  Replayed r = replay_steps(z3_and(fake<Liar>("liar", make_cvc5_solver)), integers(true));
  EXPECT_EQ(r.result.kind, RunKind::kFinding);
  EXPECT_EQ(r.result.message, "z3 says unsat, liar says sat");
}

TEST(SmtCrossCheck, UnknownAgreesWithEitherAnswer) {
  for (bool contradict : {false, true}) {
    Replayed r =
        replay_steps(z3_and(fake<Shrugger>("shrugger", make_cvc5_solver)), integers(contradict));
    EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
    EXPECT_EQ(r.notes.back(), contradict ? "check_sat unsat" : "check_sat sat");
  }
}

TEST(SmtCrossCheck, RealSolversAgree) {
  for (bool contradict : {false, true}) {
    Replayed r = replay_steps(solver_factory("both"), integers(contradict));
    EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  }
}

TEST(SmtModelValidation, AModelThatFalsifiesAnAssertionIsAFinding) {
  Replayed r = replay_steps(fake<BadModel>("badmodel", make_z3_solver), integers(false));
  EXPECT_EQ(r.result.kind, RunKind::kFinding);
  EXPECT_EQ(r.result.message,
            "badmodel's model does not satisfy assertion t5: it evaluates to false");
}

TEST(SmtModelValidation, OnlyTheSolverThatSaidSatIsValidated) {
  // cvc5's model is bad, but it gave up, so only z3's model is checked.
  Replayed r =
      replay_steps(z3_and(fake<Shrugger>("shrugger", fake<BadModel>("badmodel", make_cvc5_solver))),
                   integers(false));
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
}

TEST(SmtModelValidation, WithoutProduceModelsGroundAssertionsAreStillChecked) {
  // produce-models off: no model to ask, but an assertion that is a false ground term must not be
  // satisfiable, and one that is true must not be unsatisfiable.
  const std::string prefix =
      "1 new_solver\n2 set_option produce-models false\n3 mk_sort bool\nreturn s1\n";
  Replayed sat =
      replay_steps(fake<Liar>("liar", make_z3_solver),
                   prefix + "4 mk_value s1 false\nreturn t1\n5 assert t1\n6 check_sat\n");
  EXPECT_EQ(sat.result.kind, RunKind::kFinding);
  EXPECT_EQ(sat.result.message,
            "liar says sat, but assertion t1 is a ground term that evaluates to false");
  Replayed unsat =
      replay_steps(fake<Liar>("liar", make_z3_solver),
                   prefix + "4 mk_value s1 true\nreturn t1\n5 assert t1\n6 check_sat\n");
  EXPECT_EQ(unsat.result.kind, RunKind::kFinding);
  EXPECT_EQ(unsat.result.message,
            "liar says unsat, but every assertion is a ground term that evaluates to true");
}

TEST(SmtGroundValues, AWrongValueOfAGroundTermIsAFinding) {
  Replayed r = replay_steps(fake<BadModel>("badmodel", make_cvc5_solver),
                            R"(1 new_solver
2 mk_sort bv 8
return s1
3 mk_value s1 0
return t1
4 mk_value s1 7
return t2
5 mk_term bvudiv t2 t1
return t3
6 check_sat
7 get_value t3
)");
  EXPECT_EQ(r.result.kind, RunKind::kFinding);
  EXPECT_EQ(r.result.action, "get_value");
  EXPECT_EQ(r.result.message,
            "badmodel says ground term t3 is #b00000000, but it evaluates to #b11111111");
}

TEST(SmtUnsatAssumptions, AssumptionsThatAreNotUnsatAreAFinding) {
  // x + y = 3 asserted; x > 5 and y > 0 assumed. x > 5 alone is satisfiable.
  std::string steps = integers(false);
  steps = "0 new_solver\n1 set_option produce-unsat-assumptions true\n" +
          steps.substr(steps.find('\n') + 1, steps.find("12 assert") - steps.find('\n') - 1) +
          "12 assert t5\n13 check_sat_assuming t7 t9\n14 get_unsat_assumptions\n";
  Replayed real = replay_steps(make_z3_solver, steps);
  EXPECT_EQ(real.result.kind, RunKind::kOk) << real.result.message;
  Replayed r = replay_steps(fake<ShortCore>("shortcore", make_cvc5_solver), steps);
  EXPECT_EQ(r.result.kind, RunKind::kFinding);
  EXPECT_EQ(r.result.action, "get_unsat_assumptions");
  EXPECT_EQ(r.result.message,
            "shortcore's unsat assumptions {t7} are satisfiable with the assertions");
}

TEST(SmtSorts, AWrongSortIsAFinding) {
  Replayed r =
      replay_steps(z3_and(fake<WrongSort>("wrongsort", make_cvc5_solver)),
                   "1 new_solver\n2 mk_sort bv 8\nreturn s1\n3 mk_const s1 x\nreturn t1\n");
  EXPECT_EQ(r.result.kind, RunKind::kFinding);
  EXPECT_EQ(r.result.action, "mk_const");
  EXPECT_EQ(r.result.message, "wrongsort gives the constant sort Int, expected (_ BitVec 8)");
}

}  // namespace
}  // namespace smt_fuzz::testing

#endif  // PROWL_HAVE_SMT_FUZZ
