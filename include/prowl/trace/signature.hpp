// Failure signatures: two failures are "the same" when their normalized texts are equal. Fuzzing
// buckets findings by signature and shrinking keeps a candidate only when its failure has the
// signature of the original.
#pragma once

#include <string>
#include <string_view>

namespace prowl::trace {

// Masks what changes from run to run without changing the failure: hexadecimal addresses
// (0x7ffd...) become "0x?", every other run of decimal digits (pids, sizes, line numbers,
// handle numbers) becomes "N"; whitespace runs become one space; the result is trimmed and cut
// to 300 bytes.
std::string normalize_signature(std::string_view text);

}  // namespace prowl::trace
