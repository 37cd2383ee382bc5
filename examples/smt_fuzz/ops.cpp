#include "smt_fuzz/ops.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace smt_fuzz {
namespace {

std::uint64_t mask(std::uint32_t width) {
  return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
}

// The bit-vector as a two's complement number.
std::int64_t signed_of(const Value& v) {
  const std::uint32_t w = v.sort.width;
  if (w == 64) return static_cast<std::int64_t>(v.bits);
  const std::uint64_t sign = std::uint64_t{1} << (w - 1);
  if ((v.bits & sign) == 0) return static_cast<std::int64_t>(v.bits);
  return static_cast<std::int64_t>(v.bits | ~mask(w));
}

// SMT-LIB's div and mod: the remainder is never negative. By zero they are unspecified.
std::optional<Value> eval_div_mod(Op op, std::int64_t a, std::int64_t b) {
  if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) return std::nullopt;
  std::int64_t q = a / b;
  std::int64_t r = a % b;
  if (r < 0) {
    q += b > 0 ? -1 : 1;
    r += b > 0 ? b : -b;
  }
  return Value::of_int(op == Op::kDiv ? q : r);
}

std::optional<Value> eval_ints(Op op, const std::vector<Value>& args) {
  if (op == Op::kDiv || op == Op::kMod) return eval_div_mod(op, args[0].integer, args[1].integer);
  if (op == Op::kAbs) {
    if (args[0].integer == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    return Value::of_int(args[0].integer < 0 ? -args[0].integer : args[0].integer);
  }
  std::int64_t acc = args[0].integer;
  if (op == Op::kSub && args.size() == 1) {
    if (__builtin_sub_overflow(std::int64_t{0}, acc, &acc)) return std::nullopt;
    return Value::of_int(acc);
  }
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::int64_t x = args[i].integer;
    bool overflow = false;
    switch (op) {
      case Op::kAdd:
        overflow = __builtin_add_overflow(acc, x, &acc);
        break;
      case Op::kSub:
        overflow = __builtin_sub_overflow(acc, x, &acc);
        break;
      case Op::kMul:
        overflow = __builtin_mul_overflow(acc, x, &acc);
        break;
      default:
        return std::nullopt;
    }
    if (overflow) return std::nullopt;
  }
  return Value::of_int(acc);
}

// bvsdiv, bvsrem and bvsmod by their SMT-LIB definitions in terms of the unsigned operations.
Value eval_bv_signed(Op op, const Value& s, const Value& t) {
  const std::uint32_t w = s.sort.width;
  const std::uint64_t m = mask(w);
  const bool ms = signed_of(s) < 0;
  const bool mt = signed_of(t) < 0;
  auto neg = [m](std::uint64_t x) { return (0 - x) & m; };
  auto udiv = [m](std::uint64_t x, std::uint64_t y) { return y == 0 ? m : x / y; };
  auto urem = [](std::uint64_t x, std::uint64_t y) { return y == 0 ? x : x % y; };
  const std::uint64_t as = ms ? neg(s.bits) : s.bits;
  const std::uint64_t at = mt ? neg(t.bits) : t.bits;
  switch (op) {
    case Op::kBvSdiv: {
      const std::uint64_t q = udiv(as, at);
      return Value::of_bits(w, ms != mt ? neg(q) : q);
    }
    case Op::kBvSrem: {
      const std::uint64_t r = urem(as, at);
      return Value::of_bits(w, ms ? neg(r) : r);
    }
    default: {
      const std::uint64_t u = urem(as, at);
      if (u == 0 || (!ms && !mt)) return Value::of_bits(w, u);
      if (ms && !mt) return Value::of_bits(w, neg(u) + t.bits);
      if (!ms && mt) return Value::of_bits(w, u + t.bits);
      return Value::of_bits(w, neg(u));
    }
  }
}

Value eval_bv_binary(Op op, const Value& a, const Value& b) {
  const std::uint32_t w = a.sort.width;
  const std::uint64_t x = a.bits;
  const std::uint64_t y = b.bits;
  switch (op) {
    case Op::kBvSdiv:
    case Op::kBvSrem:
    case Op::kBvSmod:
      return eval_bv_signed(op, a, b);
    case Op::kBvNand:
      return Value::of_bits(w, ~(x & y));
    case Op::kBvNor:
      return Value::of_bits(w, ~(x | y));
    case Op::kBvXnor:
      return Value::of_bits(w, ~(x ^ y));
    case Op::kBvComp:
      return Value::of_bits(1, x == y ? 1 : 0);
    case Op::kBvAdd:
      return Value::of_bits(w, x + y);
    case Op::kBvSub:
      return Value::of_bits(w, x - y);
    case Op::kBvMul:
      return Value::of_bits(w, x * y);
    case Op::kBvAnd:
      return Value::of_bits(w, x & y);
    case Op::kBvOr:
      return Value::of_bits(w, x | y);
    case Op::kBvXor:
      return Value::of_bits(w, x ^ y);
    case Op::kBvShl:
      return Value::of_bits(w, y >= w ? 0 : x << y);
    case Op::kBvLshr:
      return Value::of_bits(w, y >= w ? 0 : x >> y);
    case Op::kBvAshr: {
      const std::int64_t s = signed_of(a);
      return Value::of_bits(w, static_cast<std::uint64_t>(y >= w ? (s < 0 ? -1 : 0) : s >> y));
    }
    // SMT-LIB 2.6: division by zero gives all ones, the remainder of it is the dividend.
    case Op::kBvUdiv:
      return Value::of_bits(w, y == 0 ? mask(w) : x / y);
    case Op::kBvUrem:
      return Value::of_bits(w, y == 0 ? x : x % y);
    default:
      return a;
  }
}

}  // namespace

std::string to_string(const SortType& sort) {
  switch (sort.kind) {
    case SortKind::kBool:
      return "Bool";
    case SortKind::kInt:
      return "Int";
    case SortKind::kBitVec:
      return "(_ BitVec " + std::to_string(sort.width) + ")";
    case SortKind::kUninterpreted:
      return "U#" + std::to_string(sort.decl);
  }
  return "?";
}

const std::vector<std::string>& logics() {
  static const std::vector<std::string> kLogics = {"ALL",    "QF_BV",    "QF_UFBV",  "QF_LIA",
                                                   "QF_NIA", "QF_UFLIA", "QF_UFNIA", "QF_UF"};
  return kLogics;
}

std::optional<Theories> theories_of(std::string_view logic) {
  if (logic == "ALL") return all_theories();
  if (logic == "QF_BV") return Theories{false, false, true, false};
  if (logic == "QF_UFBV") return Theories{false, false, true, true};
  if (logic == "QF_LIA") return Theories{true, false, false, false};
  if (logic == "QF_NIA") return Theories{true, true, false, false};
  if (logic == "QF_UFLIA") return Theories{true, false, false, true};
  if (logic == "QF_UFNIA") return Theories{true, true, false, true};
  if (logic == "QF_UF") return Theories{false, false, false, true};
  return std::nullopt;
}

Theories all_theories() { return Theories{true, true, true, true}; }

const std::vector<OpInfo>& all_ops() {
  using S = Signature;
  constexpr std::uint32_t kMany = 3;  // n-ary operators get 2..3 arguments: terms stay small
  static const std::vector<OpInfo> kOps = {
      {Op::kNot, "not", Theory::kCore, S::kBools, 1, 1, 0},
      {Op::kAnd, "and", Theory::kCore, S::kBools, 2, kMany, 0},
      {Op::kOr, "or", Theory::kCore, S::kBools, 2, kMany, 0},
      {Op::kXor, "xor", Theory::kCore, S::kBools, 2, 2, 0},
      {Op::kImplies, "=>", Theory::kCore, S::kBools, 2, 2, 0},
      {Op::kIte, "ite", Theory::kCore, S::kIte, 3, 3, 0},
      {Op::kEqual, "=", Theory::kCore, S::kSameSort, 2, kMany, 0},
      {Op::kDistinct, "distinct", Theory::kCore, S::kSameSort, 2, kMany, 0},
      {Op::kAdd, "+", Theory::kInts, S::kInts, 2, kMany, 0},
      {Op::kSub, "-", Theory::kInts, S::kInts, 1, 2, 0},
      {Op::kMul, "*", Theory::kInts, S::kInts, 2, 2, 0},
      {Op::kDiv, "div", Theory::kInts, S::kInts, 2, 2, 0},
      {Op::kMod, "mod", Theory::kInts, S::kInts, 2, 2, 0},
      {Op::kAbs, "abs", Theory::kInts, S::kInts, 1, 1, 0},
      {Op::kLt, "<", Theory::kInts, S::kIntCmp, 2, 2, 0},
      {Op::kLe, "<=", Theory::kInts, S::kIntCmp, 2, 2, 0},
      {Op::kGt, ">", Theory::kInts, S::kIntCmp, 2, 2, 0},
      {Op::kGe, ">=", Theory::kInts, S::kIntCmp, 2, 2, 0},
      {Op::kBvAdd, "bvadd", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvSub, "bvsub", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvMul, "bvmul", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvAnd, "bvand", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvOr, "bvor", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvXor, "bvxor", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvNot, "bvnot", Theory::kBitVecs, S::kBvSame, 1, 1, 0},
      {Op::kBvNeg, "bvneg", Theory::kBitVecs, S::kBvSame, 1, 1, 0},
      {Op::kBvShl, "bvshl", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvLshr, "bvlshr", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvAshr, "bvashr", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvUdiv, "bvudiv", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvUrem, "bvurem", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvSdiv, "bvsdiv", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvSrem, "bvsrem", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvSmod, "bvsmod", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvNand, "bvnand", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvNor, "bvnor", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvXnor, "bvxnor", Theory::kBitVecs, S::kBvSame, 2, 2, 0},
      {Op::kBvComp, "bvcomp", Theory::kBitVecs, S::kBvComp, 2, 2, 0},
      {Op::kConcat, "concat", Theory::kBitVecs, S::kConcat, 2, 2, 0},
      {Op::kExtract, "extract", Theory::kBitVecs, S::kExtract, 1, 1, 2},
      {Op::kZeroExtend, "zero_extend", Theory::kBitVecs, S::kExtend, 1, 1, 1},
      {Op::kSignExtend, "sign_extend", Theory::kBitVecs, S::kExtend, 1, 1, 1},
      {Op::kRotateLeft, "rotate_left", Theory::kBitVecs, S::kRotate, 1, 1, 1},
      {Op::kRotateRight, "rotate_right", Theory::kBitVecs, S::kRotate, 1, 1, 1},
      {Op::kRepeat, "repeat", Theory::kBitVecs, S::kRepeat, 1, 1, 1},
      {Op::kBvUlt, "bvult", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
      {Op::kBvUle, "bvule", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
      {Op::kBvUgt, "bvugt", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
      {Op::kBvUge, "bvuge", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
      {Op::kBvSlt, "bvslt", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
      {Op::kBvSle, "bvsle", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
      {Op::kBvSgt, "bvsgt", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
      {Op::kBvSge, "bvsge", Theory::kBitVecs, S::kBvCmp, 2, 2, 0},
  };
  return kOps;
}

const OpInfo& info(Op op) { return all_ops()[static_cast<std::size_t>(op)]; }

const OpInfo* find_op(std::string_view name) {
  for (const OpInfo& op : all_ops()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

bool allowed(const OpInfo& op, const Theories& theories) {
  switch (op.theory) {
    case Theory::kCore:
      return true;
    case Theory::kInts:
      return theories.ints;
    case Theory::kBitVecs:
      return theories.bitvecs;
  }
  return false;
}

std::optional<SortType> result_sort(const OpInfo& op, const std::vector<std::uint32_t>& indices,
                                    const std::vector<SortType>& args, std::string* why) {
  auto fail = [&](std::string message) -> std::optional<SortType> {
    if (why != nullptr) *why = std::string(op.name) + ": " + std::move(message);
    return std::nullopt;
  };
  if (indices.size() != op.indices) return fail("wrong number of indices");
  if (args.size() < op.min_args || args.size() > op.max_args) {
    return fail("wrong number of arguments");
  }
  auto all_of_kind = [&](std::size_t from, SortKind kind) {
    return std::all_of(args.begin() + static_cast<std::ptrdiff_t>(from), args.end(),
                       [&](const SortType& s) { return s.kind == kind; });
  };
  auto all_same = [&](std::size_t from) {
    return std::all_of(args.begin() + static_cast<std::ptrdiff_t>(from), args.end(),
                       [&](const SortType& s) { return s == args[from]; });
  };
  switch (op.signature) {
    case Signature::kBools:
      if (!all_of_kind(0, SortKind::kBool)) return fail("arguments must be Bool");
      return SortType::boolean();
    case Signature::kIte:
      if (args[0].kind != SortKind::kBool) return fail("the condition must be Bool");
      if (!all_same(1)) return fail("the branches must have the same sort");
      return args[1];
    case Signature::kSameSort:
      if (!all_same(0)) return fail("arguments must have the same sort");
      return SortType::boolean();
    case Signature::kInts:
      if (!all_of_kind(0, SortKind::kInt)) return fail("arguments must be Int");
      return SortType::integer();
    case Signature::kIntCmp:
      if (!all_of_kind(0, SortKind::kInt)) return fail("arguments must be Int");
      return SortType::boolean();
    case Signature::kBvSame:
    case Signature::kBvCmp:
    case Signature::kBvComp:
      if (!all_of_kind(0, SortKind::kBitVec) || !all_same(0)) {
        return fail("arguments must be bit-vectors of one width");
      }
      if (op.signature == Signature::kBvComp) return SortType::bitvec(1);
      return op.signature == Signature::kBvCmp ? SortType::boolean() : args[0];
    case Signature::kConcat:
      if (!all_of_kind(0, SortKind::kBitVec)) return fail("arguments must be bit-vectors");
      if (args[0].width + args[1].width > kMaxBvWidth) return fail("result too wide");
      return SortType::bitvec(args[0].width + args[1].width);
    case Signature::kExtract:
      if (args[0].kind != SortKind::kBitVec) return fail("argument must be a bit-vector");
      if (indices[0] < indices[1] || indices[0] >= args[0].width) return fail("bad indices");
      return SortType::bitvec(indices[0] - indices[1] + 1);
    case Signature::kExtend:
      if (args[0].kind != SortKind::kBitVec) return fail("argument must be a bit-vector");
      if (indices[0] > kMaxBvWidth - args[0].width) return fail("result too wide");
      return SortType::bitvec(args[0].width + indices[0]);
    case Signature::kRotate:
      if (args[0].kind != SortKind::kBitVec) return fail("argument must be a bit-vector");
      return args[0];
    case Signature::kRepeat:
      if (args[0].kind != SortKind::kBitVec) return fail("argument must be a bit-vector");
      if (indices[0] == 0) return fail("repeat 0 times");
      if (indices[0] > kMaxBvWidth / args[0].width) return fail("result too wide");
      return SortType::bitvec(args[0].width * indices[0]);
  }
  return fail("unknown signature");
}

Value Value::of_bits(std::uint32_t width, std::uint64_t bits) {
  return {SortType::bitvec(width), false, 0, bits & mask(width)};
}

std::string bits_text(std::uint32_t width, std::uint64_t bits) {
  std::string out = "#b";
  for (std::uint32_t i = width; i > 0; --i) out += ((bits >> (i - 1)) & 1) != 0 ? '1' : '0';
  return out;
}

std::string to_text(const Value& value) {
  switch (value.sort.kind) {
    case SortKind::kBool:
      return value.boolean ? "true" : "false";
    case SortKind::kInt:
      return std::to_string(value.integer);
    case SortKind::kBitVec:
      return bits_text(value.sort.width, value.bits);
    case SortKind::kUninterpreted:
      break;
  }
  return "?";
}

std::optional<Value> evaluate(const OpInfo& op, const std::vector<std::uint32_t>& indices,
                              const std::vector<Value>& args) {
  switch (op.op) {
    case Op::kNot:
      return Value::of_bool(!args[0].boolean);
    case Op::kAnd:
      return Value::of_bool(
          std::all_of(args.begin(), args.end(), [](const Value& v) { return v.boolean; }));
    case Op::kOr:
      return Value::of_bool(
          std::any_of(args.begin(), args.end(), [](const Value& v) { return v.boolean; }));
    case Op::kXor:
      return Value::of_bool(args[0].boolean != args[1].boolean);
    case Op::kImplies:
      return Value::of_bool(!args[0].boolean || args[1].boolean);
    case Op::kIte:
      return args[0].boolean ? args[1] : args[2];
    case Op::kEqual:
      return Value::of_bool(
          std::all_of(args.begin(), args.end(), [&](const Value& v) { return v == args[0]; }));
    case Op::kDistinct:
      for (std::size_t i = 0; i < args.size(); ++i) {
        for (std::size_t j = i + 1; j < args.size(); ++j) {
          if (args[i] == args[j]) return Value::of_bool(false);
        }
      }
      return Value::of_bool(true);
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kMod:
    case Op::kAbs:
      return eval_ints(op.op, args);
    case Op::kLt:
      return Value::of_bool(args[0].integer < args[1].integer);
    case Op::kLe:
      return Value::of_bool(args[0].integer <= args[1].integer);
    case Op::kGt:
      return Value::of_bool(args[0].integer > args[1].integer);
    case Op::kGe:
      return Value::of_bool(args[0].integer >= args[1].integer);
    case Op::kBvNot:
      return Value::of_bits(args[0].sort.width, ~args[0].bits);
    case Op::kBvNeg:
      return Value::of_bits(args[0].sort.width, 0 - args[0].bits);
    case Op::kConcat:
      // Both widths are at least 1 and sum to at most 64, so the shift is below 64.
      return Value::of_bits(args[0].sort.width + args[1].sort.width,
                            (args[0].bits << args[1].sort.width) | args[1].bits);
    case Op::kExtract:
      return Value::of_bits(indices[0] - indices[1] + 1, args[0].bits >> indices[1]);
    case Op::kZeroExtend:
      return Value::of_bits(args[0].sort.width + indices[0], args[0].bits);
    case Op::kSignExtend:
      return Value::of_bits(args[0].sort.width + indices[0],
                            static_cast<std::uint64_t>(signed_of(args[0])));
    case Op::kRotateLeft:
    case Op::kRotateRight: {
      const std::uint32_t w = args[0].sort.width;
      const std::uint32_t n = indices[0] % w;
      const std::uint32_t left = op.op == Op::kRotateLeft ? n : (w - n) % w;
      if (left == 0) return args[0];
      return Value::of_bits(w, (args[0].bits << left) | (args[0].bits >> (w - left)));
    }
    case Op::kRepeat: {
      const std::uint32_t w = args[0].sort.width;
      std::uint64_t bits = 0;
      // The result has at most 64 bits, so a shift by w < 64 happens only with room for it.
      for (std::uint32_t i = 0; i < indices[0]; ++i) bits = (i == 0 ? 0 : bits << w) | args[0].bits;
      return Value::of_bits(w * indices[0], bits);
    }
    case Op::kBvUlt:
      return Value::of_bool(args[0].bits < args[1].bits);
    case Op::kBvUle:
      return Value::of_bool(args[0].bits <= args[1].bits);
    case Op::kBvUgt:
      return Value::of_bool(args[0].bits > args[1].bits);
    case Op::kBvUge:
      return Value::of_bool(args[0].bits >= args[1].bits);
    case Op::kBvSlt:
      return Value::of_bool(signed_of(args[0]) < signed_of(args[1]));
    case Op::kBvSle:
      return Value::of_bool(signed_of(args[0]) <= signed_of(args[1]));
    case Op::kBvSgt:
      return Value::of_bool(signed_of(args[0]) > signed_of(args[1]));
    case Op::kBvSge:
      return Value::of_bool(signed_of(args[0]) >= signed_of(args[1]));
    default:
      return eval_bv_binary(op.op, args[0], args[1]);
  }
}

}  // namespace smt_fuzz
