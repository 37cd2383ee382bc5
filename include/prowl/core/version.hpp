// prowl's version, for --version, `prowl version` and the reports. It must equal the version in the
// project() call of the top-level CMakeLists.txt; the black-box test cli.prowl_version checks that
// it does.
#pragma once

#include <string_view>

namespace prowl {

std::string_view version();

}  // namespace prowl
