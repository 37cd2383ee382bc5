#include "prowl/worstcase/witness.hpp"

#include <charconv>

#include "executor.hpp"

namespace prowl::wc {

namespace {

std::string side(bool taken) { return taken ? "T" : "F"; }

// A decimal integer, optionally negative: what Z3's models give for Int inputs.
bool is_integer(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Result<std::uint64_t> number_option(const trace::Header& h, const std::string& key,
                                    const std::string& source) {
  const std::optional<std::string> text = h.option(key);
  std::uint64_t value = 0;
  if (!text || text->empty() ||
      std::from_chars(text->data(), text->data() + text->size(), value).ptr !=
          text->data() + text->size()) {
    return Status::invalid(source + ":1: the header needs " + key +
                           "=NUMBER (a worst-case trace written by prowl worst-case has it)");
  }
  return value;
}

}  // namespace

trace::Trace witness_trace(const Program& program, const SearchResult& result,
                           std::string_view search, Objective objective) {
  trace::Trace t;
  t.header.model = program.name;
  t.header.set_option("kind", "worst-case");
  t.header.set_option("n", std::to_string(result.n));
  t.header.set_option("length", std::to_string(result.longest));
  t.header.set_option("search", std::string(search));
  t.header.set_option("objective", objective == Objective::kCost ? "cost" : "decisions");
  trace::Step step;
  step.action = "input";
  for (const auto& [name, value] : result.input) step.args.push_back(name + "=" + value);
  for (const PathStep& d : result.path) {
    step.comments_before.push_back(side(d.taken) + " " + d.site.name());
  }
  t.steps.push_back(std::move(step));
  return t;
}

Result<WitnessReplay> replay_witness(const std::vector<Program>& programs, const trace::Trace& t,
                                     const std::string& source) {
  if (t.header.option("kind") != "worst-case") {
    return Status::invalid(source +
                           ":1: not a worst-case trace (its header has no kind=worst-case)");
  }
  const Program* program = nullptr;
  std::string names;
  for (const Program& p : programs) {
    if (p.name == t.header.model) program = &p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  if (program == nullptr) {
    return Status::invalid(source + ":1: the trace is of program '" + t.header.model +
                           "', which this binary does not have (it has: " + names + ")");
  }
  Result<std::uint64_t> n = number_option(t.header, "n", source);
  if (!n) return n.status();
  Result<std::uint64_t> length = number_option(t.header, "length", source);
  if (!length) return length.status();
  if (*n < 1 || *n > 1000000) return Status::invalid(source + ":1: n must be 1 to 1000000");
  WitnessReplay out;
  out.program = program->name;
  out.n = static_cast<int>(*n);
  out.recorded = *length;
  out.objective = t.header.option("objective") == "cost" ? Objective::kCost : Objective::kDecisions;
  if (t.steps.size() != 1 || t.steps[0].action != "input") {
    return Status::invalid(source + ":" + std::to_string(t.steps.empty() ? 1 : t.steps[0].line) +
                           ": a worst-case trace has one step, input NAME=VALUE...");
  }
  const trace::Step& step = t.steps[0];
  std::vector<std::pair<std::string, std::string>> input;
  for (const std::string& arg : step.args) {
    const std::size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || !is_integer(std::string_view(arg).substr(eq + 1))) {
      return Status::invalid(source + ":" + std::to_string(step.line) + ": '" + arg +
                             "' is not NAME=INTEGER");
    }
    input.emplace_back(arg.substr(0, eq), arg.substr(eq + 1));
  }
  detail::Executor executor(*program, out.n, UINT32_MAX);
  try {
    detail::PathRecord r = executor.replay(input);
    out.path = std::move(r.decisions);
    out.replayed = out.objective == Objective::kCost ? r.cost : out.path.size();
  } catch (const detail::ProgramError& e) {
    return Status::invalid(source + ": " + program->name + ": " + e.what());
  } catch (const z3::exception& e) {
    return Status::invalid(source + ": " + program->name + ": " + e.msg());
  }
  // The decisions the comments list, when they list them.
  std::vector<std::string> listed;
  for (const std::string& c : step.comments_before) {
    if (c.rfind("T ", 0) == 0 || c.rfind("F ", 0) == 0) listed.push_back(c);
  }
  if (!listed.empty()) {
    out.same_decisions = listed.size() == out.path.size();
    for (std::size_t i = 0; out.same_decisions && i < listed.size(); ++i) {
      out.same_decisions = listed[i] == side(out.path[i].taken) + " " + out.path[i].site.name();
    }
  }
  return out;
}

}  // namespace prowl::wc
