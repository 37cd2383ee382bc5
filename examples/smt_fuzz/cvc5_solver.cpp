// The cvc5 backend: cvc5's C++ API (1.0). Options are set on the solver as they come; a query's
// resources are capped with rlimit-per.
#include <cvc5/cvc5.h>

#include <algorithm>
#include <utility>

#include "smt_fuzz/solver.hpp"

namespace smt_fuzz {
namespace {

using cvc5::Kind;

const std::vector<OptionSpec>& cvc5_options() {
  static const std::vector<OptionSpec> kOptions = [] {
    std::vector<OptionSpec> options = common_options();
    const std::vector<std::string> kBool = {"true", "false"};
    options.push_back({"bv-solver", {"bitblast", "bitblast-internal"}});
    options.push_back({"simplification", {"none", "batch"}});
    options.push_back({"nl-ext", {"none", "light", "full"}});
    options.push_back({"nl-ext-tplanes", kBool});
    options.push_back({"decision", {"internal", "justification", "stoponly"}});
    options.push_back({"bv-to-bool", kBool});
    options.push_back({"arith-rewrite-equalities", kBool});
    options.push_back({"repeat-simp", kBool});
    options.push_back({"static-learning", kBool});
    options.push_back({"check-models", kBool});
    options.push_back({"seed", {"0", "1", "2", "3"}});
    return options;
  }();
  return kOptions;
}

class Cvc5Solver final : public SmtSolver {
 public:
  Cvc5Solver() : slv_(std::make_unique<cvc5::Solver>()) {
    slv_->setOption("rlimit-per", std::to_string(kCvc5ResourceLimit));
  }

  std::string_view name() const override { return "cvc5"; }
  const std::vector<OptionSpec>& options() const override { return cvc5_options(); }

  void set_option(const std::string& name, const std::string& value) override {
    guard([&] { slv_->setOption(name, value); });
  }
  void set_logic(const std::string& logic) override {
    guard([&] { slv_->setLogic(logic); });
  }

  SortRef bool_sort() override {
    return guard([&] { return add_sort(slv_->getBooleanSort()); });
  }
  SortRef int_sort() override {
    return guard([&] { return add_sort(slv_->getIntegerSort()); });
  }
  SortRef bv_sort(std::uint32_t width) override {
    return guard([&] { return add_sort(slv_->mkBitVectorSort(width)); });
  }
  SortRef declare_sort(const std::string& name) override {
    return guard([&] { return add_sort(slv_->declareSort(name, 0)); });
  }

  TermRef declare_const(const std::string& name, SortRef sort) override {
    return guard([&] { return add_term(slv_->mkConst(sorts_.at(sort), name)); });
  }
  FunRef declare_fun(const std::string& name, const std::vector<SortRef>& domain,
                     SortRef codomain) override {
    return guard([&] {
      std::vector<cvc5::Sort> dom;
      for (SortRef s : domain) dom.push_back(sorts_.at(s));
      funs_.push_back(slv_->declareFun(name, dom, sorts_.at(codomain)));
      return static_cast<FunRef>(funs_.size() - 1);
    });
  }
  TermRef mk_bool(bool value) override {
    return guard([&] { return add_term(slv_->mkBoolean(value)); });
  }
  TermRef mk_int(std::int64_t value) override {
    return guard([&] { return add_term(slv_->mkInteger(value)); });
  }
  TermRef mk_bv(std::uint32_t width, std::uint64_t value) override {
    return guard([&] { return add_term(slv_->mkBitVector(width, value)); });
  }
  TermRef mk_term(Op op, const std::vector<std::uint32_t>& indices,
                  const std::vector<TermRef>& args) override {
    return guard([&] {
      std::vector<cvc5::Term> a;
      for (TermRef t : args) a.push_back(terms_.at(t));
      if (indices.empty()) return add_term(slv_->mkTerm(kind_of(op, a.size()), a));
      return add_term(slv_->mkTerm(slv_->mkOp(kind_of(op, a.size()), indices), a));
    });
  }
  TermRef mk_app(FunRef fun, const std::vector<TermRef>& args) override {
    return guard([&] {
      std::vector<cvc5::Term> a = {funs_.at(fun)};
      for (TermRef t : args) a.push_back(terms_.at(t));
      return add_term(slv_->mkTerm(Kind::APPLY_UF, a));
    });
  }
  SortType sort_of(TermRef term) override {
    return guard([&] {
      const cvc5::Sort s = terms_.at(term).getSort();
      if (s.isBoolean()) return SortType::boolean();
      if (s.isInteger()) return SortType::integer();
      if (s.isBitVector()) return SortType::bitvec(s.getBitVectorSize());
      for (std::size_t i = 0; i < sorts_.size(); ++i) {
        if (sorts_[i].isUninterpretedSort() && sorts_[i] == s) {
          return SortType{SortKind::kUninterpreted, 0, static_cast<std::uint32_t>(i)};
        }
      }
      throw SolverError("cvc5: term of an unexpected sort " + s.toString());
    });
  }

  void assert_formula(TermRef formula) override {
    guard([&] { slv_->assertFormula(terms_.at(formula)); });
  }
  Answer check_sat(const std::vector<TermRef>& assumptions) override {
    return guard([&] {
      last_ = Answer::kUnknown;  // until this check answers
      assumptions_.clear();
      for (TermRef t : assumptions) assumptions_.push_back(terms_.at(t));
      cvc5::Result r;
      if (assumptions.empty()) {
        r = slv_->checkSat();
      } else {
        std::vector<cvc5::Term> a;
        for (TermRef t : assumptions) a.push_back(terms_.at(t));
        r = slv_->checkSatAssuming(a);
      }
      last_ = r.isSat() ? Answer::kSat : r.isUnsat() ? Answer::kUnsat : Answer::kUnknown;
      return last_;
    });
  }
  Answer last_answer() const override { return last_; }
  std::vector<std::size_t> unsat_assumptions() override {
    return guard([&] {
      std::vector<std::size_t> out;
      for (const cvc5::Term& t : slv_->getUnsatAssumptions()) {
        auto it = std::find(assumptions_.begin(), assumptions_.end(), t);
        if (it == assumptions_.end()) {
          throw SolverError("cvc5: the unsat assumptions hold " + t.toString() +
                            ", which is not an assumption");
        }
        out.push_back(static_cast<std::size_t>(it - assumptions_.begin()));
      }
      return out;
    });
  }
  void push(std::uint32_t levels) override {
    guard([&] { slv_->push(levels); });
  }
  void pop(std::uint32_t levels) override {
    guard([&] { slv_->pop(levels); });
  }
  void reset_assertions() override {
    guard([&] { slv_->resetAssertions(); });
  }

  std::string value(TermRef term) override {
    return guard([&] {
      const cvc5::Term v = slv_->getValue(terms_.at(term));
      const cvc5::Sort s = v.getSort();
      if (s.isBoolean() && v.isBooleanValue())
        return std::string(v.getBooleanValue() ? "true" : "false");
      if (s.isInteger() && v.isIntegerValue()) return v.getIntegerValue();
      if (s.isBitVector() && v.isBitVectorValue()) return "#b" + v.getBitVectorValue(2);
      if (s.isUninterpretedSort()) return v.toString();
      return "(not a value) " + v.toString();
    });
  }
  std::string model_text(const std::vector<SortRef>& sorts,
                         const std::vector<TermRef>& consts) override {
    return guard([&] {
      std::vector<cvc5::Sort> s;
      for (SortRef r : sorts) s.push_back(sorts_.at(r));
      std::vector<cvc5::Term> c;
      for (TermRef t : consts) c.push_back(terms_.at(t));
      return slv_->getModel(s, c);
    });
  }
  std::string term_text(TermRef term) override {
    return guard([&] { return terms_.at(term).toString(); });
  }

 private:
  template <class F>
  auto guard(F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const SolverError&) {
      throw;
    } catch (const std::exception& e) {
      throw SolverError(std::string("cvc5: ") + e.what());
    }
  }

  static Kind kind_of(Op op, std::size_t arity) {
    switch (op) {
      case Op::kNot:
        return Kind::NOT;
      case Op::kAnd:
        return Kind::AND;
      case Op::kOr:
        return Kind::OR;
      case Op::kXor:
        return Kind::XOR;
      case Op::kImplies:
        return Kind::IMPLIES;
      case Op::kIte:
        return Kind::ITE;
      case Op::kEqual:
        return Kind::EQUAL;
      case Op::kDistinct:
        return Kind::DISTINCT;
      case Op::kAdd:
        return Kind::ADD;
      case Op::kSub:
        return arity == 1 ? Kind::NEG : Kind::SUB;
      case Op::kMul:
        return Kind::MULT;
      case Op::kDiv:
        return Kind::INTS_DIVISION;
      case Op::kMod:
        return Kind::INTS_MODULUS;
      case Op::kAbs:
        return Kind::ABS;
      case Op::kLt:
        return Kind::LT;
      case Op::kLe:
        return Kind::LEQ;
      case Op::kGt:
        return Kind::GT;
      case Op::kGe:
        return Kind::GEQ;
      case Op::kBvAdd:
        return Kind::BITVECTOR_ADD;
      case Op::kBvSub:
        return Kind::BITVECTOR_SUB;
      case Op::kBvMul:
        return Kind::BITVECTOR_MULT;
      case Op::kBvAnd:
        return Kind::BITVECTOR_AND;
      case Op::kBvOr:
        return Kind::BITVECTOR_OR;
      case Op::kBvXor:
        return Kind::BITVECTOR_XOR;
      case Op::kBvNot:
        return Kind::BITVECTOR_NOT;
      case Op::kBvNeg:
        return Kind::BITVECTOR_NEG;
      case Op::kBvShl:
        return Kind::BITVECTOR_SHL;
      case Op::kBvLshr:
        return Kind::BITVECTOR_LSHR;
      case Op::kBvAshr:
        return Kind::BITVECTOR_ASHR;
      case Op::kBvUdiv:
        return Kind::BITVECTOR_UDIV;
      case Op::kBvUrem:
        return Kind::BITVECTOR_UREM;
      case Op::kBvSdiv:
        return Kind::BITVECTOR_SDIV;
      case Op::kBvSrem:
        return Kind::BITVECTOR_SREM;
      case Op::kBvSmod:
        return Kind::BITVECTOR_SMOD;
      case Op::kBvNand:
        return Kind::BITVECTOR_NAND;
      case Op::kBvNor:
        return Kind::BITVECTOR_NOR;
      case Op::kBvXnor:
        return Kind::BITVECTOR_XNOR;
      case Op::kBvComp:
        return Kind::BITVECTOR_COMP;
      case Op::kConcat:
        return Kind::BITVECTOR_CONCAT;
      case Op::kExtract:
        return Kind::BITVECTOR_EXTRACT;
      case Op::kZeroExtend:
        return Kind::BITVECTOR_ZERO_EXTEND;
      case Op::kSignExtend:
        return Kind::BITVECTOR_SIGN_EXTEND;
      case Op::kRotateLeft:
        return Kind::BITVECTOR_ROTATE_LEFT;
      case Op::kRotateRight:
        return Kind::BITVECTOR_ROTATE_RIGHT;
      case Op::kRepeat:
        return Kind::BITVECTOR_REPEAT;
      case Op::kBvUlt:
        return Kind::BITVECTOR_ULT;
      case Op::kBvUle:
        return Kind::BITVECTOR_ULE;
      case Op::kBvUgt:
        return Kind::BITVECTOR_UGT;
      case Op::kBvUge:
        return Kind::BITVECTOR_UGE;
      case Op::kBvSlt:
        return Kind::BITVECTOR_SLT;
      case Op::kBvSle:
        return Kind::BITVECTOR_SLE;
      case Op::kBvSgt:
        return Kind::BITVECTOR_SGT;
      case Op::kBvSge:
        return Kind::BITVECTOR_SGE;
    }
    throw SolverError("cvc5: unknown operator");
  }

  SortRef add_sort(cvc5::Sort s) {
    sorts_.push_back(std::move(s));
    return static_cast<SortRef>(sorts_.size() - 1);
  }
  TermRef add_term(cvc5::Term t) {
    terms_.push_back(std::move(t));
    return static_cast<TermRef>(terms_.size() - 1);
  }

  // Declared first: the sorts and terms below must go before the solver.
  std::unique_ptr<cvc5::Solver> slv_;
  std::vector<cvc5::Sort> sorts_;
  std::vector<cvc5::Term> terms_;
  std::vector<cvc5::Term> funs_;
  std::vector<cvc5::Term> assumptions_;  // of the last check
  Answer last_ = Answer::kUnknown;
};

}  // namespace

std::unique_ptr<SmtSolver> make_cvc5_solver() { return std::make_unique<Cvc5Solver>(); }

}  // namespace smt_fuzz

#if defined(__SANITIZE_ADDRESS__)
// cvc5's number library (CLN) keeps a small static allocation for the life of the process, which
// LeakSanitizer reports at exit of every program that used cvc5 (PROWL_SANITIZE builds). The
// sanitizer runtime looks this function up by name.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcln.so\n"; }
// Nor print that the suppression was used: the command line's stderr is checked by tests.
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif
