// System files: a TransitionSystem written in YAML, its expressions SMT-LIB terms that Z3 parses
// against the declared symbols (docs/symbolic.md, "System files"):
//
//   system: counter2
//   vars: {x: Int, y: Int}
//   inputs:
//     p: {sort: Int, values: [1, 2]}
//   init: (and (= x 0) (= y 0))
//   transitions:
//     - name: inc
//       guard: (and (< x 3) (<= 1 p) (<= p 2))
//       update: {x: (+ x p)}
//   invariants:
//     bounded: (<= x 4)
//
// Every error is an invalid Status "FILE:LINE:COL: where: what" naming the field, with a hint.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <z3++.h>

#include "prowl/core/status.hpp"
#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

struct SystemFile {
  std::string path;
  std::unique_ptr<TransitionSystem> system;
  // Per input, in declaration order: the values it takes in an explicit model (`values:` or
  // `range:`), or nullopt when the file gives none.
  std::vector<std::optional<std::vector<z3::expr>>> domains;
};

// Reads a system file; `source` names it in messages.
Result<SystemFile> parse_system_file(z3::context& context, std::string_view text,
                                     const std::string& source);
Result<SystemFile> read_system_file(z3::context& context, const std::string& path);

}  // namespace prowl::sym
