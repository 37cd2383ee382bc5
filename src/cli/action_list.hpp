// The --list-actions text: a model's actions (name, description, dependencies, required keys,
// limits, weight) and invariants (name, severity, timing, description). Deterministic.
#pragma once

#include <ostream>

#include "prowl/explore/model.hpp"

namespace prowl::detail {

void write_action_list(std::ostream& out, const Model& model);

}  // namespace prowl::detail
