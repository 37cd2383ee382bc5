// The cross-checking backend: every call goes to both solvers, in the same order, so the refs they
// hand out stay equal; check_sat compares the answers.
#include <algorithm>
#include <utility>

#include "prowl/core/status.hpp"
#include "smt_fuzz/solver.hpp"

namespace smt_fuzz {
namespace {

class BothSolver final : public SmtSolver {
 public:
  BothSolver(std::unique_ptr<SmtSolver> first, std::unique_ptr<SmtSolver> second)
      : first_(std::move(first)), second_(std::move(second)) {
    for (SmtSolver* s : {first_.get(), second_.get()}) {
      for (const OptionSpec& option : s->options()) {
        auto same = [&](const OptionSpec& o) { return o.name == option.name; };
        auto it = std::find_if(options_.begin(), options_.end(), same);
        if (it == options_.end()) {
          options_.push_back(option);
          continue;
        }
        for (const std::string& v : option.values) {
          if (std::find(it->values.begin(), it->values.end(), v) == it->values.end()) {
            it->values.push_back(v);
          }
        }
      }
    }
  }

  std::string_view name() const override { return "both"; }
  std::vector<SmtSolver*> backends() override { return {first_.get(), second_.get()}; }
  const std::vector<OptionSpec>& options() const override { return options_; }

  // An option goes to the solvers that know it.
  void set_option(const std::string& name, const std::string& value) override {
    for (SmtSolver* s : {first_.get(), second_.get()}) {
      const auto& known = s->options();
      if (std::any_of(known.begin(), known.end(),
                      [&](const OptionSpec& o) { return o.name == name; })) {
        s->set_option(name, value);
      }
    }
  }
  void set_logic(const std::string& logic) override {
    first_->set_logic(logic);
    second_->set_logic(logic);
  }

  SortRef bool_sort() override { return same(first_->bool_sort(), second_->bool_sort()); }
  SortRef int_sort() override { return same(first_->int_sort(), second_->int_sort()); }
  SortRef bv_sort(std::uint32_t width) override {
    return same(first_->bv_sort(width), second_->bv_sort(width));
  }
  SortRef declare_sort(const std::string& name) override {
    return same(first_->declare_sort(name), second_->declare_sort(name));
  }
  TermRef declare_const(const std::string& name, SortRef sort) override {
    return same(first_->declare_const(name, sort), second_->declare_const(name, sort));
  }
  FunRef declare_fun(const std::string& name, const std::vector<SortRef>& domain,
                     SortRef codomain) override {
    return same(first_->declare_fun(name, domain, codomain),
                second_->declare_fun(name, domain, codomain));
  }
  TermRef mk_bool(bool value) override {
    return same(first_->mk_bool(value), second_->mk_bool(value));
  }
  TermRef mk_int(std::int64_t value) override {
    return same(first_->mk_int(value), second_->mk_int(value));
  }
  TermRef mk_bv(std::uint32_t width, std::uint64_t value) override {
    return same(first_->mk_bv(width, value), second_->mk_bv(width, value));
  }
  TermRef mk_term(Op op, const std::vector<std::uint32_t>& indices,
                  const std::vector<TermRef>& args) override {
    return same(first_->mk_term(op, indices, args), second_->mk_term(op, indices, args));
  }
  TermRef mk_app(FunRef fun, const std::vector<TermRef>& args) override {
    return same(first_->mk_app(fun, args), second_->mk_app(fun, args));
  }
  // The first solver's sort; the caller checks each backend's against what it expects.
  SortType sort_of(TermRef term) override { return first_->sort_of(term); }

  void assert_formula(TermRef formula) override {
    first_->assert_formula(formula);
    second_->assert_formula(formula);
  }
  Answer check_sat(const std::vector<TermRef>& assumptions) override {
    const Answer a = first_->check_sat(assumptions);
    const Answer b = second_->check_sat(assumptions);
    if ((a == Answer::kSat && b == Answer::kUnsat) || (a == Answer::kUnsat && b == Answer::kSat)) {
      throw Disagreement(std::string(first_->name()) + " says " + std::string(to_string(a)) + ", " +
                         std::string(second_->name()) + " says " + std::string(to_string(b)));
    }
    answers_ = {a, b};
    return last_answer();
  }
  Answer last_answer() const override {
    return answers_.first == Answer::kUnknown ? answers_.second : answers_.first;
  }
  // The first solver's; the caller checks each backend's.
  std::vector<std::size_t> unsat_assumptions() override { return first_->unsat_assumptions(); }
  void push(std::uint32_t levels) override {
    first_->push(levels);
    second_->push(levels);
  }
  void pop(std::uint32_t levels) override {
    first_->pop(levels);
    second_->pop(levels);
  }
  void reset_assertions() override {
    first_->reset_assertions();
    second_->reset_assertions();
  }

  // The value in the model of a solver that said sat (the first when both did).
  std::string value(TermRef term) override { return sat_solver().value(term); }
  std::string model_text(const std::vector<SortRef>& sorts,
                         const std::vector<TermRef>& consts) override {
    return sat_solver().model_text(sorts, consts);
  }
  std::string term_text(TermRef term) override { return first_->term_text(term); }

 private:
  // Both solvers number their objects in call order; a difference is a bug here, not theirs.
  static std::uint32_t same(std::uint32_t a, std::uint32_t b) {
    PROWL_CHECK(a == b, "smt_fuzz: the two solvers' handles went out of step");
    return a;
  }
  SmtSolver& sat_solver() {
    return answers_.first == Answer::kSat || answers_.second != Answer::kSat ? *first_ : *second_;
  }

  std::unique_ptr<SmtSolver> first_;
  std::unique_ptr<SmtSolver> second_;
  std::vector<OptionSpec> options_;
  std::pair<Answer, Answer> answers_{Answer::kUnknown, Answer::kUnknown};
};

}  // namespace

std::unique_ptr<SmtSolver> make_both_solver(std::unique_ptr<SmtSolver> first,
                                            std::unique_ptr<SmtSolver> second) {
  return std::make_unique<BothSolver>(std::move(first), std::move(second));
}

}  // namespace smt_fuzz
