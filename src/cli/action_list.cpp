#include "action_list.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "prowl/core/plural.hpp"

namespace prowl::detail {

namespace {

std::string_view timing_text(Timing t) {
  switch (t) {
    case Timing::kBefore:
      return "checked before each action";
    case Timing::kAfter:
      return "checked after each action";
    case Timing::kBoth:
      return "checked before and after each action";
  }
  return "checked after each action";
}

}  // namespace

void write_action_list(std::ostream& out, const Model& model) {
  out << fmt::format("model {}: {}, {}\n", model.name(),
                     plural(model.actions().size(), "action", "actions"),
                     plural(model.invariants().size(), "invariant", "invariants"));
  if (!model.state_keys().empty()) {
    out << fmt::format("state keys: {}\n", fmt::join(model.state_keys(), ", "));
  }
  out << "\nactions:\n";
  for (const Action& a : model.actions()) {
    out << "  " << a.name << '\n';
    if (!a.description.empty()) out << "    " << a.description << '\n';
    if (a.family >= 0) {
      // A state-given parameter: which of the state's values this action takes.
      const ActionFamily& family = model.families()[static_cast<std::size_t>(a.family)];
      const auto k = static_cast<std::size_t>(&a - model.actions().data()) - family.first;
      const std::vector<std::size_t> choice = family.choice(k);
      for (std::size_t p = 0; p < family.params.size(); ++p) {
        const auto& [name, domain] = family.params[p];
        if (domain.slots == 0) continue;
        out << fmt::format("    {}: value #{} in the state it runs in, of {}\n", name, choice[p],
                           domain.source);
      }
    }
    std::vector<std::string> facts;
    if (!a.after.empty()) facts.push_back(fmt::format("after {}", fmt::join(a.after, ", ")));
    if (!a.requires_keys.empty()) {
      facts.push_back(fmt::format("requires {}", fmt::join(a.requires_keys, ", ")));
    }
    if (!a.preconditions.empty()) {
      facts.push_back(plural(a.preconditions.size(), "precondition", "preconditions"));
    }
    if (a.max_per_path > 0) facts.push_back(fmt::format("at most {} per path", a.max_per_path));
    if (a.max_per_run > 0) facts.push_back(fmt::format("at most {} per run", a.max_per_run));
    facts.push_back(fmt::format("weight {}", a.weight));
    out << fmt::format("    {}\n", fmt::join(facts, "; "));
  }
  out << "\ninvariants:\n";
  if (model.invariants().empty()) out << "  (none)\n";
  for (const Invariant& inv : model.invariants()) {
    out << fmt::format("  {} ({}, {})\n", inv.name, to_string(inv.severity),
                       timing_text(inv.timing));
    if (!inv.description.empty()) out << "    " << inv.description << '\n';
  }
}

}  // namespace prowl::detail
