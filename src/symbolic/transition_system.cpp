#include "prowl/symbolic/transition_system.hpp"

#include <algorithm>
#include <utility>

#include "prowl/core/status.hpp"

namespace prowl::sym {

namespace {

constexpr std::string_view kPsycoPrefix = "uVarReplacement_";

bool is_supported(const z3::sort& sort) {
  return sort.is_int() || sort.is_bool() || sort.is_real() || sort.is_bv();
}

// Whether `e` mentions the constant `c`.
bool mentions(const z3::expr& e, const z3::expr& c) {
  if (z3::eq(e, c)) return true;
  if (!e.is_app()) return false;
  for (unsigned i = 0; i < e.num_args(); ++i) {
    if (mentions(e.arg(i), c)) return true;
  }
  return false;
}

}  // namespace

bool is_plain_symbol(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("~!@$%^&*_-+=<>.?/").find(c) != std::string_view::npos;
  });
}

std::string sort_name(const z3::sort& sort) {
  if (sort.is_bv()) return "(_ BitVec " + std::to_string(sort.bv_size()) + ")";
  return sort.name().str();
}

TransitionSystem::TransitionSystem(z3::context& context, std::string name)
    : context_(&context), name_(std::move(name)), initial_(context.bool_val(true)) {}

void TransitionSystem::check_new_name(const std::string& name) const {
  PROWL_CHECK(is_plain_symbol(name), "'" + name + "' is not a plain SMT-LIB symbol");
  PROWL_CHECK(name.rfind(kPsycoPrefix, 0) != 0,
              "'" + name + "': names starting with uVarReplacement_ are psyco's own");
  PROWL_CHECK(!var_index(name) && !input_index(name), "'" + name + "' is declared twice");
}

z3::expr TransitionSystem::var(const std::string& name, const z3::sort& sort) {
  check_new_name(name);
  PROWL_CHECK(is_supported(sort),
              "variable '" + name + "': sort must be Int, Bool, Real or BitVec");
  PROWL_CHECK(transitions_.empty(), "declare every variable before the first transition");
  z3::expr now = context_->constant(name.c_str(), sort);
  z3::expr next = context_->constant((name + "'").c_str(), sort);
  vars_.push_back({name, now, next});
  return now;
}

z3::expr TransitionSystem::input(const std::string& name, const z3::sort& sort) {
  check_new_name(name);
  PROWL_CHECK(is_supported(sort), "input '" + name + "': sort must be Int, Bool, Real or BitVec");
  z3::expr value = context_->constant(name.c_str(), sort);
  inputs_.push_back({name, value});
  return value;
}

void TransitionSystem::init(const z3::expr& condition) {
  PROWL_CHECK(condition.is_bool(), "the initial condition must be Bool");
  initial_ = (initial_.is_true() ? condition : initial_ && condition);
}

TransitionBuilder TransitionSystem::transition(const std::string& name) {
  PROWL_CHECK(!transition_index(name), "transition '" + name + "' is declared twice");
  transitions_.push_back(
      {name, context_->bool_val(true), std::vector<std::optional<z3::expr>>(vars_.size()), false});
  return {*this, transitions_.size() - 1};
}

void TransitionSystem::invariant(const std::string& name, const z3::expr& holds) {
  PROWL_CHECK(holds.is_bool(), "invariant '" + name + "' must be Bool");
  for (const NamedInvariant& i : invariants_) {
    PROWL_CHECK(i.name != name, "invariant '" + name + "' is declared twice");
  }
  invariants_.push_back({name, holds});
}

std::optional<std::size_t> TransitionSystem::var_index(std::string_view name) const {
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> TransitionSystem::input_index(std::string_view name) const {
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> TransitionSystem::transition_index(std::string_view name) const {
  for (std::size_t i = 0; i < transitions_.size(); ++i) {
    if (transitions_[i].name == name) return i;
  }
  return std::nullopt;
}

z3::expr_vector TransitionSystem::now_vector() const {
  z3::expr_vector out(*context_);
  for (const StateVar& v : vars_) out.push_back(v.now);
  return out;
}

z3::expr_vector TransitionSystem::next_vector() const {
  z3::expr_vector out(*context_);
  for (const StateVar& v : vars_) out.push_back(v.next);
  return out;
}

z3::expr_vector TransitionSystem::input_vector() const {
  z3::expr_vector out(*context_);
  for (const InputVar& v : inputs_) out.push_back(v.value);
  return out;
}

z3::expr TransitionSystem::value_after(const Transition& t, std::size_t i) const {
  return t.updates[i] ? *t.updates[i] : vars_[i].now;
}

z3::expr TransitionSystem::relation(const Transition& t) const {
  z3::expr_vector parts(*context_);
  if (!t.guard.is_true()) parts.push_back(t.guard);
  for (std::size_t i = 0; i < vars_.size(); ++i)
    parts.push_back(vars_[i].next == value_after(t, i));
  return parts.empty() ? context_->bool_val(true) : z3::mk_and(parts);
}

std::vector<std::size_t> TransitionSystem::inputs_of(const Transition& t) const {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < inputs_.size(); ++k) {
    bool used = mentions(t.guard, inputs_[k].value);
    for (std::size_t i = 0; !used && i < t.updates.size(); ++i) {
      used = t.updates[i] && mentions(*t.updates[i], inputs_[k].value);
    }
    if (used) out.push_back(k);
  }
  return out;
}

Transition& TransitionBuilder::transition() { return system_->transitions_[index_]; }

TransitionBuilder& TransitionBuilder::guard(const z3::expr& condition) {
  PROWL_CHECK(condition.is_bool(),
              "transition '" + transition().name + "': the guard must be Bool");
  z3::expr& g = transition().guard;
  g = g.is_true() ? condition : g && condition;
  return *this;
}

TransitionBuilder& TransitionBuilder::update(const z3::expr& variable, const z3::expr& value) {
  Transition& t = transition();
  std::optional<std::size_t> i;
  for (std::size_t k = 0; k < system_->vars_.size(); ++k) {
    if (z3::eq(system_->vars_[k].now, variable)) i = k;
  }
  PROWL_CHECK(i.has_value(), "transition '" + t.name + "': " + variable.to_string() +
                                 " is not a state variable (inputs cannot be updated)");
  PROWL_CHECK(!t.updates[*i],
              "transition '" + t.name + "' updates " + variable.to_string() + " twice");
  PROWL_CHECK(z3::eq(variable.get_sort(), value.get_sort()),
              "transition '" + t.name + "': " + variable.to_string() + " is " +
                  sort_name(variable.get_sort()) + ", the update is " +
                  sort_name(value.get_sort()));
  t.updates[*i] = value;
  return *this;
}

TransitionBuilder& TransitionBuilder::error() {
  transition().error = true;
  return *this;
}

}  // namespace prowl::sym
