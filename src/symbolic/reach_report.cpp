#include "prowl/symbolic/reach_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <nlohmann/json.hpp>

#include "prowl/symbolic/region.hpp"

namespace prowl::sym {

namespace {

std::string status_line(const ReachRun& run) {
  const ReachResult& r = *run.result;
  std::string line = fmt::format("status: {} at depth {} ({} iterations) in {:.3f} s",
                                 to_string(r.status), r.depth, r.iterations, r.seconds);
  if (!r.reason.empty()) line += "\n  " + r.reason;
  return line;
}

void print_check(std::ostream& out, const ReachRun& run, std::size_t i) {
  const Check& c = run.result->checks[i];
  out << "  " << c.finding << ": " << to_string(c.verdict);
  if (c.verdict == Verdict::kViolated) {
    out << " in " << c.depth << (c.depth == 1 ? " step" : " steps");
    if (i < run.traces.size() && !run.traces[i].empty()) out << " (trace " << run.traces[i] << ")";
    out << '\n';
    const Counterexample& cex = *c.counterexample;
    out << "      init  " << format_state(*run.system, cex.initial) << '\n';
    for (const CounterexampleStep& s : cex.steps) {
      std::string inputs;
      for (const auto& [name, value] : s.inputs) inputs += " " + name + "=" + format_value(value);
      out << "      " << s.transition << inputs << "  ->  " << format_state(*run.system, s.after)
          << '\n';
    }
    return;
  }
  out << '\n';
}

void print_cross_check(std::ostream& out, const CrossCheck& x) {
  out << fmt::format("cross-check with explicit BFS ({:.3f} s): states {} / {}, depth {} / {}",
                     x.bfs_seconds, x.sym_states, x.bfs_states, x.sym_depth, x.bfs_depth)
      << '\n';
  out << "  states per level: " << fmt::format("{}", fmt::join(x.sym_levels, " ")) << '\n';
  if (x.ok()) {
    out << "  agree: states, depth, states per level and shortest findings are equal\n";
    return;
  }
  for (const std::string& m : x.mismatches) out << "  MISMATCH " << m << '\n';
}

nlohmann::json cross_check_json(const CrossCheck& x) {
  auto shortest = [](const std::vector<std::optional<std::uint32_t>>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& n : v) out.push_back(n ? nlohmann::json(*n) : nlohmann::json(nullptr));
    return out;
  };
  return {{"ok", x.ok()},
          {"sym_states", x.sym_states},
          {"bfs_states", x.bfs_states},
          {"sym_depth", x.sym_depth},
          {"bfs_depth", x.bfs_depth},
          {"sym_levels", x.sym_levels},
          {"bfs_levels", x.bfs_levels},
          {"sym_shortest", shortest(x.sym_shortest)},
          {"bfs_shortest", shortest(x.bfs_shortest)},
          {"bfs_seconds", x.bfs_seconds},
          {"mismatches", x.mismatches}};
}

nlohmann::json counterexample_json(const TransitionSystem& system, const Counterexample& cex) {
  nlohmann::json steps = nlohmann::json::array();
  for (const CounterexampleStep& s : cex.steps) {
    nlohmann::json inputs = nlohmann::json::object();
    for (const auto& [name, value] : s.inputs) inputs[name] = format_value(value);
    steps.push_back({{"transition", s.transition},
                     {"inputs", inputs},
                     {"after", format_state(system, s.after)}});
  }
  return {{"init", format_state(system, cex.initial)}, {"steps", steps}};
}

}  // namespace

void print_reach_report(std::ostream& out, const ReachRun& run) {
  const ReachResult& r = *run.result;
  out << "prowl reach: " << run.system->name() << " (" << run.file << "), image "
      << to_string(run.options.image) << ", depth cap "
      << (run.options.max_depth == 0 ? std::string("none") : std::to_string(run.options.max_depth))
      << '\n';
  for (std::size_t i = 0; i < r.stats.size(); ++i) {
    const IterationStats& s = r.stats[i];
    out << fmt::format("  iteration {:>3}: {:8.3f} s  {:>4} disjuncts {:>8} nodes  {}\n", i + 1,
                       s.seconds, s.disjuncts, s.nodes,
                       s.new_states ? "new states" : "no new state");
  }
  for (const std::string& w : run.warnings) out << "warning: " << w << '\n';
  out << status_line(run) << '\n';
  if (run.states) out << "states: " << *run.states << '\n';
  if (!r.checks.empty()) out << "checks:\n";
  for (std::size_t i = 0; i < r.checks.size(); ++i) print_check(out, run, i);
  if (run.cross_check) print_cross_check(out, *run.cross_check);
}

std::string reach_json(const ReachRun& run) {
  const ReachResult& r = *run.result;
  nlohmann::json checks = nlohmann::json::array();
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    const Check& c = r.checks[i];
    nlohmann::json j = {{"finding", c.finding}, {"verdict", std::string(to_string(c.verdict))}};
    if (c.verdict == Verdict::kViolated) {
      j["depth"] = c.depth;
      j["counterexample"] = counterexample_json(*run.system, *c.counterexample);
      if (i < run.traces.size() && !run.traces[i].empty()) j["trace"] = run.traces[i];
    }
    checks.push_back(std::move(j));
  }
  nlohmann::json iterations = nlohmann::json::array();
  for (const IterationStats& s : r.stats) {
    iterations.push_back({{"seconds", s.seconds},
                          {"disjuncts", s.disjuncts},
                          {"nodes", s.nodes},
                          {"new_states", s.new_states}});
  }
  nlohmann::json out = {
      {"version", 1},
      {"model", run.system->name()},
      {"system", run.system->name()},
      {"file", run.file},
      {"image", std::string(to_string(run.options.image))},
      {"max_depth", run.options.max_depth},
      {"status", std::string(to_string(r.status))},
      {"depth", r.depth},
      {"iterations", r.iterations},
      {"seconds", r.seconds},
      {"reason", r.reason},
      {"states", run.states ? nlohmann::json(*run.states) : nlohmann::json(nullptr)},
      {"checks", checks},
      {"per_iteration", iterations},
      {"warnings", run.warnings}};
  if (run.cross_check) out["cross_check"] = cross_check_json(*run.cross_check);
  return out.dump(2) + "\n";
}

}  // namespace prowl::sym
