#include "prowl/core/plural.hpp"

#include <fmt/format.h>

namespace prowl {

std::string plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace prowl
