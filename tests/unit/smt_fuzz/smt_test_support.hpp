// What the smt_fuzz tests share: replaying a hand-written trace with the answers the solver gave,
// a walk's trace as text, and ForwardingSolver, a solver that passes every call on to a real one,
// for test fakes that change one answer.
#pragma once

#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/fsm/runner.hpp"
#include "prowl/trace/trace.hpp"
#include "smt_fuzz/machine.hpp"

namespace smt_fuzz::testing {

struct Replayed {
  prowl::fsm::RunResult result;
  std::vector<std::string> notes;  // the observer's lines: "check_sat sat", "get_value t3 3", ...
};

// Replays `steps` (trace lines after the header) with solvers from `factory`.
inline Replayed replay_steps(SolverFactory factory, const std::string& steps) {
  Replayed out;
  SmtMachine m = make_machine(
      {std::move(factory), [&out](const std::string& line) { out.notes.push_back(line); }});
  EXPECT_TRUE(m.check().is_ok());
  auto trace = prowl::trace::parse_trace("prowl-trace 1 smt_fuzz\n" + steps, "test.trace");
  EXPECT_TRUE(trace.is_ok()) << trace.status().message();
  if (!trace) return out;
  out.result = prowl::fsm::replay(m.core(), *trace, nullptr);
  return out;
}

// One fuzz walk's trace as written, line by line.
inline std::string walk_text(const prowl::fsm::MachineCore& machine, std::uint64_t seed,
                             prowl::fsm::RunResult* result = nullptr) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  prowl::trace::TraceWriter writer(fds[1]);
  // A 50-step trace is a few kilobytes: it fits in the pipe before anyone reads.
  prowl::fsm::RunResult r =
      prowl::fsm::walk(machine, {"smt_fuzz", {{"solver", "z3"}}}, seed, {}, &writer, nullptr);
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (result != nullptr) *result = r;
  return text;
}

// Passes every call on to `inner`; fakes override what they change.
class ForwardingSolver : public SmtSolver {
 public:
  ForwardingSolver(std::string name, std::unique_ptr<SmtSolver> inner)
      : name_(std::move(name)), inner_(std::move(inner)) {}

  std::string_view name() const override { return name_; }
  const std::vector<OptionSpec>& options() const override { return inner_->options(); }
  void set_option(const std::string& n, const std::string& v) override { inner_->set_option(n, v); }
  void set_logic(const std::string& logic) override { inner_->set_logic(logic); }
  SortRef bool_sort() override { return inner_->bool_sort(); }
  SortRef int_sort() override { return inner_->int_sort(); }
  SortRef bv_sort(std::uint32_t width) override { return inner_->bv_sort(width); }
  SortRef declare_sort(const std::string& n) override { return inner_->declare_sort(n); }
  TermRef declare_const(const std::string& n, SortRef s) override {
    return inner_->declare_const(n, s);
  }
  FunRef declare_fun(const std::string& n, const std::vector<SortRef>& domain,
                     SortRef codomain) override {
    return inner_->declare_fun(n, domain, codomain);
  }
  TermRef mk_bool(bool v) override { return inner_->mk_bool(v); }
  TermRef mk_int(std::int64_t v) override { return inner_->mk_int(v); }
  TermRef mk_bv(std::uint32_t w, std::uint64_t v) override { return inner_->mk_bv(w, v); }
  TermRef mk_term(Op op, const std::vector<std::uint32_t>& indices,
                  const std::vector<TermRef>& args) override {
    return inner_->mk_term(op, indices, args);
  }
  TermRef mk_app(FunRef f, const std::vector<TermRef>& args) override {
    return inner_->mk_app(f, args);
  }
  SortType sort_of(TermRef t) override { return inner_->sort_of(t); }
  void assert_formula(TermRef f) override { inner_->assert_formula(f); }
  Answer check_sat(const std::vector<TermRef>& assumptions) override {
    return inner_->check_sat(assumptions);
  }
  Answer last_answer() const override { return inner_->last_answer(); }
  std::vector<std::size_t> unsat_assumptions() override { return inner_->unsat_assumptions(); }
  void push(std::uint32_t levels) override { inner_->push(levels); }
  void pop(std::uint32_t levels) override { inner_->pop(levels); }
  void reset_assertions() override { inner_->reset_assertions(); }
  std::string value(TermRef t) override { return inner_->value(t); }
  std::string model_text(const std::vector<SortRef>& sorts,
                         const std::vector<TermRef>& consts) override {
    return inner_->model_text(sorts, consts);
  }
  std::string term_text(TermRef t) override { return inner_->term_text(t); }

 protected:
  SmtSolver& inner() { return *inner_; }

 private:
  std::string name_;
  std::unique_ptr<SmtSolver> inner_;
};

}  // namespace smt_fuzz::testing
