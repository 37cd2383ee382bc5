// The declaration and term actions: mk_sort, declare_sort, mk_const, declare_fun, mk_value,
// mk_term and mk_app. Every term's sort is checked against the sort rules of ops.hpp, and every
// ground term gets its value from the reference evaluator, for get_value to compare.
#include <algorithm>
#include <charconv>
#include <limits>

#include "smt_fuzz/actions.hpp"

namespace smt_fuzz {

using prowl::Outcome;
using prowl::Rng;
using prowl::fsm::Args;
using prowl::fsm::Handles;
using prowl::fsm::TraceError;

namespace {

using detail::Tokens;

// Generated terms stay small: a solver's time goes into solving, not into building.
constexpr std::uint32_t kMaxDepth = 5;
constexpr std::uint32_t kMaxSize = 40;
// Indices beyond the width are legal for rotations; result_sort checks the others.
constexpr std::int64_t kMaxIndex = 1024;

bool sort_allowed(const SortType& sort, const Theories& th) {
  switch (sort.kind) {
    case SortKind::kBool:
      return true;
    case SortKind::kInt:
      return th.ints;
    case SortKind::kBitVec:
      return th.bitvecs;
    case SortKind::kUninterpreted:
      return th.uf;
  }
  return false;
}

std::uint32_t pick_width(Rng& rng) {
  static constexpr std::uint32_t kWidths[] = {1, 2, 3, 4, 7, 8, 16, 32, 64};
  if (rng.below(10) < 3) return 1 + static_cast<std::uint32_t>(rng.below(kMaxBvWidth));
  return kWidths[rng.below(std::size(kWidths))];
}

std::string pick_int_literal(Rng& rng) {
  const std::uint64_t r = rng.below(100);
  if (r < 60) return std::to_string(static_cast<std::int64_t>(rng.below(21)) - 10);
  if (r < 85) return std::to_string(static_cast<std::int64_t>(rng.below(2001)) - 1000);
  const auto big =
      static_cast<std::int64_t>((std::uint64_t{1} << (31 + rng.below(31))) + rng.below(1000));
  return std::to_string(rng.below(2) == 0 ? big : -big);
}

std::uint64_t pick_bits(std::uint32_t width, Rng& rng) {
  const std::uint64_t ones = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  switch (rng.below(7)) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return ones;
    case 3:
      return sign;
    case 4:
      return ones >> 1;
    default:
      return rng.next() & ones;
  }
}

std::uint64_t parse_bits(const std::string& text, std::uint32_t width) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw TraceError("'" + text + "' is not a bit-vector value (a decimal number)");
  }
  if (width < 64 && v >> width != 0) {
    throw TraceError(text + " does not fit in " + std::to_string(width) + " bits");
  }
  return v;
}

TermHandle& term_at(const Args& args, std::size_t i, Handles& h) {
  return args.handle<TermHandle>(i, h);
}

// Picks the arguments of `op` among the live terms, within the size limits, or nullopt.
Tokens generate_application(const OpInfo& op, const Theories& th, Handles& h, Rng& rng) {
  using detail::pick_term;
  auto small = [](const TermHandle& t) { return t.depth < kMaxDepth; };
  auto of_kind = [&](SortKind k) {
    return [=](const TermHandle& t) { return small(t) && t.sort.kind == k; };
  };
  auto of_sort = [&](const SortType& s) {
    return [=](const TermHandle& t) { return small(t) && t.sort == s; };
  };
  const std::uint32_t n =
      op.min_args + static_cast<std::uint32_t>(rng.below(op.max_args - op.min_args + 1));
  std::vector<std::string> names;
  std::vector<std::uint32_t> indices;
  auto add = [&](const std::optional<std::string>& name) {
    if (name) names.push_back(*name);
    return name.has_value();
  };
  auto sort_of = [&](std::size_t i) { return h.get<TermHandle>(names[i]).sort; };

  switch (op.signature) {
    case Signature::kBools:
      for (std::uint32_t i = 0; i < n; ++i) {
        if (!add(pick_term(h, rng, of_kind(SortKind::kBool)))) return std::nullopt;
      }
      break;
    case Signature::kIte:
      if (!add(pick_term(h, rng, of_kind(SortKind::kBool)))) return std::nullopt;
      if (!add(pick_term(h, rng, small))) return std::nullopt;
      if (!add(pick_term(h, rng, of_sort(sort_of(1))))) return std::nullopt;
      break;
    case Signature::kSameSort:
      if (!add(pick_term(h, rng, small))) return std::nullopt;
      for (std::uint32_t i = 1; i < n; ++i) {
        if (!add(pick_term(h, rng, of_sort(sort_of(0))))) return std::nullopt;
      }
      break;
    case Signature::kInts:
    case Signature::kIntCmp: {
      if (!add(pick_term(h, rng, of_kind(SortKind::kInt)))) return std::nullopt;
      // In a linear logic a product has at most one factor that is not a constant, and the
      // divisor of div and mod is a constant other than 0.
      const bool linear = !th.nonlinear;
      const bool divides = op.op == Op::kDiv || op.op == Op::kMod;
      const bool need_constant =
          linear && (divides || (op.op == Op::kMul && !h.get<TermHandle>(names[0]).value));
      for (std::uint32_t i = 1; i < n; ++i) {
        auto keep = [&](const TermHandle& t) {
          return of_kind(SortKind::kInt)(t) &&
                 (!need_constant || (t.value && (!divides || t.value->integer != 0)));
        };
        if (!add(pick_term(h, rng, keep))) return std::nullopt;
      }
      break;
    }
    case Signature::kBvSame:
    case Signature::kBvCmp:
    case Signature::kBvComp:
      if (!add(pick_term(h, rng, of_kind(SortKind::kBitVec)))) return std::nullopt;
      for (std::uint32_t i = 1; i < n; ++i) {
        if (!add(pick_term(h, rng, of_sort(sort_of(0))))) return std::nullopt;
      }
      break;
    case Signature::kConcat: {
      auto narrow = [&](const TermHandle& t) {
        return of_kind(SortKind::kBitVec)(t) && t.sort.width < kMaxBvWidth;
      };
      if (!add(pick_term(h, rng, narrow))) return std::nullopt;
      const std::uint32_t room = kMaxBvWidth - sort_of(0).width;
      auto fits = [&](const TermHandle& t) {
        return of_kind(SortKind::kBitVec)(t) && t.sort.width <= room;
      };
      if (!add(pick_term(h, rng, fits))) return std::nullopt;
      break;
    }
    case Signature::kExtract: {
      if (!add(pick_term(h, rng, of_kind(SortKind::kBitVec)))) return std::nullopt;
      const auto hi = static_cast<std::uint32_t>(rng.below(sort_of(0).width));
      indices = {hi, static_cast<std::uint32_t>(rng.below(hi + 1))};
      break;
    }
    case Signature::kExtend: {
      auto narrow = [&](const TermHandle& t) {
        return of_kind(SortKind::kBitVec)(t) && t.sort.width < kMaxBvWidth;
      };
      if (!add(pick_term(h, rng, narrow))) return std::nullopt;
      const std::uint32_t room = std::min<std::uint32_t>(kMaxBvWidth - sort_of(0).width, 16);
      indices = {static_cast<std::uint32_t>(rng.below(room + 1))};
      break;
    }
    case Signature::kRotate:
      if (!add(pick_term(h, rng, of_kind(SortKind::kBitVec)))) return std::nullopt;
      indices = {static_cast<std::uint32_t>(rng.below(sort_of(0).width + 2))};
      break;
    case Signature::kRepeat: {
      auto narrow = [&](const TermHandle& t) {
        return of_kind(SortKind::kBitVec)(t) && t.sort.width <= kMaxBvWidth / 2;
      };
      if (!add(pick_term(h, rng, narrow))) return std::nullopt;
      const std::uint32_t most = std::min<std::uint32_t>(kMaxBvWidth / sort_of(0).width, 4);
      indices = {1 + static_cast<std::uint32_t>(rng.below(most))};
      break;
    }
  }
  std::uint32_t size = 1;
  for (const std::string& name : names) size += h.get<TermHandle>(name).size;
  if (size > kMaxSize) return std::nullopt;
  std::vector<std::string> tokens = {std::string(op.name)};
  for (std::uint32_t i : indices) tokens.push_back(std::to_string(i));
  tokens.insert(tokens.end(), names.begin(), names.end());
  return tokens;
}

Outcome run_mk_term(SmtTarget& t, Handles& h, const Args& args) {
  args.expect_at_least(1);
  const OpInfo* op = find_op(args.text(0));
  if (op == nullptr) throw TraceError("unknown operator '" + args.text(0) + "'");
  args.expect_at_least(1 + op->indices);
  std::vector<std::uint32_t> indices;
  for (std::size_t i = 1; i <= op->indices; ++i) {
    indices.push_back(static_cast<std::uint32_t>(args.integer(i, 0, kMaxIndex)));
  }
  std::vector<TermHandle> in;
  for (std::size_t i = 1 + op->indices; i < args.size(); ++i) in.push_back(term_at(args, i, h));
  if (!t.has_solver()) return Outcome::rejected("no solver");
  const Theories th = t.theories();
  if (!allowed(*op, th)) return Outcome::rejected(std::string(op->name) + " is outside the logic");
  std::vector<SortType> sorts;
  std::vector<TermRef> refs;
  std::vector<Value> values;
  TermHandle out;
  out.ground = true;
  std::uint32_t non_constant = 0;
  for (const TermHandle& a : in) {
    sorts.push_back(a.sort);
    refs.push_back(a.ref);
    if (a.value) values.push_back(*a.value);
    out.depth = std::max(out.depth, a.depth + 1);
    out.size += a.size;
    out.ground = out.ground && a.ground;
    non_constant += a.value ? 0 : 1;
  }
  std::string why;
  const std::optional<SortType> sort = result_sort(*op, indices, sorts, &why);
  if (!sort) return Outcome::rejected("ill-sorted: " + why);
  if (!th.nonlinear) {
    if (op->op == Op::kMul && non_constant > 1) {
      return Outcome::rejected("nonlinear multiplication in a linear logic");
    }
    if ((op->op == Op::kDiv || op->op == Op::kMod) && (!in[1].value || in[1].value->integer == 0)) {
      return Outcome::rejected(
          "division by a term other than a nonzero constant in a linear logic");
    }
  }
  t.lock_configuration();
  out.ref = t.solver().mk_term(op->op, indices, refs);
  out.sort = *sort;
  if (values.size() == in.size()) out.value = evaluate(*op, indices, values);
  return detail::add_term(t, h, out, std::string(op->name) + " term");
}

}  // namespace

namespace detail {

std::optional<std::string> pick_term(Handles& handles, Rng& rng,
                                     const std::function<bool(const TermHandle&)>& keep) {
  std::vector<const std::string*> candidates;
  for (const std::string& name : handles.of_kind(kTermKind)) {
    if (keep(handles.get<TermHandle>(name))) candidates.push_back(&name);
  }
  if (candidates.empty()) return std::nullopt;
  return *candidates[rng.below(candidates.size())];
}

std::optional<std::string> check_sort(SmtTarget& target, TermRef term, const SortType& expected,
                                      const std::string& what) {
  for (SmtSolver* b : target.solver().backends()) {
    const SortType got = b->sort_of(term);
    if (got != expected) {
      return std::string(b->name()) + " gives the " + what + " sort " + to_string(got) +
             ", expected " + to_string(expected);
    }
  }
  return std::nullopt;
}

Outcome add_term(SmtTarget& target, Handles& handles, TermHandle term, const std::string& what) {
  const TermRef ref = term.ref;
  const SortType sort = term.sort;
  handles.add(kTermKind, std::move(term));
  if (auto problem = check_sort(target, ref, sort, what)) return Outcome::error(*problem);
  return Outcome::ok();
}

}  // namespace detail

void add_term_actions(SmtMachine& m, SmtActions& a) {
  using detail::guarded;

  a.mk_sort = m.action(
      "mk_sort",
      [](SmtTarget& t, Handles&, Rng& rng) -> Tokens {
        if (!t.has_solver()) return std::nullopt;
        const Theories th = t.theories();
        std::vector<std::string> kinds = {"bool"};
        if (th.ints) kinds.push_back("int");
        if (th.bitvecs) kinds.insert(kinds.end(), {"bv", "bv"});
        const std::string kind = kinds[rng.below(kinds.size())];
        if (kind != "bv") return std::vector<std::string>{kind};
        return std::vector<std::string>{kind, std::to_string(pick_width(rng))};
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_at_least(1);
        const std::size_t kind = args.one_of(0, {"bool", "int", "bv"});
        args.expect_size(kind == 2 ? 2 : 1);
        if (!t.has_solver()) return Outcome::rejected("no solver");
        SortHandle s;
        if (kind == 0) {
          s.type = SortType::boolean();
        } else if (kind == 1) {
          s.type = SortType::integer();
        } else {
          s.type = SortType::bitvec(static_cast<std::uint32_t>(args.integer(1, 1, kMaxBvWidth)));
        }
        if (!sort_allowed(s.type, t.theories())) return Outcome::rejected("outside the logic");
        t.lock_configuration();
        SmtSolver& solver = t.solver();
        s.ref = kind == 0   ? solver.bool_sort()
                : kind == 1 ? solver.int_sort()
                            : solver.bv_sort(s.type.width);
        h.add(kSortKind, s);
        return Outcome::ok();
      }));

  a.declare_sort = m.action(
      "declare_sort",
      [](SmtTarget& t, Handles&, Rng&) -> Tokens {
        if (!t.has_solver() || !t.theories().uf) return std::nullopt;
        return std::vector<std::string>{t.fresh_name("U")};
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_size(1);
        const std::string& name = args.text(0);
        detail::check_symbol(name);
        if (!t.has_solver()) return Outcome::rejected("no solver");
        if (!t.theories().uf) return Outcome::rejected("outside the logic");
        if (t.name_taken(name)) return Outcome::rejected("'" + name + "' is declared already");
        t.lock_configuration();
        t.take_name(name);
        SortHandle s;
        s.ref = t.solver().declare_sort(name);
        s.type = SortType{SortKind::kUninterpreted, 0, s.ref};
        t.declared_sort(s.ref);
        h.add(kSortKind, s);
        return Outcome::ok();
      }));

  a.mk_const = m.action(
      "mk_const",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.has_solver()) return std::nullopt;
        auto sort = h.pick(kSortKind, rng);
        if (!sort) return std::nullopt;
        return std::vector<std::string>{*sort, t.fresh_name("x")};
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_size(2);
        const SortHandle s = args.handle<SortHandle>(0, h);
        const std::string& name = args.text(1);
        detail::check_symbol(name);
        if (!t.has_solver()) return Outcome::rejected("no solver");
        if (t.name_taken(name)) return Outcome::rejected("'" + name + "' is declared already");
        t.take_name(name);
        TermHandle term;
        term.ref = t.solver().declare_const(name, s.ref);
        term.sort = s.type;
        t.declared_const(term.ref);
        return detail::add_term(t, h, term, "constant");
      }));

  a.declare_fun = m.action(
      "declare_fun",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.has_solver() || !t.theories().uf) return std::nullopt;
        std::vector<std::string> tokens = {t.fresh_name("f")};
        const std::uint64_t sorts = 2 + rng.below(2);  // arity 1 or 2, then the codomain
        for (std::uint64_t i = 0; i < sorts; ++i) {
          auto s = h.pick(kSortKind, rng);
          if (!s) return std::nullopt;
          tokens.push_back(*s);
        }
        return tokens;
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_at_least(3);
        const std::string& name = args.text(0);
        detail::check_symbol(name);
        FunHandle f;
        std::vector<SortRef> domain;
        for (std::size_t i = 1; i + 1 < args.size(); ++i) {
          const SortHandle& s = args.handle<SortHandle>(i, h);
          domain.push_back(s.ref);
          f.domain.push_back(s.type);
        }
        const SortHandle codomain = args.handle<SortHandle>(args.size() - 1, h);
        f.codomain = codomain.type;
        if (!t.has_solver()) return Outcome::rejected("no solver");
        if (!t.theories().uf) return Outcome::rejected("outside the logic");
        if (t.name_taken(name)) return Outcome::rejected("'" + name + "' is declared already");
        t.take_name(name);
        f.ref = t.solver().declare_fun(name, domain, codomain.ref);
        h.add(kFunKind, f);
        return Outcome::ok();
      }));

  a.mk_value = m.action(
      "mk_value",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.has_solver()) return std::nullopt;
        std::vector<std::string> sorts;
        for (const std::string& name : h.of_kind(kSortKind)) {
          if (h.get<SortHandle>(name).type.kind != SortKind::kUninterpreted) sorts.push_back(name);
        }
        if (sorts.empty()) return std::nullopt;
        const std::string& sort = sorts[rng.below(sorts.size())];
        const SortType type = h.get<SortHandle>(sort).type;
        switch (type.kind) {
          case SortKind::kBool:
            return std::vector<std::string>{sort, rng.below(2) == 0 ? "true" : "false"};
          case SortKind::kInt:
            return std::vector<std::string>{sort, pick_int_literal(rng)};
          default:
            return std::vector<std::string>{sort, std::to_string(pick_bits(type.width, rng))};
        }
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_size(2);
        const SortHandle s = args.handle<SortHandle>(0, h);
        Value v;
        switch (s.type.kind) {
          case SortKind::kBool:
            v = Value::of_bool(args.boolean(1));
            break;
          case SortKind::kInt:
            v = Value::of_int(args.integer(1, std::numeric_limits<std::int64_t>::min() + 1,
                                           std::numeric_limits<std::int64_t>::max()));
            break;
          case SortKind::kBitVec:
            v = Value::of_bits(s.type.width, parse_bits(args.text(1), s.type.width));
            break;
          case SortKind::kUninterpreted:
            return Outcome::rejected("an uninterpreted sort has no literals");
        }
        if (!t.has_solver()) return Outcome::rejected("no solver");
        t.lock_configuration();
        TermHandle term;
        term.ref = v.sort.kind == SortKind::kBool  ? t.solver().mk_bool(v.boolean)
                   : v.sort.kind == SortKind::kInt ? t.solver().mk_int(v.integer)
                                                   : t.solver().mk_bv(v.sort.width, v.bits);
        term.sort = s.type;
        term.ground = true;
        term.value = v;
        return detail::add_term(t, h, term, "literal");
      }));

  a.mk_term = m.action(
      "mk_term",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.has_solver()) return std::nullopt;
        const Theories th = t.theories();
        std::vector<const OpInfo*> ops;
        for (const OpInfo& op : all_ops()) {
          if (allowed(op, th)) ops.push_back(&op);
        }
        // Operators in random order until one finds its arguments.
        for (std::size_t i = ops.size(); i > 0; --i) {
          std::swap(ops[i - 1], ops[rng.below(i)]);
          if (auto tokens = generate_application(*ops[i - 1], th, h, rng)) return tokens;
        }
        return std::nullopt;
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        return run_mk_term(t, h, args);
      }));

  a.mk_app = m.action(
      "mk_app",
      [](SmtTarget& t, Handles& h, Rng& rng) -> Tokens {
        if (!t.has_solver()) return std::nullopt;
        auto fun = h.pick(kFunKind, rng);
        if (!fun) return std::nullopt;
        std::vector<std::string> tokens = {*fun};
        std::uint32_t size = 1;
        for (const SortType& s : h.get<FunHandle>(*fun).domain) {
          auto arg = detail::pick_term(
              h, rng, [&](const TermHandle& x) { return x.sort == s && x.depth < kMaxDepth; });
          if (!arg) return std::nullopt;
          size += h.get<TermHandle>(*arg).size;
          tokens.push_back(*arg);
        }
        if (size > kMaxSize) return std::nullopt;
        return tokens;
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_at_least(2);
        const FunHandle f = args.handle<FunHandle>(0, h);
        if (args.size() - 1 != f.domain.size()) {
          return Outcome::rejected("wrong number of arguments");
        }
        TermHandle out;
        std::vector<TermRef> refs;
        for (std::size_t i = 1; i < args.size(); ++i) {
          const TermHandle& a = term_at(args, i, h);
          if (a.sort != f.domain[i - 1]) return Outcome::rejected("ill-sorted argument");
          refs.push_back(a.ref);
          out.depth = std::max(out.depth, a.depth + 1);
          out.size += a.size;
        }
        if (!t.has_solver()) return Outcome::rejected("no solver");
        out.ref = t.solver().mk_app(f.ref, refs);
        out.sort = f.codomain;
        return detail::add_term(t, h, out, "application");
      }));
}

}  // namespace smt_fuzz
