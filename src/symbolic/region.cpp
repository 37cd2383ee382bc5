#include "prowl/symbolic/region.hpp"
#include "solver.hpp"

#include <sstream>
#include <unordered_set>

namespace prowl::sym {

namespace {

bool is_state_var(const TransitionSystem& system, const z3::expr& c) {
  for (const StateVar& v : system.vars()) {
    if (z3::eq(v.now, c)) return true;
  }
  return false;
}

void collect_constants(const z3::expr& e, std::unordered_set<unsigned>& seen,
                       std::vector<z3::expr>& out) {
  if (!seen.insert(e.id()).second) return;
  if (e.is_quantifier()) {
    collect_constants(e.body(), seen, out);
    return;
  }
  if (!e.is_app()) return;
  if (e.is_const() && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
    out.push_back(e);
    return;
  }
  for (unsigned i = 0; i < e.num_args(); ++i) collect_constants(e.arg(i), seen, out);
}

}  // namespace

z3::expr disjunction(z3::context& context, const std::vector<z3::expr>& region) {
  if (region.size() == 1) return region[0];
  z3::expr_vector parts(context);
  for (const z3::expr& d : region) parts.push_back(d);
  return parts.empty() ? context.bool_val(false) : z3::mk_or(parts);
}

z3::expr_vector aux_constants(const TransitionSystem& system, const z3::expr& e) {
  std::unordered_set<unsigned> seen;
  std::vector<z3::expr> constants;
  collect_constants(e, seen, constants);
  z3::expr_vector out(system.context());
  for (const z3::expr& c : constants) {
    if (!is_state_var(system, c)) out.push_back(c);
  }
  return out;
}

z3::expr outside(const TransitionSystem& system, const std::vector<z3::expr>& region) {
  z3::context& context = system.context();
  z3::expr_vector parts(context);
  for (const z3::expr& d : region) {
    z3::expr_vector aux = aux_constants(system, d);
    parts.push_back(aux.empty() ? !d : z3::forall(aux, !d));
  }
  return parts.empty() ? context.bool_val(true) : z3::mk_and(parts);
}

Answer equivalent(const TransitionSystem& system, const std::vector<z3::expr>& a,
                  const std::vector<z3::expr>& b) {
  z3::context& context = system.context();
  bool unknown = false;
  for (int direction = 0; direction < 2; ++direction) {
    const auto& inner = direction == 0 ? a : b;
    const auto& outer = direction == 0 ? b : a;
    z3::solver solver = make_solver(context);
    solver.add(disjunction(context, inner));
    solver.add(outside(system, outer));
    switch (solver.check()) {
      case z3::sat:
        return Answer::kNo;
      case z3::unknown:
        unknown = true;
        break;
      case z3::unsat:
        break;
    }
  }
  return unknown ? Answer::kUnknown : Answer::kYes;
}

std::optional<std::uint64_t> count_states(const TransitionSystem& system,
                                          const std::vector<z3::expr>& region,
                                          const std::vector<z3::expr>& minus, std::uint64_t limit) {
  z3::context& context = system.context();
  z3::solver solver = make_solver(context);
  solver.add(disjunction(context, region));
  if (!minus.empty()) solver.add(outside(system, minus));
  std::uint64_t count = 0;
  for (;;) {
    const z3::check_result r = solver.check();
    if (r == z3::unsat) return count;
    if (r == z3::unknown || count == limit) return std::nullopt;
    ++count;
    const z3::model model = solver.get_model();
    z3::expr_vector differs(context);
    for (const StateVar& v : system.vars()) differs.push_back(v.now != model.eval(v.now, true));
    if (differs.empty()) return count;  // no state variables: one state
    solver.add(z3::mk_or(differs));
  }
}

std::string to_smt2(const TransitionSystem& system, const std::vector<z3::expr>& region) {
  z3::context& context = system.context();
  std::ostringstream out;
  out << "; the reachable region of " << system.name() << " (prowl reach)\n";
  for (const StateVar& v : system.vars()) {
    out << "(declare-const " << v.name << ' ' << sort_name(v.now.get_sort()) << ")\n";
  }
  z3::expr_vector parts(context);
  for (const z3::expr& d : region) {
    z3::expr_vector aux = aux_constants(system, d);
    parts.push_back(aux.empty() ? d : z3::exists(aux, d));
  }
  const z3::expr body = parts.empty() ? context.bool_val(false) : z3::mk_or(parts);
  out << "(define-fun reach () Bool\n  " << body << ")\n(assert reach)\n";
  return out.str();
}

Valuation values_in(const TransitionSystem& system, const z3::model& model) {
  Valuation out;
  for (const StateVar& v : system.vars()) out.push_back(model.eval(v.now, true));
  return out;
}

std::string format_value(const z3::expr& value) {
  if (value.is_true()) return "true";
  if (value.is_false()) return "false";
  if (value.is_numeral()) {
    return Z3_get_numeral_string(value.ctx(), value);
  }
  return value.to_string();
}

std::string format_state(const TransitionSystem& system, const Valuation& state) {
  std::string out;
  for (std::size_t i = 0; i < system.vars().size() && i < state.size(); ++i) {
    if (i > 0) out += ' ';
    out += system.vars()[i].name + "=" + format_value(state[i]);
  }
  return out;
}

std::optional<z3::expr> parse_value(z3::context& context, const z3::sort& sort,
                                    const std::string& text) {
  if (sort.is_bool()) {
    if (text == "true") return context.bool_val(true);
    if (text == "false") return context.bool_val(false);
    return std::nullopt;
  }
  std::size_t i = 0;
  if (!text.empty() && text[0] == '-' && !sort.is_bv()) i = 1;
  bool slash = false;
  if (i == text.size()) return std::nullopt;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && sort.is_real() && !slash && i + 1 < text.size()) {
      slash = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
  }
  try {
    if (sort.is_int()) return context.int_val(text.c_str());
    if (sort.is_real()) return context.real_val(text.c_str());
    if (sort.is_bv()) {
      z3::expr v = context.bv_val(text.c_str(), sort.bv_size());
      // Out of range: Z3 wraps it; a trace must name the value itself.
      if (Z3_get_numeral_string(context, v) != text) return std::nullopt;
      return v;
    }
  } catch (const z3::exception&) {
  }
  return std::nullopt;
}

std::size_t node_count(const z3::expr& e) {
  std::unordered_set<unsigned> seen;
  std::vector<z3::expr> todo{e};
  while (!todo.empty()) {
    z3::expr x = todo.back();
    todo.pop_back();
    if (!seen.insert(x.id()).second) continue;
    if (x.is_app()) {
      for (unsigned i = 0; i < x.num_args(); ++i) todo.push_back(x.arg(i));
    } else if (x.is_quantifier()) {
      todo.push_back(x.body());
    }
  }
  return seen.size();
}

}  // namespace prowl::sym
