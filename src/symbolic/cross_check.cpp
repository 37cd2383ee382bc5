#include "prowl/symbolic/cross_check.hpp"

#include <algorithm>
#include <chrono>
#include <deque>

#include <fmt/format.h>

#include "concrete.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/symbolic/region.hpp"
#include "solver.hpp"

namespace prowl::sym {

namespace {

// A state of the explicit model: each state variable's value as 64 bits (Bool as 0 or 1).
struct Values {
  std::vector<std::int64_t> v;
};

// Converts between Values and Z3 numerals for one system.
class Codec {
 public:
  explicit Codec(const TransitionSystem& system) : system_(system) {}
  Valuation decode(const Values& s) const {
    z3::context& c = system_.context();
    Valuation out;
    for (std::size_t i = 0; i < s.v.size(); ++i) {
      const z3::sort sort = system_.vars()[i].now.get_sort();
      if (sort.is_bool()) {
        out.push_back(c.bool_val(s.v[i] != 0));
      } else if (sort.is_bv()) {
        out.push_back(c.bv_val(static_cast<std::uint64_t>(s.v[i]), sort.bv_size()));
      } else {
        out.push_back(c.int_val(static_cast<std::int64_t>(s.v[i])));
      }
    }
    return out;
  }
  static std::optional<std::int64_t> encode(const z3::expr& value) {
    if (value.is_true()) return 1;
    if (value.is_false()) return 0;
    if (value.is_bv()) {
      std::uint64_t u = 0;
      if (!Z3_get_numeral_uint64(value.ctx(), value, &u)) return std::nullopt;
      return static_cast<std::int64_t>(u);
    }
    std::int64_t i = 0;
    if (!value.is_numeral_i64(i)) return std::nullopt;
    return i;
  }
  std::optional<Values> encode_all(const Valuation& values) const {
    Values out;
    for (const z3::expr& v : values) {
      std::optional<std::int64_t> x = encode(v);
      if (!x) return std::nullopt;
      out.v.push_back(*x);
    }
    return out;
  }

 private:
  const TransitionSystem& system_;
};

// Every combination of the inputs' values, as full input valuations.
std::vector<Valuation> input_combinations(const std::vector<std::size_t>& reads,
                                          const InputDomains& domains, const Valuation& defaults) {
  std::vector<Valuation> out{defaults};
  for (std::size_t k : reads) {
    std::vector<Valuation> next;
    for (const Valuation& partial : out) {
      for (const z3::expr& value : *domains[k]) {
        Valuation v = partial;
        v[k] = value;
        next.push_back(std::move(v));
      }
    }
    out = std::move(next);
  }
  return out;
}

Result<Valuation> the_initial_state(const TransitionSystem& system) {
  z3::solver solver = make_solver(system.context());
  solver.add(system.initial());
  if (solver.check() != z3::sat) return Status::invalid("init: no initial state");
  const Valuation first = values_in(system, solver.get_model());
  z3::expr_vector differs(system.context());
  for (std::size_t i = 0; i < first.size(); ++i)
    differs.push_back(system.vars()[i].now != first[i]);
  if (!differs.empty()) {
    solver.add(z3::mk_or(differs));
    if (solver.check() != z3::unsat) {
      return Status::invalid(
          "init: the explicit model needs exactly one initial state; init allows " +
          format_state(system, first) + " and " +
          format_state(system, values_in(system, solver.get_model())));
    }
  }
  return first;
}

Status check_explicit(const TransitionSystem& system, const InputDomains& domains) {
  for (const StateVar& v : system.vars()) {
    if (v.now.get_sort().is_real()) {
      return Status::invalid("vars." + v.name +
                             ": the explicit model takes Int, Bool and bit-vector "
                             "variables, not Real");
    }
  }
  for (const Transition& t : system.transitions()) {
    for (std::size_t k : system.inputs_of(t)) {
      if (k < domains.size() && domains[k] && !domains[k]->empty()) continue;
      const std::string& p = system.inputs()[k].name;
      return Status::invalid(fmt::format(
          "inputs.{}: the explicit model needs the values of {} (transition {} reads it); add "
          "values: [...] or range: [LOW, HIGH] under inputs.{}",
          p, p, t.name, p));
    }
  }
  return Status::ok();
}

void add_transition(ObjectModel<Values>& model, const TransitionSystem& system, const Transition& t,
                    const Valuation& inputs, const std::shared_ptr<Evaluator>& eval,
                    const std::shared_ptr<Codec>& codec) {
  std::string name = t.name;
  for (std::size_t k : system.inputs_of(t)) {
    name += " " + system.inputs()[k].name + "=" + format_value(inputs[k]);
  }
  const Transition* path = &t;
  model.action(name)
      .when([eval, codec, path, inputs](const Values& s) {
        return eval->holds(path->guard, codec->decode(s), inputs) == true;
      })
      .run([eval, codec, path, inputs](Values& s) -> Outcome {
        if (path->error) return Outcome::error("error path " + path->name + " reached");
        std::optional<Valuation> next = eval->after(*path, codec->decode(s), inputs);
        std::optional<Values> encoded = next ? codec->encode_all(*next) : std::nullopt;
        if (!encoded) return Outcome::error("an update of " + path->name + " leaves 64 bits");
        s = std::move(*encoded);
        return Outcome::ok();
      });
}

// Each state's BFS depth from state 0 over the recorded edges, counted per depth.
std::vector<std::uint64_t> levels_of(const ReportGraph& graph) {
  std::vector<std::vector<StateId>> out_edges(graph.states);
  for (const Edge& e : graph.edges) out_edges[e.from].push_back(e.to);
  std::vector<std::int64_t> depth(graph.states, -1);
  std::deque<StateId> queue{0};
  depth[0] = 0;
  std::vector<std::uint64_t> levels;
  while (!queue.empty()) {
    const StateId s = queue.front();
    queue.pop_front();
    const auto d = static_cast<std::size_t>(depth[s]);
    if (levels.size() <= d) levels.resize(d + 1);
    ++levels[d];
    for (StateId t : out_edges[s]) {
      if (depth[t] < 0) {
        depth[t] = depth[s] + 1;
        queue.push_back(t);
      }
    }
  }
  return levels;
}

}  // namespace

Result<std::unique_ptr<Model>> to_model(const TransitionSystem& system,
                                        const InputDomains& domains) {
  if (Status st = check_explicit(system, domains); !st) return st;
  Result<Valuation> initial = the_initial_state(system);
  if (!initial) return initial.status();
  auto codec = std::make_shared<Codec>(system);
  auto eval = std::make_shared<Evaluator>(system);
  std::optional<Values> start = codec->encode_all(*initial);
  if (!start) return Status::invalid("init: an initial value does not fit in 64 bits");
  auto describe = [codec, &system](const Values& s) {
    return format_state(system, codec->decode(s));
  };
  auto observe = [](const Values& s, Hasher& h) { h.add_bytes(s.v.data(), s.v.size() * 8); };
  auto model = std::make_unique<ObjectModel<Values>>(system.name(), *start, observe, describe);
  for (const Transition& t : system.transitions()) {
    for (const Valuation& inputs :
         input_combinations(system.inputs_of(t), domains, eval->default_inputs())) {
      add_transition(*model, system, t, inputs, eval, codec);
    }
  }
  for (const NamedInvariant& inv : system.invariants()) {
    const z3::expr holds = inv.holds;
    model->invariant(inv.name).declared_at({}).check([eval, codec, holds](const Values& s) {
      return eval->holds(holds, codec->decode(s), eval->default_inputs()) != false;
    });
  }
  return std::unique_ptr<Model>(std::move(model));
}

Result<CrossCheck> cross_check(const TransitionSystem& system, const ReachResult& result,
                               const InputDomains& domains, std::uint64_t max_states) {
  Result<std::unique_ptr<Model>> model = to_model(system, domains);
  if (!model) return model.status();
  CrossCheck out;
  // The symbolic side: model counts of the region and of each level's new states.
  std::vector<z3::expr> before;
  for (const auto& frontier : result.frontiers) {
    std::optional<std::uint64_t> n = count_states(system, frontier, before, max_states);
    if (!n) return Status::invalid(fmt::format("the region has more than {} states", max_states));
    out.sym_levels.push_back(*n);
    out.sym_states += *n;
    before.insert(before.end(), frontier.begin(), frontier.end());
  }
  out.sym_depth = result.depth;
  for (const Check& c : result.checks) {
    out.sym_shortest.push_back(c.verdict == Verdict::kViolated ? std::optional(c.depth)
                                                               : std::nullopt);
  }
  // The explicit side.
  Bfs bfs;
  Options options;
  options.record_edges = true;
  const auto start = std::chrono::steady_clock::now();
  Result<RunReport> report = Explorer(**model, bfs, options).run();
  out.bfs_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!report) return report.status();
  out.bfs_states = report->stats.states;
  out.bfs_depth = report->stats.max_depth;
  if (report->graph) out.bfs_levels = levels_of(*report->graph);
  for (const Check& c : result.checks) {
    std::optional<std::uint32_t> shortest;
    for (const Finding& f : report->findings) {
      const bool same =
          c.finding.rfind("invariant:", 0) == 0
              ? f.kind == FindingKind::kInvariant && "invariant:" + f.name == c.finding
              : f.kind == FindingKind::kActionError &&
                    "error:" + f.action.substr(0, f.action.find(' ')) == c.finding;
      if (!same) continue;
      const auto n = static_cast<std::uint32_t>(f.steps.size());
      shortest = shortest ? std::min(*shortest, n) : n;
    }
    out.bfs_shortest.push_back(shortest);
  }
  auto mismatch = [&out](const std::string& what, auto a, auto b) {
    if (a != b) out.mismatches.push_back(fmt::format("{}: symbolic {}, explicit {}", what, a, b));
  };
  mismatch("states", out.sym_states, out.bfs_states);
  mismatch("depth", out.sym_depth, out.bfs_depth);
  mismatch("states per level", fmt::format("{}", fmt::join(out.sym_levels, " ")),
           fmt::format("{}", fmt::join(out.bfs_levels, " ")));
  for (std::size_t i = 0; i < result.checks.size(); ++i) {
    auto text = [](const std::optional<std::uint32_t>& n) {
      return n ? std::to_string(*n) + " steps" : std::string("holds");
    };
    mismatch("shortest " + result.checks[i].finding, text(out.sym_shortest[i]),
             text(out.bfs_shortest[i]));
  }
  return out;
}

}  // namespace prowl::sym
