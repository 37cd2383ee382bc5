// Reading a whole file that a user gave (a trace, a system file, a policy file) for a parser.
#pragma once

#include <string>
#include <string_view>

#include "prowl/core/status.hpp"

namespace prowl {

// The content of the file at `path`; an invalid Status "PATH: cannot read the WHAT: REASON" when
// it cannot be opened (WHAT names the kind of file: "trace file").
Result<std::string> read_text_file(const std::string& path, std::string_view what);

}  // namespace prowl
