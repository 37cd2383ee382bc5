// The assertion and query actions: assert, check_sat, check_sat_assuming, get_value, get_model,
// get_unsat_assumptions, push, pop and reset_assertions. The oracles of a check: a sat answer's
// model must make every assertion of every open scope (and every assumption) true; an unsat answer
// must not come when every assertion is a ground term that evaluates to true; get-value must
// answer a value of the term's sort, and a ground term's value must be the reference evaluator's;
// the unsat assumptions must be unsat with the assertions again.
#include <algorithm>
#include <cctype>

#include "smt_fuzz/actions.hpp"

namespace smt_fuzz {

using prowl::Outcome;
using prowl::Rng;
using prowl::fsm::Args;
using prowl::fsm::Handles;

namespace {

using detail::Tokens;

// push and pop take any level count a trace may need; the fuzzer pushes 1 or 2 at a time.
constexpr std::int64_t kMaxScopeChange = 1000;

bool well_formed(const std::string& v, const SortType& sort) {
  auto all_digits = [](std::string_view s, std::string_view allowed) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
      return allowed.find(c) != std::string_view::npos;
    });
  };
  switch (sort.kind) {
    case SortKind::kBool:
      return v == "true" || v == "false";
    case SortKind::kInt: {
      std::string_view digits = v;
      if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
      return all_digits(digits, "0123456789") && (digits.size() == 1 || digits[0] != '0') &&
             v != "-0";
    }
    case SortKind::kBitVec:
      return v.size() == sort.width + 2 && v.compare(0, 2, "#b") == 0 &&
             all_digits(std::string_view(v).substr(2), "01");
    case SortKind::kUninterpreted:
      return !v.empty() && v.rfind("(not a value)", 0) != 0;
  }
  return false;
}

// The oracles after a check; the finding, or nullopt.
std::optional<std::string> validate_check(SmtTarget& t, const std::vector<Assertion>& assumed) {
  std::vector<Assertion> all = t.assertions();
  all.insert(all.end(), assumed.begin(), assumed.end());
  auto known = [&](bool b) {
    return [b](const Assertion& a) { return a.value && a.value->boolean == b; };
  };
  const bool all_true = std::all_of(all.begin(), all.end(), known(true));
  const auto is_false = std::find_if(all.begin(), all.end(), known(false));
  for (SmtSolver* b : t.solver().backends()) {
    const std::string who(b->name());
    if (b->last_answer() == Answer::kUnsat && all_true) {
      return who + " says unsat, but every assertion is a ground term that evaluates to true";
    }
    if (b->last_answer() != Answer::kSat) continue;
    if (is_false != all.end()) {
      return who + " says sat, but assertion " + is_false->name +
             " is a ground term that evaluates to false";
    }
    if (!t.produce_models()) continue;
    for (const Assertion& a : all) {
      const std::string v = b->value(a.ref);
      if (v != "true") {
        return who + "'s model does not satisfy assertion " + a.name + ": it evaluates to " + v;
      }
    }
  }
  return std::nullopt;
}

Outcome run_check(SmtTarget& t, Handles& h, const Args& args) {
  std::vector<Assertion> assumed;
  std::vector<TermRef> refs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const TermHandle& term = args.handle<TermHandle>(i, h);
    if (term.sort.kind != SortKind::kBool) return Outcome::rejected("assumptions are Bool");
    assumed.push_back({term.ref, args.text(i), term.value});
    refs.push_back(term.ref);
  }
  if (!t.has_solver()) return Outcome::rejected("no solver");
  if (!t.may_check()) return Outcome::rejected("one check only without incremental solving");
  t.lock_configuration();
  const Answer answer = t.solver().check_sat(refs);
  t.checked(answer, assumed);
  t.note("check_sat " + std::string(to_string(answer)));
  if (auto problem = validate_check(t, assumed)) return Outcome::error(*problem);
  return Outcome::ok();
}

Tokens pick_bools(Handles& h, Rng& rng, std::uint64_t most) {
  std::vector<std::string> tokens;
  const std::uint64_t n = 1 + rng.below(most);
  for (std::uint64_t i = 0; i < n; ++i) {
    auto name = detail::pick_term(
        h, rng, [](const TermHandle& x) { return x.sort.kind == SortKind::kBool; });
    if (!name) return std::nullopt;
    tokens.push_back(*name);
  }
  return tokens;
}

// get-unsat-assumptions, and its oracle: the assertions and the assumptions named must be unsat
// again.
Outcome run_unsat_assumptions(SmtTarget& t) {
  const std::vector<Assertion> assumed = t.last_assumptions();
  std::optional<std::string> problem;
  for (SmtSolver* b : t.solver().backends()) {
    if (b->last_answer() != Answer::kUnsat) continue;
    std::vector<std::size_t> core = b->unsat_assumptions();
    std::sort(core.begin(), core.end());
    core.erase(std::unique(core.begin(), core.end()), core.end());
    std::string names;
    std::vector<TermRef> refs;
    for (std::size_t i : core) {
      names += (names.empty() ? "" : " ") + assumed.at(i).name;
      refs.push_back(assumed.at(i).ref);
    }
    t.note("get_unsat_assumptions " + names);
    if (problem) continue;
    const Answer again = b->check_sat(refs);
    if (again == Answer::kSat) {
      problem = std::string(b->name()) + "'s unsat assumptions {" + names +
                "} are satisfiable with the assertions";
    }
  }
  t.forget_answer();
  if (problem) return Outcome::error(*problem);
  return Outcome::ok();
}

}  // namespace

void add_check_actions(SmtMachine& m, SmtActions& a) {
  using detail::guarded;

  a.assert_formula = m.action(
      "assert",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.has_solver()) return std::nullopt;
        return pick_bools(h, rng, 1);
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_size(1);
        const TermHandle& term = args.handle<TermHandle>(0, h);
        if (term.sort.kind != SortKind::kBool) return Outcome::rejected("assertions are Bool");
        if (!t.has_solver()) return Outcome::rejected("no solver");
        t.lock_configuration();
        t.solver().assert_formula(term.ref);
        t.add_assertion({term.ref, args.text(0), term.value});
        return Outcome::ok();
      }));

  a.check_sat = m.action(
      "check_sat",
      [](SmtTarget& t, Handles&, Rng&) -> Tokens {
        if (!t.may_check()) return std::nullopt;
        return std::vector<std::string>{};
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_size(0);
        return run_check(t, h, args);
      }));

  a.check_sat_assuming = m.action(
      "check_sat_assuming",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.may_check()) return std::nullopt;
        return pick_bools(h, rng, 3);
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_at_least(1);
        return run_check(t, h, args);
      }));

  a.get_value = m.action(
      "get_value",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.has_solver() || !t.model_available()) return std::nullopt;
        std::vector<std::string> tokens;
        const std::uint64_t n = 1 + rng.below(3);
        for (std::uint64_t i = 0; i < n; ++i) {
          auto name = h.pick(kTermKind, rng);
          if (!name) return std::nullopt;
          tokens.push_back(*name);
        }
        return tokens;
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_at_least(1);
        std::vector<const TermHandle*> terms;
        for (std::size_t i = 0; i < args.size(); ++i) {
          terms.push_back(&args.handle<TermHandle>(i, h));
        }
        if (!t.has_solver() || !t.model_available()) {
          return Outcome::rejected("no model: get-value comes right after a sat answer");
        }
        for (SmtSolver* b : t.solver().backends()) {
          if (b->last_answer() != Answer::kSat) continue;
          const std::string who(b->name());
          for (std::size_t i = 0; i < terms.size(); ++i) {
            const std::string v = b->value(terms[i]->ref);
            t.note("get_value " + args.text(i) + " " + v);
            if (!well_formed(v, terms[i]->sort)) {
              return Outcome::error(who + " answers '" + v + "' for " + args.text(i) +
                                    ", not a value of sort " + to_string(terms[i]->sort));
            }
            if (terms[i]->value && v != to_text(*terms[i]->value)) {
              return Outcome::error(who + " says ground term " + args.text(i) + " is " + v +
                                    ", but it evaluates to " + to_text(*terms[i]->value));
            }
          }
        }
        return Outcome::ok();
      }));

  a.get_model = m.action(
      "get_model",
      [](SmtTarget& t, Handles&, Rng&) -> Tokens {
        if (!t.has_solver() || !t.model_available()) return std::nullopt;
        return std::vector<std::string>{};
      },
      guarded([](SmtTarget& t, Handles&, Rng&, const Args& args) {
        args.expect_size(0);
        if (!t.has_solver() || !t.model_available()) {
          return Outcome::rejected("no model: get-model comes right after a sat answer");
        }
        for (SmtSolver* b : t.solver().backends()) {
          if (b->last_answer() != Answer::kSat) continue;
          b->model_text(t.declared_sorts(), t.declared_consts());
        }
        t.note("get_model");
        return Outcome::ok();
      }));

  a.get_unsat_assumptions = m.action(
      "get_unsat_assumptions",
      [](SmtTarget& t, Handles&, Rng&) -> Tokens {
        if (!t.has_solver() || !t.unsat_assumptions_available()) return std::nullopt;
        return std::vector<std::string>{};
      },
      guarded([](SmtTarget& t, Handles&, Rng&, const Args& args) {
        args.expect_size(0);
        if (!t.has_solver() || !t.unsat_assumptions_available()) {
          return Outcome::rejected("no unsat answer to a check with assumptions");
        }
        return run_unsat_assumptions(t);
      }));

  a.push = m.action(
      "push",
      [](SmtTarget& t, Handles&, Rng& rng) -> Tokens {
        if (!t.has_solver() || !t.incremental()) return std::nullopt;
        return std::vector<std::string>{rng.below(4) == 0 ? "2" : "1"};
      },
      guarded([](SmtTarget& t, Handles&, Rng&, const Args& args) {
        args.expect_size(1);
        const auto levels = static_cast<std::uint32_t>(args.integer(0, 0, kMaxScopeChange));
        if (!t.has_solver()) return Outcome::rejected("no solver");
        if (!t.incremental()) return Outcome::rejected("push needs incremental solving");
        t.lock_configuration();
        t.solver().push(levels);
        t.push(levels);
        return Outcome::ok();
      }));

  a.pop = m.action(
      "pop",
      [](SmtTarget& t, Handles&, Rng& rng) -> Tokens {
        if (!t.has_solver() || !t.incremental() || t.scopes() == 0) return std::nullopt;
        const std::uint32_t levels = rng.below(4) == 0 ? 1 + rng.below(t.scopes()) : 1;
        return std::vector<std::string>{std::to_string(levels)};
      },
      guarded([](SmtTarget& t, Handles&, Rng&, const Args& args) {
        args.expect_size(1);
        const auto levels = static_cast<std::uint32_t>(args.integer(0, 0, kMaxScopeChange));
        if (!t.has_solver()) return Outcome::rejected("no solver");
        if (!t.incremental()) return Outcome::rejected("pop needs incremental solving");
        if (levels > t.scopes()) return Outcome::rejected("pop below the first scope");
        t.lock_configuration();
        t.solver().pop(levels);
        t.pop(levels);
        return Outcome::ok();
      }));

  a.reset_assertions = m.action("reset_assertions", detail::no_arguments_with_a_solver,
                                guarded([](SmtTarget& t, Handles&, Rng&, const Args& args) {
                                  args.expect_size(0);
                                  if (!t.has_solver()) return Outcome::rejected("no solver");
                                  t.lock_configuration();
                                  t.solver().reset_assertions();
                                  t.reset_assertions();
                                  return Outcome::ok();
                                }));
}

}  // namespace smt_fuzz
