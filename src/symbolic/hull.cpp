#include "hull.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace prowl::sym {

namespace {

using Int = __int128;

// sum a[v] * v + b (<= or =) 0 over Int constants, v by AST id.
struct Linear {
  std::map<unsigned, Int> a;
  Int b = 0;
  bool eq = false;
};

// A row over the hull's variables: sum c[j] * v_j + c.back() (<= or =) 0.
struct Row {
  std::vector<Int> c;
  bool eq = false;
};

constexpr Int kTooBig = Int{1} << 40;
constexpr std::size_t kMaxRows = 300;

Int abs_of(Int v) { return v < 0 ? -v : v; }

Int gcd_of(Int a, Int b) {
  a = abs_of(a);
  b = abs_of(b);
  while (b != 0) {
    const Int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Adds mul * e to `out`; false when e is not linear over Int constants.
bool add_term(const z3::expr& e, Int mul, Linear& out, std::map<unsigned, z3::expr>& vars) {
  std::int64_t n = 0;
  if (e.is_numeral()) {
    if (!e.is_numeral_i64(n)) return false;
    out.b += mul * n;
    return true;
  }
  if (!e.is_app() || !e.is_int()) return false;
  const Z3_decl_kind k = e.decl().decl_kind();
  if (k == Z3_OP_ADD || k == Z3_OP_SUB) {
    for (unsigned i = 0; i < e.num_args(); ++i) {
      if (!add_term(e.arg(i), k == Z3_OP_SUB && i > 0 ? -mul : mul, out, vars)) return false;
    }
    return true;
  }
  if (k == Z3_OP_UMINUS) return add_term(e.arg(0), -mul, out, vars);
  if (k == Z3_OP_MUL && e.num_args() == 2) {
    if (e.arg(0).is_numeral_i64(n)) return add_term(e.arg(1), mul * n, out, vars);
    if (e.arg(1).is_numeral_i64(n)) return add_term(e.arg(0), mul * n, out, vars);
    return false;
  }
  if (k == Z3_OP_UNINTERPRETED && e.num_args() == 0) {
    vars.emplace(e.id(), e);
    out.a[e.id()] += mul;
    return true;
  }
  return false;
}

// A literal over Int as a Linear, strict inequalities tightened (x < c: x <= c - 1).
std::optional<Linear> to_linear(z3::expr literal, std::map<unsigned, z3::expr>& vars) {
  bool negated = false;
  if (literal.is_not()) {
    negated = true;
    literal = literal.arg(0);
  }
  if (!literal.is_app() || literal.num_args() != 2 || !literal.arg(0).is_int()) return std::nullopt;
  Z3_decl_kind k = literal.decl().decl_kind();
  if (negated) {
    switch (k) {
      case Z3_OP_LE:
        k = Z3_OP_GT;
        break;
      case Z3_OP_GE:
        k = Z3_OP_LT;
        break;
      case Z3_OP_LT:
        k = Z3_OP_GE;
        break;
      case Z3_OP_GT:
        k = Z3_OP_LE;
        break;
      default:
        return std::nullopt;
    }
  }
  // lhs - rhs (LE, LT, EQ) or rhs - lhs (GE, GT), then <= 0, < 0 or = 0.
  const bool flip = k == Z3_OP_GE || k == Z3_OP_GT;
  if (k != Z3_OP_LE && k != Z3_OP_GE && k != Z3_OP_LT && k != Z3_OP_GT && k != Z3_OP_EQ) {
    return std::nullopt;
  }
  Linear out;
  out.eq = k == Z3_OP_EQ;
  if (!add_term(literal.arg(0), flip ? -1 : 1, out, vars) ||
      !add_term(literal.arg(1), flip ? 1 : -1, out, vars)) {
    return std::nullopt;
  }
  if (k == Z3_OP_LT || k == Z3_OP_GT) out.b += 1;
  return out;
}

void normalize(Row& r) {
  Int g = 0;
  for (Int v : r.c) g = gcd_of(g, v);
  if (g > 1) {
    for (Int& v : r.c) v /= g;
  }
}

// Drops rows without variables, duplicates, and inequalities a parallel tighter one dominates.
void dedupe(std::vector<Row>& rows) {
  std::map<std::string, Row> best;
  for (const Row& r : rows) {
    if (std::all_of(r.c.begin(), r.c.end() - 1, [](Int v) { return v == 0; })) continue;
    std::string key = r.eq ? "=" : "<";
    for (std::size_t j = 0; j + 1 < r.c.size(); ++j)
      key += std::to_string(static_cast<long long>(r.c[j])) + ",";
    if (r.eq) key += std::to_string(static_cast<long long>(r.c.back()));
    auto [it, fresh] = best.emplace(key, r);
    if (!fresh && !r.eq && r.c.back() > it->second.c.back()) it->second = r;
  }
  rows.clear();
  for (auto& [key, r] : best) rows.push_back(std::move(r));
}

// Eliminates variable v: by an equality that has it, else by pairing its lower and upper bounds.
void eliminate(std::vector<Row>& rows, std::size_t v) {
  std::vector<Row> out;
  auto with_eq =
      std::find_if(rows.begin(), rows.end(), [v](const Row& r) { return r.eq && r.c[v] != 0; });
  if (with_eq != rows.end()) {
    Row e = *with_eq;
    if (e.c[v] < 0) {
      for (Int& x : e.c) x = -x;
    }
    for (auto it = rows.begin(); it != rows.end(); ++it) {
      if (it == with_eq) continue;
      Row r = *it;
      if (r.c[v] != 0) {
        const Int f = r.c[v];
        for (std::size_t j = 0; j < r.c.size(); ++j) r.c[j] = e.c[v] * r.c[j] - f * e.c[j];
        normalize(r);
      }
      out.push_back(std::move(r));
    }
  } else {
    std::vector<const Row*> upper, lower;
    for (const Row& r : rows) {
      if (r.c[v] > 0)
        upper.push_back(&r);
      else if (r.c[v] < 0)
        lower.push_back(&r);
      else
        out.push_back(r);
    }
    for (const Row* p : upper) {
      for (const Row* n : lower) {
        Row r{std::vector<Int>(p->c.size()), false};
        for (std::size_t j = 0; j < r.c.size(); ++j)
          r.c[j] = -n->c[v] * p->c[j] + p->c[v] * n->c[j];
        normalize(r);
        out.push_back(std::move(r));
      }
    }
  }
  dedupe(out);
  rows = std::move(out);
}

// How many rows eliminating v by bounds would make (0 when an equality has v).
std::size_t new_rows(const std::vector<Row>& rows, std::size_t v) {
  std::size_t up = 0, down = 0;
  for (const Row& r : rows) {
    if (r.c[v] == 0) continue;
    if (r.eq) return 0;
    (r.c[v] > 0 ? up : down) += 1;
  }
  return up * down;
}

// The variable whose elimination adds the fewest rows (one with an equality first).
std::size_t cheapest(const std::vector<Row>& rows, const std::set<std::size_t>& todo) {
  std::size_t best = *todo.begin();
  long best_cost = LONG_MAX;
  for (std::size_t v : todo) {
    long up = 0, down = 0;
    bool eq = false;
    for (const Row& r : rows) {
      if (r.c[v] == 0) continue;
      if (r.eq)
        eq = true;
      else if (r.c[v] > 0)
        ++up;
      else
        ++down;
    }
    const long cost = eq ? -1 : up * down - up - down;
    if (cost < best_cost) {
      best_cost = cost;
      best = v;
    }
  }
  return best;
}

}  // namespace

std::vector<z3::expr> hull_candidates(const std::vector<z3::expr>& a,
                                      const std::vector<z3::expr>& b) {
  std::vector<z3::expr> out;
  if (a.empty()) return out;
  z3::context& context = a[0].ctx();
  std::map<unsigned, z3::expr> vars;
  std::vector<Linear> la, lb;
  for (const z3::expr& l : a) {
    if (auto x = to_linear(l, vars)) la.push_back(*x);
  }
  for (const z3::expr& l : b) {
    if (auto x = to_linear(l, vars)) lb.push_back(*x);
  }
  // The hull of A and B is { x | exists y, t in [0, 1]: A(y) scaled by t, B(x - y) scaled by
  // 1 - t }. Columns: x (n), y (n), t, constant.
  std::vector<unsigned> ids;
  for (const auto& [id, v] : vars) ids.push_back(id);
  const std::size_t n = ids.size(), t = 2 * n, width = 2 * n + 2;
  std::map<unsigned, std::size_t> column;
  for (std::size_t i = 0; i < n; ++i) column[ids[i]] = i;
  std::vector<Row> rows;
  for (const Linear& l : la) {
    Row r{std::vector<Int>(width), l.eq};
    for (const auto& [id, c] : l.a) r.c[n + column[id]] = c;
    r.c[t] = l.b;
    rows.push_back(std::move(r));
  }
  for (const Linear& l : lb) {
    Row r{std::vector<Int>(width), l.eq};
    for (const auto& [id, c] : l.a) {
      r.c[column[id]] = c;
      r.c[n + column[id]] = -c;
    }
    r.c[t] = -l.b;
    r.c.back() = l.b;
    rows.push_back(std::move(r));
  }
  Row t_nonnegative{std::vector<Int>(width), false}, t_at_most_one{std::vector<Int>(width), false};
  t_nonnegative.c[t] = -1;
  t_at_most_one.c[t] = 1;
  t_at_most_one.c.back() = -1;
  rows.push_back(t_nonnegative);
  rows.push_back(t_at_most_one);
  for (Row& r : rows) normalize(r);
  dedupe(rows);
  std::set<std::size_t> todo;
  for (std::size_t v = n; v <= t; ++v) todo.insert(v);
  while (!todo.empty() && rows.size() <= kMaxRows) {
    const std::size_t v = cheapest(rows, todo);
    if (new_rows(rows, v) > kMaxRows) break;  // the hull is too costly to project: no candidates
    todo.erase(v);
    eliminate(rows, v);
  }
  if (!todo.empty()) return out;
  for (const Row& r : rows) {
    if (std::any_of(r.c.begin(), r.c.end(), [](Int x) { return abs_of(x) > kTooBig; })) continue;
    std::optional<z3::expr> sum;
    for (std::size_t j = 0; j < n; ++j) {
      if (r.c[j] == 0) continue;
      const z3::expr term = context.int_val(static_cast<std::int64_t>(r.c[j])) * vars.at(ids[j]);
      sum = sum ? *sum + term : term;
    }
    if (!sum) continue;
    const z3::expr bound = context.int_val(static_cast<std::int64_t>(-r.c.back()));
    out.push_back((r.eq ? *sum == bound : *sum <= bound).simplify());
  }
  return out;
}

}  // namespace prowl::sym
