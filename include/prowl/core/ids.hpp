// Identifiers shared by every module: states of the explored graph and actions of a model.
#pragma once

#include <cstdint>

namespace prowl {

using StateId = std::uint32_t;
using ActionId = std::uint32_t;
inline constexpr StateId kNoState = 0xffffffffu;
inline constexpr ActionId kNoAction = 0xffffffffu;

// One (state, action) pair of the exploration: run `action` from `state`.
struct Pair {
  StateId state = kNoState;
  ActionId action = kNoAction;
  friend bool operator==(const Pair&, const Pair&) = default;
};

// One executed transition: `action` run from state `from` reached state `to`.
struct Edge {
  StateId from = kNoState;
  ActionId action = kNoAction;
  StateId to = kNoState;
  friend bool operator==(const Edge&, const Edge&) = default;
};

}  // namespace prowl
