// The Z3 backend: Z3's C++ API, and its C API for the operators (one call each, checked with
// check_error). The z3::solver is created at the first call that needs it, so that set_logic picks
// the logic's tactic and the options set before it become its parameters.
#include <z3++.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

#include "smt_fuzz/solver.hpp"

namespace smt_fuzz {
namespace {

const std::vector<OptionSpec>& z3_options() {
  static const std::vector<OptionSpec> kOptions = [] {
    std::vector<OptionSpec> options = common_options();
    const std::vector<std::string> kBool = {"true", "false"};
    options.push_back({"smt.relevancy", {"0", "1", "2"}});
    options.push_back({"smt.arith.solver", {"2", "6"}});
    options.push_back({"smt.phase_selection", {"0", "1", "3", "5"}});
    options.push_back({"smt.restart_strategy", {"0", "1", "2", "3", "4"}});
    options.push_back({"random_seed", {"0", "1", "2", "3"}});
    options.push_back({"smt.bv.eq_axioms", kBool});
    options.push_back({"smt.bv.reflect", kBool});
    options.push_back({"smt.bv.delay", kBool});
    options.push_back({"smt.arith.propagation_mode", {"0", "1", "2"}});
    options.push_back({"rewriter.flat", kBool});
    options.push_back({"rewriter.som", kBool});
    options.push_back({"rewriter.hoist_mul", kBool});
    options.push_back({"rewriter.blast_distinct", kBool});
    options.push_back({"rewriter.bv_sort_ac", kBool});
    options.push_back({"rewriter.bv_le_extra", kBool});
    options.push_back({"rewriter.mul2concat", kBool});
    options.push_back({"rewriter.push_ite_bv", kBool});
    options.push_back({"rewriter.local_ctx", kBool});
    return options;
  }();
  return kOptions;
}

class Z3Solver final : public SmtSolver {
 public:
  Z3Solver() : ctx_(std::make_unique<z3::context>()) {}

  std::string_view name() const override { return "z3"; }
  const std::vector<OptionSpec>& options() const override { return z3_options(); }

  void set_option(const std::string& name, const std::string& value) override {
    guard([&] {
      if (name == "incremental") return;  // Z3 is always incremental
      const std::string key = name == "produce-models"              ? "model"
                              : name == "produce-unsat-assumptions" ? "unsat_core"
                                                                    : name;
      params_.emplace_back(key, value);
      if (solver_) apply_params();
    });
  }
  void set_logic(const std::string& logic) override {
    guard([&] {
      logic_ = logic;
      solver();
    });
  }

  SortRef bool_sort() override {
    return guard([&] { return add_sort(ctx_->bool_sort()); });
  }
  SortRef int_sort() override {
    return guard([&] { return add_sort(ctx_->int_sort()); });
  }
  SortRef bv_sort(std::uint32_t width) override {
    return guard([&] { return add_sort(ctx_->bv_sort(width)); });
  }
  SortRef declare_sort(const std::string& name) override {
    return guard([&] { return add_sort(ctx_->uninterpreted_sort(name.c_str())); });
  }

  TermRef declare_const(const std::string& name, SortRef sort) override {
    return guard([&] { return add_term(ctx_->constant(name.c_str(), sorts_.at(sort))); });
  }
  FunRef declare_fun(const std::string& name, const std::vector<SortRef>& domain,
                     SortRef codomain) override {
    return guard([&] {
      z3::sort_vector dom(*ctx_);
      for (SortRef s : domain) dom.push_back(sorts_.at(s));
      funs_.push_back(ctx_->function(name.c_str(), dom, sorts_.at(codomain)));
      return static_cast<FunRef>(funs_.size() - 1);
    });
  }
  TermRef mk_bool(bool value) override {
    return guard([&] { return add_term(ctx_->bool_val(value)); });
  }
  TermRef mk_int(std::int64_t value) override {
    return guard([&] { return add_term(ctx_->int_val(value)); });
  }
  TermRef mk_bv(std::uint32_t width, std::uint64_t value) override {
    return guard([&] { return add_term(ctx_->bv_val(value, width)); });
  }
  TermRef mk_term(Op op, const std::vector<std::uint32_t>& indices,
                  const std::vector<TermRef>& args) override {
    return guard([&] { return add_term(build(op, indices, args)); });
  }
  TermRef mk_app(FunRef fun, const std::vector<TermRef>& args) override {
    return guard([&] {
      z3::expr_vector v(*ctx_);
      for (TermRef t : args) v.push_back(terms_.at(t));
      return add_term(funs_.at(fun)(v));
    });
  }
  SortType sort_of(TermRef term) override {
    return guard([&] {
      z3::sort s = terms_.at(term).get_sort();
      if (s.is_bool()) return SortType::boolean();
      if (s.is_int()) return SortType::integer();
      if (s.is_bv()) return SortType::bitvec(s.bv_size());
      for (std::size_t i = 0; i < sorts_.size(); ++i) {
        if (sorts_[i].sort_kind() == Z3_UNINTERPRETED_SORT && z3::eq(sorts_[i], s)) {
          return SortType{SortKind::kUninterpreted, 0, static_cast<std::uint32_t>(i)};
        }
      }
      throw SolverError("z3: term of an unexpected sort " + s.to_string());
    });
  }

  void assert_formula(TermRef formula) override {
    guard([&] {
      model_.reset();
      solver().add(terms_.at(formula));
    });
  }
  Answer check_sat(const std::vector<TermRef>& assumptions) override {
    return guard([&] {
      model_.reset();
      last_ = Answer::kUnknown;  // until this check answers
      assumptions_.clear();
      for (TermRef t : assumptions) assumptions_.push_back(terms_.at(t));
      z3::check_result r;
      if (assumptions.empty()) {
        r = solver().check();
      } else {
        z3::expr_vector v(*ctx_);
        for (TermRef t : assumptions) v.push_back(terms_.at(t));
        r = solver().check(v);
      }
      last_ = r == z3::sat ? Answer::kSat : r == z3::unsat ? Answer::kUnsat : Answer::kUnknown;
      return last_;
    });
  }
  Answer last_answer() const override { return last_; }
  std::vector<std::size_t> unsat_assumptions() override {
    return guard([&] {
      std::vector<std::size_t> out;
      const z3::expr_vector core = solver().unsat_core();
      for (unsigned i = 0; i < core.size(); ++i) {
        auto same = [&](const z3::expr& a) { return z3::eq(a, core[i]); };
        auto it = std::find_if(assumptions_.begin(), assumptions_.end(), same);
        if (it == assumptions_.end()) {
          throw SolverError("z3: the unsat core holds " + core[i].to_string() +
                            ", which is not an assumption");
        }
        out.push_back(static_cast<std::size_t>(it - assumptions_.begin()));
      }
      return out;
    });
  }
  void push(std::uint32_t levels) override {
    guard([&] {
      model_.reset();
      for (std::uint32_t i = 0; i < levels; ++i) solver().push();
    });
  }
  void pop(std::uint32_t levels) override {
    guard([&] {
      model_.reset();
      solver().pop(levels);
    });
  }
  void reset_assertions() override {
    guard([&] {
      model_.reset();
      solver().reset();
    });
  }

  std::string value(TermRef term) override {
    return guard([&] {
      const z3::expr v = model().eval(terms_.at(term), true);
      const z3::sort s = v.get_sort();
      if (s.is_bool()) {
        if (v.is_true()) return std::string("true");
        if (v.is_false()) return std::string("false");
      } else if ((s.is_int() || s.is_bv()) && v.is_numeral()) {
        std::string digits = Z3_get_numeral_string(*ctx_, v);
        ctx_->check_error();
        if (s.is_int()) return digits;
        std::uint64_t bits = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
        if (ec == std::errc() && end == digits.data() + digits.size()) {
          return bits_text(s.bv_size(), bits);
        }
      } else if (!s.is_bool() && !s.is_int() && !s.is_bv()) {
        return v.to_string();
      }
      return "(not a value) " + v.to_string();
    });
  }
  std::string model_text(const std::vector<SortRef>&, const std::vector<TermRef>&) override {
    return guard([&] { return model().to_string(); });
  }
  std::string term_text(TermRef term) override {
    return guard([&] { return terms_.at(term).to_string(); });
  }

 private:
  // Runs `f`, turning Z3's exceptions into SolverError.
  template <class F>
  auto guard(F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const SolverError&) {
      throw;
    } catch (const std::exception& e) {
      throw SolverError(std::string("z3: ") + e.what());
    }
  }

  z3::solver& solver() {
    if (!solver_) {
      solver_.emplace(logic_.empty() ? z3::solver(*ctx_) : z3::solver(*ctx_, logic_.c_str()));
      apply_params();
    }
    return *solver_;
  }
  void apply_params() {
    z3::params p(*ctx_);
    p.set("rlimit", static_cast<unsigned>(kZ3ResourceLimit));
    for (const auto& [key, value] : params_) {
      unsigned number = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
      if (value == "true" || value == "false") {
        p.set(key.c_str(), value == "true");
      } else if (ec == std::errc() && end == value.data() + value.size()) {
        p.set(key.c_str(), number);
      } else {
        p.set(key.c_str(), ctx_->str_symbol(value.c_str()));
      }
    }
    solver_->set(p);
  }
  z3::model& model() {
    if (!model_) model_.emplace(solver().get_model());
    return *model_;
  }

  SortRef add_sort(z3::sort s) {
    sorts_.push_back(std::move(s));
    return static_cast<SortRef>(sorts_.size() - 1);
  }
  TermRef add_term(z3::expr e) {
    terms_.push_back(std::move(e));
    return static_cast<TermRef>(terms_.size() - 1);
  }
  // Checks the last C API call, then takes its result.
  z3::expr wrap(Z3_ast ast) {
    ctx_->check_error();
    return z3::expr(*ctx_, ast);
  }

  z3::expr build(Op op, const std::vector<std::uint32_t>& indices,
                 const std::vector<TermRef>& refs) {
    std::vector<Z3_ast> a;
    for (TermRef t : refs) a.push_back(terms_.at(t));
    Z3_context c = *ctx_;
    const auto n = static_cast<unsigned>(a.size());
    switch (op) {
      case Op::kNot:
        return wrap(Z3_mk_not(c, a[0]));
      case Op::kAnd:
        return wrap(Z3_mk_and(c, n, a.data()));
      case Op::kOr:
        return wrap(Z3_mk_or(c, n, a.data()));
      case Op::kXor:
        return wrap(Z3_mk_xor(c, a[0], a[1]));
      case Op::kImplies:
        return wrap(Z3_mk_implies(c, a[0], a[1]));
      case Op::kIte:
        return wrap(Z3_mk_ite(c, a[0], a[1], a[2]));
      case Op::kEqual: {
        // (= a b c) is (and (= a b) (= b c)); Z3's C API has binary equality only.
        if (n == 2) return wrap(Z3_mk_eq(c, a[0], a[1]));
        z3::expr_vector chain(*ctx_);
        for (unsigned i = 0; i + 1 < n; ++i) chain.push_back(wrap(Z3_mk_eq(c, a[i], a[i + 1])));
        return z3::mk_and(chain);
      }
      case Op::kDistinct:
        return wrap(Z3_mk_distinct(c, n, a.data()));
      case Op::kAdd:
        return wrap(Z3_mk_add(c, n, a.data()));
      case Op::kSub:
        return wrap(n == 1 ? Z3_mk_unary_minus(c, a[0]) : Z3_mk_sub(c, n, a.data()));
      case Op::kMul:
        return wrap(Z3_mk_mul(c, n, a.data()));
      case Op::kDiv:
        return wrap(Z3_mk_div(c, a[0], a[1]));
      case Op::kMod:
        return wrap(Z3_mk_mod(c, a[0], a[1]));
      case Op::kAbs: {
        // Z3 4.8's C API has no abs (nor bvcomp): both are built from their definitions.
        const z3::expr x(*ctx_, a[0]);
        return z3::ite(x >= ctx_->int_val(0), x, -x);
      }
      case Op::kLt:
        return wrap(Z3_mk_lt(c, a[0], a[1]));
      case Op::kLe:
        return wrap(Z3_mk_le(c, a[0], a[1]));
      case Op::kGt:
        return wrap(Z3_mk_gt(c, a[0], a[1]));
      case Op::kGe:
        return wrap(Z3_mk_ge(c, a[0], a[1]));
      case Op::kBvAdd:
        return wrap(Z3_mk_bvadd(c, a[0], a[1]));
      case Op::kBvSub:
        return wrap(Z3_mk_bvsub(c, a[0], a[1]));
      case Op::kBvMul:
        return wrap(Z3_mk_bvmul(c, a[0], a[1]));
      case Op::kBvAnd:
        return wrap(Z3_mk_bvand(c, a[0], a[1]));
      case Op::kBvOr:
        return wrap(Z3_mk_bvor(c, a[0], a[1]));
      case Op::kBvXor:
        return wrap(Z3_mk_bvxor(c, a[0], a[1]));
      case Op::kBvNot:
        return wrap(Z3_mk_bvnot(c, a[0]));
      case Op::kBvNeg:
        return wrap(Z3_mk_bvneg(c, a[0]));
      case Op::kBvShl:
        return wrap(Z3_mk_bvshl(c, a[0], a[1]));
      case Op::kBvLshr:
        return wrap(Z3_mk_bvlshr(c, a[0], a[1]));
      case Op::kBvAshr:
        return wrap(Z3_mk_bvashr(c, a[0], a[1]));
      case Op::kBvUdiv:
        return wrap(Z3_mk_bvudiv(c, a[0], a[1]));
      case Op::kBvUrem:
        return wrap(Z3_mk_bvurem(c, a[0], a[1]));
      case Op::kBvSdiv:
        return wrap(Z3_mk_bvsdiv(c, a[0], a[1]));
      case Op::kBvSrem:
        return wrap(Z3_mk_bvsrem(c, a[0], a[1]));
      case Op::kBvSmod:
        return wrap(Z3_mk_bvsmod(c, a[0], a[1]));
      case Op::kBvNand:
        return wrap(Z3_mk_bvnand(c, a[0], a[1]));
      case Op::kBvNor:
        return wrap(Z3_mk_bvnor(c, a[0], a[1]));
      case Op::kBvXnor:
        return wrap(Z3_mk_bvxnor(c, a[0], a[1]));
      case Op::kBvComp: {
        const z3::expr x(*ctx_, a[0]);
        const z3::expr y(*ctx_, a[1]);
        return z3::ite(x == y, ctx_->bv_val(1, 1), ctx_->bv_val(0, 1));
      }
      case Op::kConcat:
        return wrap(Z3_mk_concat(c, a[0], a[1]));
      case Op::kExtract:
        return wrap(Z3_mk_extract(c, indices[0], indices[1], a[0]));
      case Op::kZeroExtend:
        return wrap(Z3_mk_zero_ext(c, indices[0], a[0]));
      case Op::kSignExtend:
        return wrap(Z3_mk_sign_ext(c, indices[0], a[0]));
      case Op::kRotateLeft:
        return wrap(Z3_mk_rotate_left(c, indices[0], a[0]));
      case Op::kRotateRight:
        return wrap(Z3_mk_rotate_right(c, indices[0], a[0]));
      case Op::kRepeat:
        return wrap(Z3_mk_repeat(c, indices[0], a[0]));
      case Op::kBvUlt:
        return wrap(Z3_mk_bvult(c, a[0], a[1]));
      case Op::kBvUle:
        return wrap(Z3_mk_bvule(c, a[0], a[1]));
      case Op::kBvUgt:
        return wrap(Z3_mk_bvugt(c, a[0], a[1]));
      case Op::kBvUge:
        return wrap(Z3_mk_bvuge(c, a[0], a[1]));
      case Op::kBvSlt:
        return wrap(Z3_mk_bvslt(c, a[0], a[1]));
      case Op::kBvSle:
        return wrap(Z3_mk_bvsle(c, a[0], a[1]));
      case Op::kBvSgt:
        return wrap(Z3_mk_bvsgt(c, a[0], a[1]));
      case Op::kBvSge:
        return wrap(Z3_mk_bvsge(c, a[0], a[1]));
    }
    throw SolverError("z3: unknown operator");
  }

  // Declared first: every Z3 object below must go before the context.
  std::unique_ptr<z3::context> ctx_;
  std::string logic_;
  std::vector<std::pair<std::string, std::string>> params_;
  std::vector<z3::sort> sorts_;
  std::vector<z3::expr> terms_;
  std::vector<z3::func_decl> funs_;
  std::optional<z3::solver> solver_;
  std::optional<z3::model> model_;
  std::vector<z3::expr> assumptions_;  // of the last check
  Answer last_ = Answer::kUnknown;
};

}  // namespace

std::unique_ptr<SmtSolver> make_z3_solver() { return std::make_unique<Z3Solver>(); }

}  // namespace smt_fuzz
