// The sort rules and the reference evaluator of smt_fuzz (examples/smt_fuzz/ops.hpp): the values
// get-value answers are compared with.
#ifdef PROWL_HAVE_SMT_FUZZ

#include <gtest/gtest.h>

#include "smt_fuzz/ops.hpp"

namespace smt_fuzz {
namespace {

Value eval(Op op, std::vector<Value> args, std::vector<std::uint32_t> indices = {}) {
  std::optional<Value> v = evaluate(info(op), indices, args);
  EXPECT_TRUE(v.has_value());
  return v.value_or(Value{});
}

Value bv8(std::uint64_t bits) { return Value::of_bits(8, bits); }

TEST(SmtOps, BvDivisionByZeroIsAllOnesAndTheRemainderIsTheDividend) {
  EXPECT_EQ(to_text(eval(Op::kBvUdiv, {bv8(7), bv8(0)})), "#b11111111");
  EXPECT_EQ(to_text(eval(Op::kBvUrem, {bv8(7), bv8(0)})), "#b00000111");
  EXPECT_EQ(to_text(eval(Op::kBvUdiv, {bv8(200), bv8(7)})), "#b00011100");
  EXPECT_EQ(to_text(eval(Op::kBvUrem, {bv8(200), bv8(7)})), "#b00000100");
}

TEST(SmtOps, SignedDivisionFollowsTheSmtLibDefinitions) {
  const Value minus7 = bv8(0xf9);
  EXPECT_EQ(to_text(eval(Op::kBvSdiv, {minus7, bv8(2)})), "#b11111101");
  EXPECT_EQ(to_text(eval(Op::kBvSrem, {minus7, bv8(2)})), "#b11111111");
  EXPECT_EQ(to_text(eval(Op::kBvSmod, {minus7, bv8(2)})), "#b00000001");
  EXPECT_EQ(to_text(eval(Op::kBvSmod, {bv8(7), bv8(0xfe)})), "#b11111111");
  // By zero: bvsdiv is -1 or 1 by the dividend's sign; bvsrem and bvsmod give the dividend.
  EXPECT_EQ(to_text(eval(Op::kBvSdiv, {bv8(7), bv8(0)})), "#b11111111");
  EXPECT_EQ(to_text(eval(Op::kBvSdiv, {minus7, bv8(0)})), "#b00000001");
  EXPECT_EQ(to_text(eval(Op::kBvSrem, {minus7, bv8(0)})), "#b11111001");
  EXPECT_EQ(to_text(eval(Op::kBvSmod, {minus7, bv8(0)})), "#b11111001");
}

TEST(SmtOps, IntegerDivisionIsEuclideanAndUnspecifiedByZero) {
  auto div = [](std::int64_t a, std::int64_t b) {
    return eval(Op::kDiv, {Value::of_int(a), Value::of_int(b)}).integer;
  };
  auto mod = [](std::int64_t a, std::int64_t b) {
    return eval(Op::kMod, {Value::of_int(a), Value::of_int(b)}).integer;
  };
  EXPECT_EQ(div(-7, 2), -4);
  EXPECT_EQ(mod(-7, 2), 1);
  EXPECT_EQ(div(7, -2), -3);
  EXPECT_EQ(mod(7, -2), 1);
  EXPECT_EQ(div(-7, -2), 4);
  EXPECT_EQ(mod(-7, -2), 1);
  EXPECT_EQ(eval(Op::kAbs, {Value::of_int(-5)}).integer, 5);
  EXPECT_FALSE(evaluate(info(Op::kDiv), {}, {Value::of_int(5), Value::of_int(0)}).has_value());
  EXPECT_FALSE(evaluate(info(Op::kMod), {}, {Value::of_int(5), Value::of_int(0)}).has_value());
}

TEST(SmtOps, RotateRepeatAndComp) {
  EXPECT_EQ(to_text(eval(Op::kRotateLeft, {bv8(0x96)}, {3})), "#b10110100");
  EXPECT_EQ(to_text(eval(Op::kRotateRight, {bv8(0x96)}, {3})), "#b11010010");
  EXPECT_EQ(to_text(eval(Op::kRotateRight, {bv8(0x96)}, {11})), "#b11010010");
  EXPECT_EQ(to_text(eval(Op::kRotateLeft, {bv8(0x96)}, {8})), "#b10010110");
  EXPECT_EQ(to_text(eval(Op::kRepeat, {Value::of_bits(3, 5)}, {3})), "#b101101101");
  EXPECT_EQ(to_text(eval(Op::kBvComp, {bv8(3), bv8(3)})), "#b1");
  EXPECT_EQ(to_text(eval(Op::kBvXnor, {bv8(0xf0), bv8(0x3c)})), "#b00110011");
}

TEST(SmtOps, ShiftsByTheWidthOrMoreClearOrFillWithTheSign) {
  EXPECT_EQ(to_text(eval(Op::kBvShl, {bv8(0x81), bv8(1)})), "#b00000010");
  EXPECT_EQ(to_text(eval(Op::kBvShl, {bv8(0xff), bv8(8)})), "#b00000000");
  EXPECT_EQ(to_text(eval(Op::kBvLshr, {bv8(0x80), bv8(200)})), "#b00000000");
  EXPECT_EQ(to_text(eval(Op::kBvAshr, {bv8(0x80), bv8(200)})), "#b11111111");
  EXPECT_EQ(to_text(eval(Op::kBvAshr, {bv8(0x90), bv8(4)})), "#b11111001");
}

TEST(SmtOps, ExtractConcatAndExtendsFollowSmtLib) {
  EXPECT_EQ(to_text(eval(Op::kExtract, {bv8(0xb4)}, {5, 2})), "#b1101");
  EXPECT_EQ(to_text(eval(Op::kConcat, {Value::of_bits(3, 5), bv8(1)})), "#b10100000001");
  EXPECT_EQ(to_text(eval(Op::kZeroExtend, {Value::of_bits(2, 2)}, {3})), "#b00010");
  EXPECT_EQ(to_text(eval(Op::kSignExtend, {Value::of_bits(2, 2)}, {3})), "#b11110");
  const Value w64 = Value::of_bits(64, ~std::uint64_t{0});
  EXPECT_EQ(eval(Op::kBvAdd, {w64, Value::of_bits(64, 1)}).bits, 0u);
}

TEST(SmtOps, SignedComparisonsReadTheTopBitAsTheSign) {
  EXPECT_TRUE(eval(Op::kBvSlt, {bv8(0x80), bv8(0x7f)}).boolean);
  EXPECT_FALSE(eval(Op::kBvUlt, {bv8(0x80), bv8(0x7f)}).boolean);
  EXPECT_TRUE(eval(Op::kBvSle, {bv8(0xff), bv8(0)}).boolean);
  EXPECT_TRUE(eval(Op::kBvUle, {bv8(0), bv8(0)}).boolean);
}

TEST(SmtOps, IntegersAndBooleans) {
  EXPECT_EQ(to_text(eval(Op::kSub, {Value::of_int(5)})), "-5");
  EXPECT_EQ(to_text(eval(Op::kSub, {Value::of_int(5), Value::of_int(7)})), "-2");
  EXPECT_EQ(to_text(eval(Op::kAdd, {Value::of_int(1), Value::of_int(2), Value::of_int(3)})), "6");
  EXPECT_TRUE(eval(Op::kDistinct, {Value::of_int(1), Value::of_int(2), Value::of_int(3)}).boolean);
  EXPECT_FALSE(eval(Op::kEqual, {Value::of_int(1), Value::of_int(1), Value::of_int(2)}).boolean);
  EXPECT_TRUE(eval(Op::kImplies, {Value::of_bool(false), Value::of_bool(false)}).boolean);
  EXPECT_EQ(eval(Op::kIte, {Value::of_bool(false), bv8(1), bv8(2)}), bv8(2));
}

TEST(SmtOps, IntegerOverflowLeavesTheValueUnknown) {
  const Value big = Value::of_int(std::int64_t{1} << 62);
  EXPECT_FALSE(evaluate(info(Op::kMul), {}, {big, Value::of_int(4)}).has_value());
  EXPECT_FALSE(evaluate(info(Op::kAdd), {}, {big, big}).has_value());
  EXPECT_TRUE(evaluate(info(Op::kAdd), {}, {big, Value::of_int(-1)}).has_value());
}

TEST(SmtOps, ResultSortsAndIllSortedApplications) {
  std::string why;
  const SortType b8 = SortType::bitvec(8);
  EXPECT_EQ(result_sort(info(Op::kConcat), {}, {b8, SortType::bitvec(4)}, &why),
            SortType::bitvec(12));
  EXPECT_EQ(result_sort(info(Op::kExtract), {7, 7}, {b8}, &why), SortType::bitvec(1));
  EXPECT_EQ(result_sort(info(Op::kBvUlt), {}, {b8, b8}, &why), SortType::boolean());
  EXPECT_EQ(result_sort(info(Op::kIte), {}, {SortType::boolean(), b8, b8}, &why), b8);

  EXPECT_FALSE(result_sort(info(Op::kExtract), {8, 0}, {b8}, &why));
  EXPECT_EQ(why, "extract: bad indices");
  EXPECT_FALSE(result_sort(info(Op::kBvAdd), {}, {b8, SortType::bitvec(4)}, &why));
  EXPECT_EQ(why, "bvadd: arguments must be bit-vectors of one width");
  EXPECT_FALSE(result_sort(info(Op::kConcat), {}, {SortType::bitvec(60), b8}, &why));
  EXPECT_EQ(why, "concat: result too wide");
  EXPECT_EQ(result_sort(info(Op::kRepeat), {4}, {SortType::bitvec(16)}, &why),
            SortType::bitvec(64));
  EXPECT_FALSE(result_sort(info(Op::kRepeat), {5}, {SortType::bitvec(16)}, &why));
  EXPECT_EQ(result_sort(info(Op::kBvComp), {}, {b8, b8}, &why), SortType::bitvec(1));
  EXPECT_FALSE(result_sort(info(Op::kNot), {}, {SortType::boolean(), SortType::boolean()}, &why));
  EXPECT_EQ(why, "not: wrong number of arguments");
  const SortType u1{SortKind::kUninterpreted, 0, 1};
  const SortType u2{SortKind::kUninterpreted, 0, 2};
  EXPECT_FALSE(result_sort(info(Op::kEqual), {}, {u1, u2}, &why));
}

TEST(SmtOps, LogicsSelectTheirTheories) {
  EXPECT_EQ(theories_of("QF_BV"), (Theories{false, false, true, false}));
  EXPECT_EQ(theories_of("QF_LIA"), (Theories{true, false, false, false}));
  EXPECT_EQ(theories_of("QF_UFNIA"), (Theories{true, true, false, true}));
  EXPECT_EQ(theories_of("ALL"), all_theories());
  EXPECT_FALSE(theories_of("QF_FP").has_value());
  EXPECT_EQ(logics().size(), 8u);
  EXPECT_FALSE(allowed(info(Op::kBvAdd), *theories_of("QF_LIA")));
  EXPECT_TRUE(allowed(info(Op::kIte), *theories_of("QF_UF")));
}

TEST(SmtOps, OperatorsAreFoundByTheirSmtLibNames) {
  ASSERT_NE(find_op("bvudiv"), nullptr);
  EXPECT_EQ(find_op("bvudiv")->op, Op::kBvUdiv);
  EXPECT_EQ(find_op("=>")->op, Op::kImplies);
  EXPECT_EQ(find_op("bvudivx"), nullptr);
  for (const OpInfo& op : all_ops()) EXPECT_EQ(&info(op.op), &op) << op.name;
}

}  // namespace
}  // namespace smt_fuzz

#endif  // PROWL_HAVE_SMT_FUZZ
