#include "prowl/core/version.hpp"

namespace prowl {

std::string_view version() { return PROWL_VERSION; }

}  // namespace prowl
