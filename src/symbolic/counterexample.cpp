#include "counterexample.hpp"

#include <algorithm>

#include "prowl/core/status.hpp"
#include "prowl/symbolic/region.hpp"
#include "solver.hpp"

namespace prowl::sym {

namespace {

std::vector<std::pair<std::string, z3::expr>> inputs_in(const TransitionSystem& system,
                                                        const Transition& t,
                                                        const z3::model& model) {
  std::vector<std::pair<std::string, z3::expr>> out;
  for (std::size_t k : system.inputs_of(t)) {
    const InputVar& p = system.inputs()[k];
    out.emplace_back(p.name, model.eval(p.value, true));
  }
  return out;
}

}  // namespace

Counterexample walk_back(const TransitionSystem& system,
                         const std::vector<std::vector<z3::expr>>& frontiers, std::uint32_t depth,
                         const z3::model& model, const Transition* error) {
  z3::context& context = system.context();
  Counterexample cex;
  Valuation state = values_in(system, model);
  const Valuation last = state;
  std::vector<CounterexampleStep> backwards;
  for (std::uint32_t i = depth; i-- > 0;) {
    z3::expr_vector at(context);
    for (const z3::expr& d : frontiers[i]) at.push_back(d);
    std::vector<const Transition*> paths;
    z3::expr_vector steps(context);
    for (const Transition& t : system.transitions()) {
      if (t.error) continue;
      z3::expr_vector parts(context);
      parts.push_back(t.guard);
      for (std::size_t v = 0; v < system.vars().size(); ++v) {
        parts.push_back(system.value_after(t, v) == state[v]);
      }
      steps.push_back(z3::mk_and(parts));
      paths.push_back(&t);
    }
    z3::solver solver = make_solver(context);
    solver.add(z3::mk_or(at));
    solver.add(z3::mk_or(steps));
    const z3::check_result r = solver.check();
    // New_{i+1} is the image of New_i, so a state of it has a predecessor in New_i.
    PROWL_CHECK(r != z3::unsat, "reach: a state of frontier " + std::to_string(i + 1) +
                                    " has no predecessor in frontier " + std::to_string(i));
    if (r == z3::unknown) throw z3::exception(("walking back: " + solver.reason_unknown()).c_str());
    const z3::model m = solver.get_model();
    const Transition* taken = nullptr;
    for (std::size_t k = 0; k < paths.size() && taken == nullptr; ++k) {
      if (m.eval(steps[static_cast<int>(k)], true).is_true()) taken = paths[k];
    }
    PROWL_CHECK(taken != nullptr, "reach: the model of a step satisfies no transition");
    backwards.push_back({taken->name, inputs_in(system, *taken, m), state});
    state = values_in(system, m);
  }
  cex.initial = state;
  cex.steps.assign(backwards.rbegin(), backwards.rend());
  if (error != nullptr) cex.steps.push_back({error->name, inputs_in(system, *error, model), last});
  return cex;
}

}  // namespace prowl::sym
