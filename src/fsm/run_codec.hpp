// How a forked run sends its RunResult back to the parent, and how the parent turns the way the
// child ended into one. Private to src/fsm.
#pragma once

#include <string>

#include "prowl/fsm/isolate.hpp"
#include "prowl/fsm/runner.hpp"

namespace prowl::fsm::detail {

std::string encode_run(const RunResult& result);
// The RunResult of an isolated run: the decoded payload when the child exited normally,
// otherwise a crash (signal, or an exit without a result) or a timeout.
RunResult classify_isolated(const Isolated& isolated, double timeout_seconds);

}  // namespace prowl::fsm::detail
