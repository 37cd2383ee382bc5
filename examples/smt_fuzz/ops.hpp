// The terms smt_fuzz builds: sorts, the operators of the Boolean, integer and bit-vector theories
// it uses with their sort rules, and a reference evaluator for ground terms (terms without free
// constants), whose values the solvers' get-value must reproduce. Plain data and pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace smt_fuzz {

enum class SortKind { kBool, kInt, kBitVec, kUninterpreted };

// A sort as the fuzzer knows it. Uninterpreted sorts are told apart by `decl`, the solver's handle
// of their declaration.
struct SortType {
  SortKind kind = SortKind::kBool;
  std::uint32_t width = 0;  // kBitVec: 1..kMaxBvWidth
  std::uint32_t decl = 0;   // kUninterpreted
  friend bool operator==(const SortType&, const SortType&) = default;

  static SortType boolean() { return {SortKind::kBool, 0, 0}; }
  static SortType integer() { return {SortKind::kInt, 0, 0}; }
  static SortType bitvec(std::uint32_t width) { return {SortKind::kBitVec, width, 0}; }
};
// "Bool", "Int", "(_ BitVec 8)", "U#3" (an uninterpreted sort by its declaration).
std::string to_string(const SortType& sort);

// Bit-vector widths stay within one machine word, so the reference evaluator is exact.
inline constexpr std::uint32_t kMaxBvWidth = 64;

// The theories a logic allows. Bool is always there.
struct Theories {
  bool ints = false;
  bool nonlinear = false;  // multiplication of two non-constant integers
  bool bitvecs = false;
  bool uf = false;  // uninterpreted sorts and functions
  friend bool operator==(const Theories&, const Theories&) = default;
};
// The logics set_logic picks from, and what each allows; nullopt for any other name.
const std::vector<std::string>& logics();
std::optional<Theories> theories_of(std::string_view logic);
Theories all_theories();

enum class Op {
  kNot,
  kAnd,
  kOr,
  kXor,
  kImplies,
  kIte,
  kEqual,
  kDistinct,
  kAdd,
  kSub,  // one argument: negation
  kMul,
  kDiv,  // SMT-LIB's Euclidean division; by zero it is unspecified (a function of the dividend)
  kMod,
  kAbs,
  kLt,
  kLe,
  kGt,
  kGe,
  kBvAdd,
  kBvSub,
  kBvMul,
  kBvAnd,
  kBvOr,
  kBvXor,
  kBvNot,
  kBvNeg,
  kBvShl,
  kBvLshr,
  kBvAshr,
  kBvUdiv,
  kBvUrem,
  kBvSdiv,
  kBvSrem,
  kBvSmod,
  kBvNand,
  kBvNor,
  kBvXnor,
  kBvComp,
  kConcat,
  kExtract,
  kZeroExtend,
  kSignExtend,
  kRotateLeft,
  kRotateRight,
  kRepeat,
  kBvUlt,
  kBvUle,
  kBvUgt,
  kBvUge,
  kBvSlt,
  kBvSle,
  kBvSgt,
  kBvSge,
};

// How an operator's arguments and result are sorted.
enum class Signature {
  kBools,     // Bool ... -> Bool
  kIte,       // Bool T T -> T
  kSameSort,  // T T ... -> Bool (=, distinct)
  kInts,      // Int ... -> Int
  kIntCmp,    // Int Int -> Bool
  kBvSame,    // (_ BitVec w) ... -> (_ BitVec w)
  kBvCmp,     // (_ BitVec w) (_ BitVec w) -> Bool
  kBvComp,    // (_ BitVec w) (_ BitVec w) -> (_ BitVec 1)
  kConcat,    // (_ BitVec a) (_ BitVec b) -> (_ BitVec a+b)
  kExtract,   // ((_ extract hi lo) (_ BitVec w)) -> (_ BitVec hi-lo+1)
  kExtend,    // ((_ zero_extend n) (_ BitVec w)) -> (_ BitVec w+n)
  kRotate,    // ((_ rotate_left n) (_ BitVec w)) -> (_ BitVec w)
  kRepeat,    // ((_ repeat n) (_ BitVec w)) -> (_ BitVec w*n), n >= 1
};

enum class Theory { kCore, kInts, kBitVecs };

struct OpInfo {
  Op op;
  std::string_view name;  // the SMT-LIB name, also the trace token
  Theory theory;
  Signature signature;
  std::uint32_t min_args;
  std::uint32_t max_args;
  std::uint32_t indices;  // integer indices before the arguments (extract: 2)
};

const std::vector<OpInfo>& all_ops();
const OpInfo& info(Op op);
const OpInfo* find_op(std::string_view name);
bool allowed(const OpInfo& op, const Theories& theories);

// The sort of `op` applied to arguments of these sorts, or nullopt with `why` set when the
// application is ill-sorted (wrong arity, index or argument sort).
std::optional<SortType> result_sort(const OpInfo& op, const std::vector<std::uint32_t>& indices,
                                    const std::vector<SortType>& args, std::string* why);

// A value of sort Bool, Int or a bit-vector sort.
struct Value {
  SortType sort;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t bits = 0;  // bit-vector value, masked to the width
  friend bool operator==(const Value&, const Value&) = default;

  static Value of_bool(bool b) { return {SortType::boolean(), b, 0, 0}; }
  static Value of_int(std::int64_t i) { return {SortType::integer(), false, i, 0}; }
  static Value of_bits(std::uint32_t width, std::uint64_t bits);
};
// The canonical text the solver backends report values in: "true", "-5", "#b0101".
std::string to_text(const Value& value);
// A bit-vector's canonical text: "#b" and `width` binary digits.
std::string bits_text(std::uint32_t width, std::uint64_t bits);

// The value of `op` on these argument values under SMT-LIB semantics, or nullopt when it leaves
// the evaluator's range (integer overflow). REQUIRES: result_sort accepted the application.
std::optional<Value> evaluate(const OpInfo& op, const std::vector<std::uint32_t>& indices,
                              const std::vector<Value>& args);

}  // namespace smt_fuzz
