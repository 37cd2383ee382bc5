#include "smt_fuzz/machine.hpp"

#include <utility>

namespace smt_fuzz {

using prowl::fsm::weight;

SmtMachine make_machine(MachineOptions options) {
  SmtMachine m("smt_fuzz", [options = std::move(options)] {
    return std::make_unique<SmtTarget>(options.factory, options.observer);
  });
  SmtActions a;
  add_session_actions(m, a);
  add_term_actions(m, a);
  add_check_actions(m, a);

  const auto fresh = m.state("new");
  const auto opt = m.state("opt");
  const auto set_logic = m.state("set_logic");
  const auto sorts = m.state("sorts");
  const auto inputs = m.state("inputs");
  const auto terms = m.state("terms");
  const auto assert = m.state("assert");
  const auto check = m.state("check_sat");
  const auto decide = m.decision("decide_sat_unsat");
  const auto sat =
      m.choice("sat", decide, [](const SmtTarget& t) { return t.answer() == Answer::kSat; });
  const auto unsat =
      m.choice("unsat", decide, [](const SmtTarget& t) { return t.answer() == Answer::kUnsat; });
  const auto unknown = m.choice("unknown", decide,
                                [](const SmtTarget& t) { return t.answer() == Answer::kUnknown; });
  const auto model = m.state("model");
  const auto gone = m.final_state("delete");
  m.initial(fresh);

  m.transition(fresh, opt, weight(1), a.new_solver);

  m.transition(opt, opt, weight(2), a.set_option);
  m.transition(opt, set_logic, weight(1));

  m.transition(set_logic, sorts, weight(3), a.set_logic);
  m.transition(set_logic, sorts, weight(1));

  m.transition(sorts, sorts, weight(3), a.mk_sort);
  m.transition(sorts, sorts, weight(1), a.declare_sort);
  m.transition(sorts, inputs, weight(2));

  m.transition(inputs, inputs, weight(4), a.mk_const);
  m.transition(inputs, inputs, weight(1), a.declare_fun);
  m.transition(inputs, inputs, weight(1), a.mk_sort);
  m.transition(inputs, terms, weight(2));

  m.transition(terms, terms, weight(8), a.mk_term);
  m.transition(terms, terms, weight(2), a.mk_value);
  m.transition(terms, terms, weight(1), a.mk_const);
  m.transition(terms, terms, weight(2), a.mk_app);
  m.transition(terms, assert, weight(2));

  m.transition(assert, assert, weight(3), a.assert_formula);
  m.transition(assert, check, weight(2));
  m.transition(assert, terms, weight(1));

  m.transition(check, decide, weight(3), a.check_sat);
  m.transition(check, decide, weight(1), a.check_sat_assuming);
  m.transition(check, terms, weight(0.5));

  for (auto choice : {sat, unsat, unknown}) m.transition(decide, choice, weight(1));

  // A choice state is entered from its decision only: the queries about a sat answer lead on to
  // `model`, where more of them may follow.
  m.transition(sat, model, weight(3), a.get_value);
  m.transition(sat, model, weight(1), a.get_model);
  m.transition(model, model, weight(3), a.get_value);
  m.transition(model, model, weight(1), a.get_model);
  m.transition(model, check, weight(0.5));
  m.transition(unsat, assert, weight(2), a.get_unsat_assumptions);
  for (auto from : {sat, unsat, unknown, model}) {
    m.transition(from, terms, weight(1));
    m.transition(from, assert, weight(1));
  }

  // Scopes change anywhere once the solver is configured, but not between a check and the
  // queries about its answer.
  const std::vector<prowl::fsm::StateId> unconfigured = {fresh, opt, set_logic};
  std::vector<prowl::fsm::StateId> no_scopes = unconfigured;
  no_scopes.insert(no_scopes.end(), {sat, unsat, unknown, model});
  m.add_to_all(a.push, weight(0.5), no_scopes);
  m.add_to_all(a.pop, weight(0.5), no_scopes);
  m.add_to_all(a.reset_assertions, weight(0.1), unconfigured, assert);
  m.add_to_all(a.reset, weight(0.1), {fresh}, opt);
  m.add_to_all(a.del, weight(0.05), {fresh}, gone);

  return m;
}

}  // namespace smt_fuzz
