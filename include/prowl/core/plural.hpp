// Counts in messages and reports: "1 step", "2 steps".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace prowl {

// `n` and the word for it: `one` when n is 1, else `many`.
std::string plural(std::uint64_t n, std::string_view one, std::string_view many);

}  // namespace prowl
