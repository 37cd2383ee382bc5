#include "cubes.hpp"

#include <algorithm>
#include <set>

#include "hull.hpp"
#include "prowl/core/status.hpp"
#include "solver.hpp"

namespace prowl::sym {

namespace {

constexpr unsigned kMergeCheckMs = 2000;
constexpr std::size_t kMaxProduct = 16;

void literals_of(const z3::expr& cube, std::vector<z3::expr>& out) {
  if (cube.is_and()) {
    for (unsigned i = 0; i < cube.num_args(); ++i) literals_of(cube.arg(i), out);
  } else if (!cube.is_true()) {
    out.push_back(cube);
  }
}

// The cubes of `f`, which is in negation normal form, each as its list of literals.
void dnf(const z3::expr& f, std::vector<std::vector<z3::expr>>& out) {
  if (f.is_false()) return;
  if (f.is_or()) {
    for (unsigned i = 0; i < f.num_args(); ++i) dnf(f.arg(i), out);
    return;
  }
  if (!f.is_and()) {
    out.push_back(f.is_true() ? std::vector<z3::expr>{} : std::vector<z3::expr>{f});
    return;
  }
  std::vector<std::vector<z3::expr>> product{{}};
  for (unsigned i = 0; i < f.num_args(); ++i) {
    std::vector<std::vector<z3::expr>> part, next;
    dnf(f.arg(i), part);
    if (product.size() * part.size() > kMaxProduct) {
      // Distributing further would multiply cubes: this conjunction stays one cube whose
      // literals may be disjunctions (sound: a cube is any formula; joins treat them as literals).
      out.push_back({f});
      return;
    }
    for (const auto& left : product) {
      for (const auto& right : part) {
        std::vector<z3::expr> both = left;
        both.insert(both.end(), right.begin(), right.end());
        next.push_back(std::move(both));
      }
    }
    product = std::move(next);
  }
  out.insert(out.end(), product.begin(), product.end());
}

z3::expr conjunction(z3::context& context, const std::vector<z3::expr>& literals) {
  z3::expr_vector v(context);
  for (const z3::expr& l : literals) v.push_back(l);
  return z3::mk_and(v).simplify();
}

// The candidates `cube` implies, checked on `scratch` (left as it was).
std::vector<z3::expr> implied(z3::solver& scratch, const z3::expr& cube,
                              const std::vector<z3::expr>& candidates) {
  std::vector<z3::expr> out;
  scratch.push();
  scratch.add(cube);
  for (const z3::expr& l : candidates) {
    z3::expr_vector assume(cube.ctx());
    assume.push_back(!l);
    if (scratch.check(assume) == z3::unsat) out.push_back(l);
  }
  scratch.pop();
  return out;
}

// The conjunction of the candidates both cubes imply, without the ones the others imply.
// Checked on `scratch` (a solver is costly to make; it is left as it was).
z3::expr join(z3::solver& scratch, const z3::expr& a, const z3::expr& b, bool with_hull) {
  z3::context& context = a.ctx();
  std::vector<z3::expr> la, lb;
  literals_of(a, la);
  literals_of(b, lb);
  std::vector<z3::expr> candidates;
  std::set<unsigned> seen;
  const auto add = [&](const z3::expr& l) {
    if (seen.insert(l.id()).second) candidates.push_back(l);
  };
  for (const z3::expr& l : la) add(l);
  for (const z3::expr& l : lb) add(l);
  if (with_hull) {
    for (const z3::expr& h : hull_candidates(la, lb)) add(h);
  }
  std::vector<z3::expr> kept = implied(scratch, b, implied(scratch, a, candidates));
  // Drop the literals the others imply, longest first; literals behind tags.
  std::stable_sort(kept.begin(), kept.end(), [](const z3::expr& x, const z3::expr& y) {
    return x.to_string().size() > y.to_string().size();
  });
  scratch.push();
  std::vector<z3::expr> tags;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    tags.push_back(context.bool_const(("prowl!join" + std::to_string(i)).c_str()));
    scratch.add(z3::implies(tags[i], kept[i]));
  }
  std::vector<bool> on(kept.size(), true);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    z3::expr_vector assume(context);
    for (std::size_t j = 0; j < kept.size(); ++j) {
      if (j != i && on[j]) assume.push_back(tags[j]);
    }
    assume.push_back(!kept[i]);
    if (scratch.check(assume) == z3::unsat) on[i] = false;
  }
  scratch.pop();
  std::vector<z3::expr> out;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (on[i]) out.push_back(kept[i]);
  }
  return conjunction(context, out);
}

z3::tactic elimination_for(z3::context& context, ImageMode mode) {
  PROWL_CHECK(mode != ImageMode::kPsyco, "CubeFrontier: psyco keeps its own regions");
  // qe-light first: what equalities define (x' = x + p, unchanged variables) goes by substitution.
  const char* rest = mode == ImageMode::kQe ? "qe" : mode == ImageMode::kQeRec ? "qe_rec" : "qe2";
  return z3::tactic(context, "qe-light") & z3::tactic(context, rest) &
         z3::tactic(context, "simplify");
}

// The constant `literals` fix `v` to: v = c, c = v, v, ¬v, or v ≤ c with v ≥ c.
std::optional<z3::expr> fixed_by_literal(const z3::expr& v, const std::vector<z3::expr>& literals) {
  std::optional<z3::expr> lower, upper;
  for (const z3::expr& l : literals) {
    if (z3::eq(l, v)) return l.ctx().bool_val(true);
    if (l.is_not() && z3::eq(l.arg(0), v)) return l.ctx().bool_val(false);
    if (!l.is_app() || l.num_args() != 2) continue;
    const Z3_decl_kind kind = l.decl().decl_kind();
    const bool left = z3::eq(l.arg(0), v) && l.arg(1).is_numeral();
    const bool right = z3::eq(l.arg(1), v) && l.arg(0).is_numeral();
    if (!left && !right) continue;
    const z3::expr c = left ? l.arg(1) : l.arg(0);
    if (kind == Z3_OP_EQ) return c;
    if (kind == Z3_OP_LE || kind == Z3_OP_GE) {
      // v ≤ c (or c ≥ v) bounds v from above.
      ((kind == Z3_OP_LE) == left ? upper : lower) = c;
    }
  }
  if (lower && upper && z3::eq(*lower, *upper)) return lower;
  return std::nullopt;
}

bool is_constant(const z3::expr& e) { return e.is_numeral() || e.is_true() || e.is_false(); }

// The state variables every transition sets to a constant or leaves as they are.
std::vector<std::size_t> control_variables(const TransitionSystem& system) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < system.vars().size(); ++i) {
    const z3::sort sort = system.vars()[i].now.get_sort();
    if (sort.is_real()) continue;
    const bool constant = std::all_of(
        system.transitions().begin(), system.transitions().end(), [i](const Transition& t) {
          return t.error || !t.updates[i] || is_constant(t.updates[i]->simplify());
        });
    if (constant) out.push_back(i);
  }
  return out;
}

}  // namespace

std::vector<z3::expr> to_cubes(const z3::expr& f) {
  z3::context& context = f.ctx();
  z3::goal goal(context);
  goal.add(f);
  const z3::apply_result r = (z3::tactic(context, "simplify") & z3::tactic(context, "nnf"))(goal);
  std::vector<z3::expr> out;
  for (unsigned k = 0; k < r.size(); ++k) {
    std::vector<std::vector<z3::expr>> cubes;
    dnf(r[k].as_expr(), cubes);
    for (const auto& literals : cubes) out.push_back(conjunction(context, literals));
  }
  return out;
}

CubeFrontier::CubeFrontier(const TransitionSystem& system, ImageMode mode)
    : system_(system),
      eliminate_(elimination_for(system.context(), mode)),
      bound_(system.now_vector()),
      control_(control_variables(system)),
      outside_reach_(make_solver(system.context())),
      scratch_(make_solver(system.context())) {
  for (const InputVar& p : system.inputs()) bound_.push_back(p.value);
}

void CubeFrontier::add_to_reach(const std::vector<z3::expr>& cubes) {
  for (const z3::expr& c : cubes) {
    reach_.push_back(c);
    outside_reach_.add(!c);
  }
}

CubeFrontier::Located CubeFrontier::locate(const z3::expr& cube) {
  z3::context& context = system_.context();
  Located out{cube, "", z3::expr_vector(context), z3::expr_vector(context)};
  if (control_.empty()) return out;
  std::vector<z3::expr> literals;
  literals_of(cube, literals);
  std::vector<std::optional<z3::expr>> values(control_.size());
  for (std::size_t k = 0; k < control_.size(); ++k) {
    values[k] = fixed_by_literal(system_.vars()[control_[k]].now, literals);
  }
  // What no literal says outright may still follow from the cube (st0 = st1 + 1, st1 = 0).
  if (std::any_of(values.begin(), values.end(), [](const auto& v) { return !v; })) {
    scratch_.push();
    scratch_.add(cube);
    if (scratch_.check() == z3::sat) {
      const z3::model model = scratch_.get_model();
      for (std::size_t k = 0; k < control_.size(); ++k) {
        if (values[k]) continue;
        const z3::expr& v = system_.vars()[control_[k]].now;
        const z3::expr value = model.eval(v, true);
        z3::expr_vector other(context);
        other.push_back(v != value);
        if (scratch_.check(other) == z3::unsat) values[k] = value;
      }
    }
    scratch_.pop();
  }
  std::vector<z3::expr> fixed_literals;
  for (std::size_t k = 0; k < control_.size(); ++k) {
    out.key += values[k] ? values[k]->to_string() + "," : "?,";
    if (!values[k]) continue;
    const z3::expr& v = system_.vars()[control_[k]].now;
    out.fixed.push_back(v);
    out.values.push_back(*values[k]);
    fixed_literals.push_back(v == *values[k]);
  }
  if (out.fixed.empty()) return out;
  literals_of(substituted(cube, out.fixed, out.values).simplify(), fixed_literals);
  out.cube = conjunction(context, fixed_literals);
  return out;
}

std::vector<z3::expr> CubeFrontier::image(const z3::expr& cube) {
  std::vector<z3::expr> out;
  const Located where = locate(cube);
  for (const Transition& t : system_.transitions()) {
    if (t.error) continue;
    if (!where.fixed.empty() &&
        substituted(t.guard, where.fixed, where.values).simplify().is_false()) {
      continue;
    }
    z3::goal goal(system_.context());
    goal.add(z3::exists(bound_, where.cube && system_.relation(t)));
    const z3::apply_result r = eliminate_(goal);
    for (unsigned k = 0; k < r.size(); ++k) {
      const z3::expr renamed =
          substituted(r[k].as_expr(), system_.next_vector(), system_.now_vector());
      for (const z3::expr& c : to_cubes(renamed)) out.push_back(c);
    }
  }
  return out;
}

void CubeFrontier::merge(std::vector<Located>& cubes, const std::vector<z3::expr>& image) {
  // Reach_{i+1} = Reach_i ∪ image: a join may only cover states in it.
  z3::solver outside = make_solver(system_.context());
  // Merging only keeps the frontier small: a check that takes too long counts as "no".
  z3::params params(system_.context());
  params.set("timeout", kMergeCheckMs);
  outside.set(params);
  for (const z3::expr& r : reach_) outside.add(!r);
  for (const z3::expr& c : image) outside.add(!c);
  // A pair that did not merge is not tried again: its cubes have not changed.
  std::set<std::pair<unsigned, unsigned>> failed;
  for (bool merged = true; merged;) {
    merged = false;
    if (should_stop_ && should_stop_()) return;
    for (std::size_t a = 0; a < cubes.size() && !merged; ++a) {
      for (std::size_t b = a + 1; b < cubes.size() && !merged; ++b) {
        if (cubes[a].key != cubes[b].key) continue;
        const std::pair<unsigned, unsigned> key{cubes[a].cube.id(), cubes[b].cube.id()};
        if (failed.count(key) != 0) continue;
        for (int hull = 0; hull < 2 && !merged; ++hull) {
          const z3::expr g = join(scratch_, cubes[a].cube, cubes[b].cube, hull == 1);
          outside.push();
          outside.add(g);
          merged = outside.check() == z3::unsat;
          outside.pop();
          if (merged) {
            cubes[a].cube = g;
            cubes.erase(cubes.begin() + static_cast<std::ptrdiff_t>(b));
          }
        }
        if (!merged) failed.insert(key);
      }
    }
  }
}

std::optional<std::vector<z3::expr>> CubeFrontier::step(const std::vector<z3::expr>& frontier) {
  std::vector<z3::expr> image_cubes;
  std::set<unsigned> seen;
  for (const z3::expr& cube : frontier) {
    for (const z3::expr& c : image(cube)) {
      if (seen.insert(c.id()).second) image_cubes.push_back(c);
    }
  }
  std::vector<Located> fresh;
  for (const z3::expr& c : image_cubes) {
    outside_reach_.push();
    outside_reach_.add(c);
    const z3::check_result r = outside_reach_.check();
    outside_reach_.pop();
    if (r == z3::unknown) {
      reason_ = "Z3 could not decide whether the image has new states (" +
                outside_reach_.reason_unknown() + ")";
      return std::nullopt;
    }
    if (r == z3::sat) fresh.push_back(locate(c));
  }
  merge(fresh, image_cubes);
  std::vector<z3::expr> next;
  for (const Located& c : fresh) next.push_back(c.cube);
  add_to_reach(next);
  return next;
}

}  // namespace prowl::sym
