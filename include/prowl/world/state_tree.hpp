// StateTree: the shortest-path tree of the explored states as the RestorePlanner sees it. The
// explorer's Graph implements it; tests implement it with a small table.
#pragma once

#include <cstdint>

#include "prowl/core/fingerprint.hpp"
#include "prowl/core/ids.hpp"

namespace prowl {

class StateTree {
 public:
  virtual ~StateTree() = default;
  // kNoState for the initial state.
  virtual StateId parent(StateId s) const = 0;
  virtual ActionId parent_action(StateId s) const = 0;
  virtual std::uint32_t depth(StateId s) const = 0;
};

}  // namespace prowl
