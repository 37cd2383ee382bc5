#include "prowl/symbolic/image.hpp"

#include "prowl/core/status.hpp"
#include "prowl/symbolic/region.hpp"
#include "solver.hpp"

namespace prowl::sym {

z3::expr Psyco::fresh(const z3::sort& sort) {
  const std::string name = "uVarReplacement_" + std::to_string(next_++);
  return system_->context().constant(name.c_str(), sort);
}

std::optional<z3::expr> Psyco::apply(const Transition& path, const z3::expr& state) {
  z3::context& context = system_->context();
  // The path's inputs are this step's own: fresh constants, so that two steps never share one.
  z3::expr_vector inputs = system_->input_vector();
  z3::expr_vector fresh_inputs(context);
  for (const InputVar& p : system_->inputs()) fresh_inputs.push_back(fresh(p.value.get_sort()));
  const z3::expr guard = substituted(path.guard, inputs, fresh_inputs);
  z3::solver solver = make_solver(context);
  solver.add(state);
  if (!path.guard.is_true()) solver.add(guard);
  // unknown: keep the path. A state whose guard cannot hold has no state in it, so keeping it
  // only costs time.
  if (solver.check() == z3::unsat) return std::nullopt;
  z3::expr_vector parts(context);
  parts.push_back(state);
  if (!path.guard.is_true()) parts.push_back(guard);
  for (std::size_t i = 0; i < system_->vars().size(); ++i) {
    parts.push_back(system_->vars()[i].next ==
                    substituted(system_->value_after(path, i), inputs, fresh_inputs));
  }
  return z3::mk_and(parts);
}

z3::expr Psyco::rename(const z3::expr& stepped) {
  z3::context& context = system_->context();
  z3::expr_vector olds = system_->now_vector();
  z3::expr_vector replacements(context);
  for (const StateVar& v : system_->vars()) replacements.push_back(fresh(v.now.get_sort()));
  // Old names first, so that the primed variables can then take them.
  const z3::expr renamed = substituted(stepped, olds, replacements);
  return substituted(renamed, system_->next_vector(), olds);
}

std::vector<z3::expr> Psyco::post(const std::vector<z3::expr>& region) {
  std::vector<z3::expr> out;
  for (const Transition& path : system_->transitions()) {
    if (path.error) continue;
    for (const z3::expr& state : region) {
      if (std::optional<z3::expr> stepped = apply(path, state)) out.push_back(rename(*stepped));
    }
  }
  return out;
}

std::optional<std::vector<z3::expr>> Psyco::difference(const std::vector<z3::expr>& candidates,
                                                       const std::vector<z3::expr>& reach,
                                                       std::string& reason) {
  const z3::expr not_reach = outside(*system_, reach);
  std::vector<z3::expr> out;
  for (const z3::expr& state : candidates) {
    z3::solver solver = make_solver(system_->context());
    // The state's own history is free, so the query reads it existentially.
    solver.add(state);
    solver.add(not_reach);
    const z3::check_result r = solver.check();
    if (r == z3::unknown) {
      reason = "Z3 could not decide whether a state is new (" + solver.reason_unknown() + ")";
      return std::nullopt;
    }
    if (r == z3::sat) out.push_back(state);
  }
  return out;
}

}  // namespace prowl::sym
