// The JUnit XML report (`--report junit:FILE`), for CI test tabs: one test suite per run, one test
// case per invariant and per action, and per bug (report/groups.hpp) a <failure> on the invariant
// it breaks or an <error> on the action that failed, whose text is the bug as the console shows
// it (the shortest path's steps, then the other paths). The run's figures are the suite's
// properties. Text from the system under test is escaped (escape.hpp) and then XML-escaped, so
// the document is well-formed XML 1.0 whatever the service wrote. Pure functions, thread-safe.
#pragma once

#include <string>

#include "prowl/core/status.hpp"
#include "prowl/explore/report.hpp"

namespace prowl {

std::string to_junit(const RunReport& report);

// Writes to_junit(report) to `path`. An environment Status naming the file when it cannot.
Status write_junit_report(const RunReport& report, const std::string& path);

}  // namespace prowl
