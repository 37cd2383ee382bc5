// The command line of worst-case search (docs/worst-case.md), for `prowl worst-case` and for the
// binaries users build around their own functions:
//
//   int main(int argc, char** argv) {
//     return prowl::wc::run_main({{"my_sort", "my sort", my_sort}}, argc, argv);
//   }
//
//   BINARY PROGRAM --n 3,4,5 [--search exhaustive|wise|spf-wca|pyse] [--train-n 6,7]
//          [--history 2] [--pretrain-n 5] [--seed S] [--policy-in FILE] [--policy-out FILE]
//          [--max-paths P] [--max-depth D] [--time-limit S] [--objective decisions|cost]
//          [--json FILE] [--trace-dir DIR]
//   BINARY replay TRACE
//   BINARY --list
//
// Exit codes: 0 every search ran to its end; 2 bad usage, program or trace; 3 a file that could
// not be written; 4 a limit (paths, time) stopped a search; 130/143/129 a signal (the report and
// the traces of what was found are written). replay: 1 the input takes a path as long as the
// trace records (the worst case reproduces), 0 it does not, 2 a bad trace.
#pragma once

#include <string_view>
#include <vector>

#include "prowl/worstcase/sym_exec.hpp"

namespace prowl::wc {

// `command` names the binary in usage and messages ("prowl worst-case").
int run_main(const std::vector<Program>& programs, int argc, char** argv,
             std::string_view command = {});

}  // namespace prowl::wc
