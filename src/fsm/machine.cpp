#include "prowl/fsm/machine.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

namespace prowl::fsm {

std::string_view to_string(StateKind kind) {
  switch (kind) {
    case StateKind::kRegular:
      return "regular";
    case StateKind::kDecision:
      return "decision";
    case StateKind::kChoice:
      return "choice";
    case StateKind::kFinal:
      return "final";
  }
  return "?";
}

MachineCore::MachineCore(std::string name, std::function<std::shared_ptr<void>()> make)
    : name_(std::move(name)), make_(std::move(make)) {}

StateId MachineCore::add_state(State state) {
  PROWL_CHECK(!finalized_, "states are added before the machine is checked");
  states_.push_back(std::move(state));
  return static_cast<StateId>(states_.size() - 1);
}

ActionIndex MachineCore::add_action(ActionDef action) {
  PROWL_CHECK(!finalized_, "actions are added before the machine is checked");
  PROWL_CHECK(static_cast<bool>(action.run), "action '" + action.name + "' needs a run function");
  actions_.push_back(std::move(action));
  return static_cast<ActionIndex>(actions_.size() - 1);
}

void MachineCore::add_transition(Transition transition) {
  PROWL_CHECK(!finalized_, "transitions are added before the machine is checked");
  transitions_.push_back(std::move(transition));
}

void MachineCore::add_to_all(ActionIndex action, Weight w, std::vector<StateId> excluded,
                             std::optional<StateId> next) {
  PROWL_CHECK(!finalized_, "transitions are added before the machine is checked");
  all_rules_.push_back({action, w.value, std::move(excluded), next, std::nullopt});
}

void MachineCore::add_from_to_all(StateId from, ActionIndex action, Weight w,
                                  std::vector<StateId> excluded) {
  PROWL_CHECK(!finalized_, "transitions are added before the machine is checked");
  all_rules_.push_back({action, w.value, std::move(excluded), std::nullopt, from});
}

std::pair<const MachineCore::Transition*, const MachineCore::Transition*> MachineCore::out_of(
    StateId state) const {
  const Transition* base = transitions_.data();
  return {base + first_out_[state], base + first_out_[state + 1]};
}

std::optional<StateId> MachineCore::find_state(std::string_view name) const {
  for (std::size_t i = 0; i < states_.size(); ++i) {
    if (states_[i].name == name) return static_cast<StateId>(i);
  }
  return std::nullopt;
}

std::optional<ActionIndex> MachineCore::find_action(std::string_view name) const {
  for (std::size_t i = 0; i < actions_.size(); ++i) {
    if (actions_[i].name == name) return static_cast<ActionIndex>(i);
  }
  return std::nullopt;
}

namespace {

// The configuration rules finalize() checks, one function each, in the order their errors are
// listed. Each reads the machine and adds what is wrong to errors().
class MachineChecks {
 public:
  using State = MachineCore::State;
  using Transition = MachineCore::Transition;

  explicit MachineChecks(const MachineCore& m) : m_(m), n_(m.states().size()) {}

  const std::vector<std::string>& errors() const { return errors_; }

  void states_exist() {
    if (n_ == 0) error("no states");
    if (n_ != 0 && !valid_state(m_.initial())) {
      error(fmt::format("initial state #{} does not exist", m_.initial()));
    }
  }

  void names_are_unique() {
    std::set<std::string_view> names;
    for (const State& s : m_.states()) {
      if (!names.insert(s.name).second) error(fmt::format("two states are named '{}'", s.name));
    }
    names.clear();
    for (const MachineCore::ActionDef& a : m_.actions()) {
      if (!names.insert(a.name).second) error(fmt::format("two actions are named '{}'", a.name));
    }
  }

  // Returns false when a transition names a state that does not exist: the later rules walk the
  // transitions by state and cannot run then.
  bool transitions_are_well_formed() {
    bool structurally_ok = true;
    for (const Transition& t : m_.transitions()) {
      const std::string label = transition_label(t);
      if (!valid_state(t.from) || !valid_state(t.next)) {
        error(label + ": no such state");
        structurally_ok = false;
        continue;
      }
      if (t.action != kNoAction && t.action >= m_.actions().size()) {
        error(fmt::format("{}: action #{} does not exist", label, t.action));
      }
      if (!std::isfinite(t.weight) || t.weight < 0) {
        error(fmt::format("{}: weight {} (a weight is finite and >= 0)", label, t.weight));
      }
    }
    return structurally_ok;
  }

  // REQUIRES: the transitions are grouped by state (out_of works).
  void decisions_and_choices_fit() {
    for (StateId s = 0; s < n_; ++s) {
      const State& st = m_.states()[s];
      if (st.kind == StateKind::kChoice) choice_names_a_decision(st);
      if (st.kind == StateKind::kDecision) decision_leads_to_its_choices(s);
    }
  }

  void choices_are_entered_from_their_decision() {
    for (const Transition& t : m_.transitions()) {
      const State& next = m_.states()[t.next];
      if (next.kind == StateKind::kChoice && next.decision != t.from && t.from != t.next) {
        error(fmt::format(
            "choice state '{}' is entered from '{}'; only its decision state may lead to it",
            next.name, m_.states()[t.from].name));
      }
    }
  }

  // Every state is reached from the initial one, and from every state that does not end the run
  // a final state can be reached, over transitions that can be taken (positive weight).
  // REQUIRES: the transitions are grouped by state (out_of works).
  void every_state_is_reached_and_can_finish() {
    if (!valid_state(m_.initial())) return;  // reported; nothing is reached from it
    const std::vector<char> reached = reached_from_initial();
    bool any_final = false;
    const std::vector<char> finishes = reaching_a_final_state(any_final);
    if (!any_final) error("no final state (a run must be able to end)");
    for (StateId s = 0; s < n_; ++s) {
      const State& st = m_.states()[s];
      if (!reached[s]) {
        error(fmt::format("state '{}' is unreachable from the initial state '{}'", st.name,
                          m_.states()[m_.initial()].name));
        continue;
      }
      if (st.ends_run()) continue;
      bool way_out = false;
      for (auto [t, end] = m_.out_of(s); t != end; ++t) way_out = way_out || t->weight > 0;
      if (!way_out) {
        error(fmt::format("state '{}' is not final and has no way out", st.name));
      } else if (any_final && !finishes[s]) {
        error(fmt::format("no final state can be reached from state '{}' (a cycle with no way out)",
                          st.name));
      }
    }
  }

 private:
  void error(std::string message) { errors_.push_back(std::move(message)); }
  bool valid_state(StateId s) const { return s < n_; }
  std::string state_name(StateId s) const {
    return valid_state(s) ? fmt::format("'{}'", m_.states()[s].name) : fmt::format("#{}", s);
  }

  std::string transition_label(const Transition& t) const {
    return fmt::format("transition {} -> {}{}", state_name(t.from), state_name(t.next),
                       t.action == kNoAction || t.action >= m_.actions().size()
                           ? std::string()
                           : fmt::format(" ({})", m_.actions()[t.action].name));
  }

  void choice_names_a_decision(const State& st) {
    if (!valid_state(st.decision) || m_.states()[st.decision].kind != StateKind::kDecision) {
      error(fmt::format("choice state '{}' names {} as its decision, which is not a decision state",
                        st.name, state_name(st.decision)));
    }
  }

  void decision_leads_to_its_choices(StateId s) {
    const std::vector<State>& states = m_.states();
    const State& st = states[s];
    bool has_choice = false;
    for (const State& c : states) {
      has_choice = has_choice || (c.kind == StateKind::kChoice && &states[c.decision] == &st);
    }
    if (!has_choice) error(fmt::format("decision state '{}' has no choice states", st.name));
    for (auto [t, end] = m_.out_of(s); t != end; ++t) {
      if (t->action != kNoAction) {
        error(
            fmt::format("decision state '{}' has an action ({}); it may only branch to its choices",
                        st.name, m_.actions()[t->action].name));
      }
      const State& next = states[t->next];
      if (next.kind != StateKind::kChoice || next.decision != s) {
        error(fmt::format("decision state '{}' leads to '{}', which is not one of its choices",
                          st.name, next.name));
      }
    }
  }

  std::vector<char> reached_from_initial() const {
    std::vector<char> reached(n_, 0);
    std::vector<StateId> work{m_.initial()};
    reached[m_.initial()] = 1;
    while (!work.empty()) {
      const StateId s = work.back();
      work.pop_back();
      for (auto [t, end] = m_.out_of(s); t != end; ++t) {
        if (t->weight > 0 && !reached[t->next]) {
          reached[t->next] = 1;
          work.push_back(t->next);
        }
      }
    }
    return reached;
  }

  // Per state, whether a final state can be reached from it; `any_final`: whether there is one.
  std::vector<char> reaching_a_final_state(bool& any_final) const {
    std::vector<char> finishes(n_, 0);
    for (StateId s = 0; s < n_; ++s) {
      if (m_.states()[s].ends_run()) {
        finishes[s] = 1;
        any_final = true;
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const Transition& t : m_.transitions()) {
        if (t.weight > 0 && finishes[t.next] && !finishes[t.from]) {
          finishes[t.from] = 1;
          changed = true;
        }
      }
    }
    return finishes;
  }

  const MachineCore& m_;
  const std::size_t n_;
  std::vector<std::string> errors_;
};

}  // namespace

void MachineCore::expand_all_rules() {
  const std::size_t n = states_.size();
  for (const AllRule& rule : all_rules_) {
    auto excluded = [&](StateId s) {
      return std::find(rule.excluded.begin(), rule.excluded.end(), s) != rule.excluded.end();
    };
    for (StateId s = 0; s < n; ++s) {
      const State& st = states_[s];
      if (st.skip_for_all || excluded(s) || st.kind == StateKind::kDecision) continue;
      if (rule.from) {
        if (s == *rule.from || st.kind == StateKind::kChoice || st.kind == StateKind::kFinal) {
          continue;
        }
        transitions_.push_back({*rule.from, s, rule.action, rule.weight, {}});
      } else {
        if (st.ends_run()) continue;
        transitions_.push_back({s, rule.next.value_or(s), rule.action, rule.weight, {}});
      }
    }
  }
}

void MachineCore::group_transitions_by_state() {
  const std::size_t n = states_.size();
  std::stable_sort(transitions_.begin(), transitions_.end(),
                   [](const Transition& a, const Transition& b) { return a.from < b.from; });
  first_out_.assign(n + 1, 0);
  for (const Transition& t : transitions_) ++first_out_[t.from + 1];
  for (std::size_t s = 0; s < n; ++s) first_out_[s + 1] += first_out_[s];
}

Status MachineCore::finalize() {
  if (finalized_) return finalize_status_;
  MachineChecks checks(*this);
  checks.states_exist();
  checks.names_are_unique();
  expand_all_rules();
  const bool structurally_ok = checks.transitions_are_well_formed();
  finalized_ = true;
  if (!structurally_ok || states_.empty()) {
    finalize_status_ =
        Status::invalid(fmt::format("machine '{}': {}", name_, fmt::join(checks.errors(), "; ")));
    return finalize_status_;
  }
  group_transitions_by_state();
  checks.decisions_and_choices_fit();
  checks.choices_are_entered_from_their_decision();
  checks.every_state_is_reached_and_can_finish();
  if (!checks.errors().empty()) {
    std::string message = fmt::format("machine '{}' is misconfigured:", name_);
    for (const std::string& e : checks.errors()) message += "\n  - " + e;
    finalize_status_ = Status::invalid(std::move(message));
  }
  return finalize_status_;
}

std::string MachineCore::describe() const {
  std::string out = fmt::format("machine {}: {} states, {} actions, {} transitions\n", name_,
                                states_.size(), actions_.size(), transitions_.size());
  for (StateId s = 0; s < states_.size(); ++s) {
    const State& st = states_[s];
    std::vector<std::string> notes;
    if (s == initial_) notes.push_back("initial");
    if (st.kind != StateKind::kRegular) notes.push_back(std::string(to_string(st.kind)));
    if (st.kind == StateKind::kChoice) {
      notes.push_back(fmt::format("of {}", states_[st.decision].name));
      if (st.final_choice) notes.push_back("final");
    }
    if (st.precondition) notes.push_back("has a precondition");
    out += fmt::format("\nstate {}{}\n", st.name,
                       notes.empty() ? "" : fmt::format(" ({})", fmt::join(notes, ", ")));
    if (first_out_.empty()) continue;
    double total = 0;
    for (auto [t, end] = out_of(s); t != end; ++t) total += t->weight;
    for (auto [t, end] = out_of(s); t != end; ++t) {
      const bool guarded =
          static_cast<bool>(t->guard) || static_cast<bool>(states_[t->next].precondition);
      out +=
          fmt::format("  {:6.2f}%  {:<24} -> {}{}\n", total > 0 ? 100.0 * t->weight / total : 0.0,
                      t->action == kNoAction ? "(no action)" : actions_[t->action].name,
                      states_[t->next].name, guarded ? "  [when enabled]" : "");
    }
  }
  return out;
}

}  // namespace prowl::fsm
