// Hand-written traces replayed against Z3, cvc5 and both: the answers they must give, the model
// validation that respects push/pop scopes, and the steps a replay rejects or cannot run.
#ifdef PROWL_HAVE_SMT_FUZZ

#include <gtest/gtest.h>

#include "unit/smt_fuzz/smt_test_support.hpp"

namespace smt_fuzz::testing {
namespace {

using prowl::fsm::RunKind;
using Notes = std::vector<std::string>;

// x, y : Int. t3 = x + y, t5 = (x + y = 3), t7 = (x > 5).
const char* const kIntegers = R"(1 new_solver
2 set_logic QF_LIA
3 mk_sort int
return s1
4 mk_const s1 x
return t1
5 mk_const s1 y
return t2
6 mk_term + t1 t2
return t3
7 mk_value s1 3
return t4
8 mk_term = t3 t4
return t5
9 mk_value s1 5
return t6
10 mk_term > t1 t6
return t7
)";

// x : (_ BitVec 8). t4 = 7 / 0 and t5 = 7 mod 0 are ground; t8 = x < 7 (unsigned).
const char* const kBitVectors = R"(1 new_solver
2 set_logic QF_BV
3 mk_sort bv 8
return s1
4 mk_const s1 x
return t1
5 mk_value s1 0
return t2
6 mk_value s1 7
return t3
7 mk_term bvudiv t3 t2
return t4
8 mk_term bvurem t3 t2
return t5
9 mk_term extract 3 0 t1
return t6
10 mk_term concat t6 t1
return t7
11 mk_term bvult t1 t3
return t8
)";

class SmtReplay : public ::testing::TestWithParam<std::string> {
 protected:
  Replayed replay(const std::string& steps) {
    return replay_steps(solver_factory(GetParam()), steps);
  }
  // A note every answering solver gives: twice with both.
  Notes each(Notes notes) const {
    if (GetParam() != "both") return notes;
    Notes twice;
    for (const std::string& n : notes) twice.insert(twice.end(), {n, n});
    return twice;
  }
  Notes concat(Notes a, const Notes& b) const {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }
  std::string opened() const { return "new_solver " + GetParam(); }
};

TEST_P(SmtReplay, SatisfiableIntegersAnswerSatAndTheModelHoldsTheSum) {
  Replayed r = replay(std::string(kIntegers) + "11 assert t5\n12 assert t7\n13 check_sat\n" +
                      "14 get_value t3\n15 get_model\n16 delete\n");
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  EXPECT_EQ(r.result.steps, 16u);
  EXPECT_EQ(r.notes,
            concat({opened(), "check_sat sat"}, concat(each({"get_value t3 3"}), {"get_model"})));
}

TEST_P(SmtReplay, ContradictoryIntegersAnswerUnsat) {
  Replayed r = replay(std::string(kIntegers) +
                      "11 mk_value s1 0\nreturn t8\n12 mk_term > t2 t8\nreturn t9\n"
                      "13 assert t5\n14 assert t7\n15 assert t9\n16 check_sat\n");
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  EXPECT_EQ(r.notes, (Notes{opened(), "check_sat unsat"}));
}

TEST_P(SmtReplay, ModelValidationSeesOnlyTheOpenScopes) {
  // x > 5 stays; x < 3 goes with its scope, and the second check's model violates it.
  Replayed r = replay(std::string(kIntegers) +
                      "11 assert t7\n12 push 1\n13 mk_value s1 3\nreturn t8\n"
                      "14 mk_term < t1 t8\nreturn t9\n15 assert t9\n16 check_sat\n17 pop 1\n"
                      "18 check_sat\n19 get_value t9\n");
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  EXPECT_EQ(r.notes,
            concat({opened(), "check_sat unsat", "check_sat sat"}, each({"get_value t9 false"})));
}

TEST_P(SmtReplay, GroundBitVectorTermsHaveTheirSmtLibValues) {
  Replayed r =
      replay(std::string(kBitVectors) + "12 assert t8\n13 check_sat\n" + "14 get_value t4 t5 t7\n");
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  ASSERT_EQ(r.notes.size(), GetParam() == "both" ? 8u : 5u);
  EXPECT_EQ(r.notes[1], "check_sat sat");
  EXPECT_EQ(r.notes[2], "get_value t4 #b11111111");
  EXPECT_EQ(r.notes[3], "get_value t5 #b00000111");
  EXPECT_EQ(r.notes[4].substr(0, 15), "get_value t7 #b");
  EXPECT_EQ(r.notes[4].size(), 15u + 12u);
}

TEST_P(SmtReplay, CheckSatAssumingValidatesTheAssumptionsToo) {
  Replayed r = replay(std::string(kIntegers) + "11 assert t5\n12 check_sat_assuming t7\n" +
                      "13 get_value t1\n14 check_sat\n");
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  ASSERT_GE(r.notes.size(), 4u);
  EXPECT_EQ(r.notes[1], "check_sat sat");
  EXPECT_EQ(r.notes.back(), "check_sat sat");
}

TEST_P(SmtReplay, UnsatAssumptionsNameWhatMakesTheCheckUnsat) {
  // x + y = 3 with x > 5 and y > 0 assumed, and x > 5 again: both of the first two are needed.
  const std::string check = std::string(kIntegers) +
                            "11 mk_value s1 0\nreturn t8\n12 mk_term > t2 t8\nreturn t9\n"
                            "13 assert t5\n14 check_sat_assuming t7 t9 t7\n"
                            "15 get_unsat_assumptions\n16 get_unsat_assumptions\n";
  const std::string asked = "0 new_solver\n1 set_option produce-unsat-assumptions true\n";
  Replayed r = replay(asked + check.substr(check.find('\n') + 1));
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  // The second call is rejected: the oracle's check of the first answered again.
  EXPECT_EQ(r.notes, concat({opened(), "check_sat unsat"}, each({"get_unsat_assumptions t7 t9"})));
  // Without produce-unsat-assumptions, as SMT-LIB says, get-unsat-assumptions is refused.
  Replayed refused = replay(check);
  EXPECT_EQ(refused.result.kind, RunKind::kOk) << refused.result.message;
  EXPECT_EQ(refused.notes, (Notes{opened(), "check_sat unsat"}));
}

TEST_P(SmtReplay, UninterpretedSortsAndFunctions) {
  Replayed r = replay(R"(1 new_solver
2 set_logic QF_UF
3 declare_sort U
return s1
4 mk_const s1 a
return t1
5 mk_const s1 b
return t2
6 declare_fun f s1 s1
return f1
7 mk_app f1 t1
return t3
8 mk_term = t3 t2
return t4
9 mk_term distinct t1 t2
return t5
10 assert t4
11 assert t5
12 check_sat
13 get_value t1 t3
14 get_model
)");
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  ASSERT_GE(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[1], "check_sat sat");
}

TEST_P(SmtReplay, StepsAgainstSmtLibsRulesAreRejectedNotCalled) {
  // No solver yet; an option after the logic; get-value after an assertion; a second check
  // without incremental solving; pop without a scope. None is a finding, none reaches the solver.
  Replayed r = replay(R"(1 check_sat
2 new_solver
3 set_option incremental false
4 set_logic QF_BV
5 set_option produce-models false
6 mk_sort bool
return s1
7 mk_value s1 true
return t1
8 check_sat
9 assert t1
10 get_value t1
11 check_sat
12 pop 1
)");
  EXPECT_EQ(r.result.kind, RunKind::kOk) << r.result.message;
  EXPECT_EQ(r.result.steps, 12u);
  EXPECT_EQ(r.notes, (Notes{opened(), "check_sat sat"}));
}

TEST_P(SmtReplay, ResetForgetsTheSolversTerms) {
  Replayed r = replay(std::string(kIntegers) + "11 reset\n12 assert t5\n");
  EXPECT_EQ(r.result.kind, RunKind::kBadTrace);
  EXPECT_EQ(r.result.line, 21u);
  EXPECT_NE(r.result.message.find("unknown handle 't5'"), std::string::npos) << r.result.message;
}

TEST_P(SmtReplay, MalformedArgumentsAreABadTrace) {
  EXPECT_EQ(replay("1 new_solver\n2 set_logic QF_XYZ\n").result.kind, RunKind::kBadTrace);
  EXPECT_EQ(replay("1 new_solver\n2 mk_sort bv 65\nreturn s1\n").result.kind, RunKind::kBadTrace);
  EXPECT_EQ(
      replay("1 new_solver\n2 mk_sort bv 4\nreturn s1\n3 mk_value s1 16\nreturn t1\n").result.kind,
      RunKind::kBadTrace);
  EXPECT_EQ(
      replay("1 new_solver\n2 mk_sort int\nreturn s1\n3 mk_const s1 7x\nreturn t1\n").result.kind,
      RunKind::kBadTrace);
  EXPECT_EQ(replay("1 new_solver\n2 mk_term bvfoo\nreturn t1\n").result.kind, RunKind::kBadTrace);
}

INSTANTIATE_TEST_SUITE_P(Solvers, SmtReplay, ::testing::Values("z3", "cvc5", "both"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace smt_fuzz::testing

#endif  // PROWL_HAVE_SMT_FUZZ
