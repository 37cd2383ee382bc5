#include "concrete.hpp"

namespace prowl::sym {

z3::expr zero_of(z3::context& context, const z3::sort& sort) {
  if (sort.is_bool()) return context.bool_val(false);
  if (sort.is_real()) return context.real_val(0);
  if (sort.is_bv()) return context.bv_val(0, sort.bv_size());
  return context.int_val(0);
}

Evaluator::Evaluator(const TransitionSystem& system) : system_(system), from_(system.context()) {
  for (const StateVar& v : system.vars()) from_.push_back(v.now);
  for (const InputVar& p : system.inputs()) from_.push_back(p.value);
}

Valuation Evaluator::default_inputs() const {
  Valuation out;
  for (const InputVar& p : system_.inputs()) {
    out.push_back(zero_of(system_.context(), p.value.get_sort()));
  }
  return out;
}

z3::expr Evaluator::value(const z3::expr& term, const Valuation& state,
                          const Valuation& inputs) const {
  z3::expr_vector to(system_.context());
  for (const z3::expr& v : state) to.push_back(v);
  for (const z3::expr& v : inputs) to.push_back(v);
  return substituted(term, from_, to).simplify();
}

std::optional<bool> Evaluator::holds(const z3::expr& condition, const Valuation& state,
                                     const Valuation& inputs) const {
  const z3::expr v = value(condition, state, inputs);
  if (v.is_true()) return true;
  if (v.is_false()) return false;
  return std::nullopt;
}

std::optional<Valuation> Evaluator::after(const Transition& t, const Valuation& state,
                                          const Valuation& inputs) const {
  Valuation out;
  for (std::size_t i = 0; i < system_.vars().size(); ++i) {
    if (!t.updates[i]) {
      out.push_back(state[i]);
      continue;
    }
    const z3::expr v = value(*t.updates[i], state, inputs);
    if (!(v.is_numeral() || v.is_true() || v.is_false())) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

}  // namespace prowl::sym
