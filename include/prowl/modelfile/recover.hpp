// Recovering what a killed run of a model file left behind, without exploring (`prowl recover
// MODEL`): each database the file declares is locked and, when a run that did not end left a
// recovery record there, put back as it was before that run (prowl/systems/db_guard.hpp); the
// worker copies such runs left in the temporary directory are removed. A run does the same when it
// begins; this does it alone, starting no service. Stateless; safe from any thread.
#pragma once

#include <string>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/modelfile/spec.hpp"

namespace prowl::modelfile {

// One line for each thing done: a database put back, a stale copy removed; empty when there was
// nothing to do. An environment Status when a database is held by another run or cannot be
// reached, or its record cannot be read (the message says what to do).
// With `force`, a SQLite database changed after the killed run's last sign of life (or a file
// that replaced the one its record was written for) is put back all the same; without it, that is
// refused (prowl/systems/db_guard.hpp, GuardOptions).
Result<std::vector<std::string>> recover(const ModelSpec& spec, bool force = false);

}  // namespace prowl::modelfile
