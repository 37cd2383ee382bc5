// The Journal's API as a prowl FSM: journals are opened as handles (j1, j2, ...), keys and values
// are small integers, and a reference model (a map, and its copy at begin()) is the oracle: get()
// must return what the reference holds. Used by the journal_fuzz program and the FSM tests.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "journal.hpp"
#include "prowl/fsm/machine.hpp"

namespace journal {

// One fuzz run's target: the open journals, each beside its reference model.
struct Target {
  struct Open {
    std::shared_ptr<Journal> journal = std::make_shared<Journal>();
    std::map<int, int> expected;
    std::optional<std::map<int, int>> before_tx;
  };
  int opened = 0;
};

// The machine: state "empty" (no journal yet) -> "open" (journals to call) -> "closed" (final).
// Keys are drawn from [0, keys), values from [0, 100).
prowl::fsm::Machine<Target> make_machine(int keys = 2);

}  // namespace journal
