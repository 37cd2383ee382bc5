#include "prowl/symbolic/reach_trace.hpp"

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "concrete.hpp"
#include "prowl/symbolic/region.hpp"

namespace prowl::sym {

namespace {

std::string step_text(const trace::Step& step) {
  std::string out = step.action;
  for (const std::string& a : step.args) out += " " + a;
  return out;
}

// "x=0 y=1" into one value per state variable.
Result<Valuation> parse_state(const TransitionSystem& system, const std::string& text,
                              const std::string& where) {
  std::map<std::string, std::string> given;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || !given.emplace(item.substr(0, eq), item.substr(eq + 1)).second) {
      return Status::invalid(where + ": '" + item +
                             "' is not NAME=VALUE, or names a variable twice");
    }
  }
  Valuation out;
  for (const StateVar& v : system.vars()) {
    auto it = given.find(v.name);
    if (it == given.end()) return Status::invalid(where + ": no value for " + v.name);
    std::optional<z3::expr> value = parse_value(system.context(), v.now.get_sort(), it->second);
    if (!value) {
      return Status::invalid(where + ": " + v.name + "=" + it->second + " is not " +
                             sort_name(v.now.get_sort()));
    }
    out.push_back(*value);
    given.erase(it);
  }
  if (!given.empty()) {
    return Status::invalid(where + ": '" + given.begin()->first + "' is not a state variable");
  }
  return out;
}

// The step's NAME=VALUE arguments as one value per input (defaults for those it does not give).
Result<Valuation> parse_inputs(const TransitionSystem& system, const Transition& t,
                               const trace::Step& step, const std::string& where,
                               const Evaluator& eval) {
  Valuation inputs = eval.default_inputs();
  std::vector<bool> given(system.inputs().size(), false);
  for (const std::string& arg : step.args) {
    const std::size_t eq = arg.find('=');
    const std::optional<std::size_t> k =
        eq == std::string::npos ? std::nullopt : system.input_index(arg.substr(0, eq));
    if (!k)
      return Status::invalid(where + ": '" + arg +
                             "' is not INPUT=VALUE for an input of the system");
    const z3::sort sort = system.inputs()[*k].value.get_sort();
    std::optional<z3::expr> value = parse_value(system.context(), sort, arg.substr(eq + 1));
    if (!value)
      return Status::invalid(where + ": " + arg + ": the value is not " + sort_name(sort));
    if (given[*k])
      return Status::invalid(where + ": input " + system.inputs()[*k].name + " is given twice");
    given[*k] = true;
    inputs[*k] = *value;
  }
  for (std::size_t k : system.inputs_of(t)) {
    if (!given[k]) {
      return Status::invalid(fmt::format("{}: {} reads input {}: give it as {}=VALUE", where,
                                         t.name, system.inputs()[k].name, system.inputs()[k].name));
    }
  }
  return inputs;
}

}  // namespace

trace::Trace counterexample_trace(const TransitionSystem& system, const Counterexample& cex,
                                  const std::string& system_file, ImageMode image) {
  trace::Trace out;
  out.header.model = system.name();
  out.header.set_option("kind", "reach");
  out.header.set_option("finding", cex.finding);
  out.header.set_option("init", format_state(system, cex.initial));
  out.header.set_option("depth", std::to_string(cex.steps.size()));
  out.header.set_option("image", std::string(to_string(image)));
  if (!system_file.empty()) out.header.set_option("system-file", system_file);
  std::string after_previous;
  for (const CounterexampleStep& s : cex.steps) {
    trace::Step step;
    step.action = s.transition;
    for (const auto& [name, value] : s.inputs)
      step.args.push_back(name + "=" + format_value(value));
    if (!after_previous.empty()) step.comments_before.push_back(after_previous);
    after_previous = format_state(system, s.after);
    out.steps.push_back(std::move(step));
  }
  if (!after_previous.empty()) out.trailing_comments.push_back(after_previous);
  return out;
}

Result<ReplayResult> replay_reach_trace(const TransitionSystem& system, const trace::Trace& trace,
                                        const std::string& trace_path, std::ostream& log) {
  const std::string head = trace_path + ":1";
  if (trace.header.option("kind") != "reach") {
    return Status::invalid(head + ": not a reach trace (its header has no kind=reach)");
  }
  if (trace.header.model != system.name()) {
    return Status::invalid(
        fmt::format("{}: the trace is of system '{}', but the system file "
                    "describes '{}'",
                    head, trace.header.model, system.name()));
  }
  const std::optional<std::string> init = trace.header.option("init");
  if (!init) return Status::invalid(head + ": the header has no init=\"NAME=VALUE ...\"");
  Result<Valuation> state = parse_state(system, *init, head + ": init");
  if (!state) return state.status();
  Evaluator eval(system);
  if (eval.holds(system.initial(), *state, eval.default_inputs()) != true) {
    return Status::invalid(head + ": init \"" + *init + "\" is not an initial state of " +
                           system.name());
  }
  ReplayResult result;
  result.recorded = trace.header.option("finding").value_or("");
  log << "init: " << format_state(system, *state) << '\n';
  for (const trace::Step& step : trace.steps) {
    const std::string where = fmt::format("{}:{}", trace_path, step.line);
    const std::optional<std::size_t> index = system.transition_index(step.action);
    if (!index) {
      return Status::invalid(where + ": unknown transition '" + step.action + "' of " +
                             system.name());
    }
    const Transition& t = system.transitions()[*index];
    Result<Valuation> inputs = parse_inputs(system, t, step, where, eval);
    if (!inputs) return inputs.status();
    ++result.steps;
    if (eval.holds(t.guard, *state, *inputs) != true) {
      return Status::invalid(
          fmt::format("{}: step '{}' breaks the guard of {}: {} is not true in {}", where,
                      step_text(step), t.name, t.guard.to_string(), format_state(system, *state)));
    }
    if (t.error) {
      result.happened = "error:" + t.name;
      log << "step " << result.steps << ": " << step_text(step) << " -> error path " << t.name
          << '\n';
      break;
    }
    std::optional<Valuation> next = eval.after(t, *state, *inputs);
    if (!next)
      return Status::invalid(where + ": an update of " + t.name + " does not reduce to a value");
    *state = std::move(*next);
    log << "step " << result.steps << ": " << step_text(step) << " -> "
        << format_state(system, *state) << '\n';
    for (const NamedInvariant& inv : system.invariants()) {
      if (result.first_broken.empty() && eval.holds(inv.holds, *state, *inputs) == false) {
        result.first_broken = inv.name;
        result.first_broken_step = result.steps;
      }
    }
  }
  if (result.happened.empty()) {
    for (const NamedInvariant& inv : system.invariants()) {
      if (eval.holds(inv.holds, *state, eval.default_inputs()) != false) continue;
      const std::string finding = "invariant:" + inv.name;
      if (result.happened.empty() || finding == result.recorded) result.happened = finding;
    }
  }
  result.reproduced = !result.happened.empty() && result.happened == result.recorded;
  return result;
}

}  // namespace prowl::sym
