// Policy files: a trained Mlp and what it was trained for, as text that reads back exactly.
//
//   prowl-policy 1                the magic line and the format version
//   sizes=3,2,1                   the architecture: {inputs, hidden..., outputs}
//   activation=relu               the hidden activation: relu or tanh
//   program=insertion_sort        the caller's metadata, key=value, in the caller's order
//   seed=42
//   weights 1                     layer 1 (inputs -> first hidden): one line per row of its
//   0.5 -0.25 1                   weights, one number per input of the layer
//   0.125 2 -3
//   bias 1                        then its biases on one line, one per row
//   0 0.5
//   weights 2
//   1 -1
//   bias 2
//   0.25
//   vector encoder 3              then any named parameter vectors (a graph encoder's), each a
//   0.5 -1 2                      "vector NAME COUNT" line and one line of COUNT numbers
//
// Lines end with '\n' (a '\r' before it is dropped on reading). Numbers are written with
// "%.17g", so that every double reads back bit for bit, separated by one space (any run of spaces
// and tabs reads). Keys are letters, digits, '_', '-' and '.'; a value is everything after the
// first '=' up to the end of its line, spaces included. sizes= and activation= are written first,
// from the network; they are not part of PolicyFile::header.
//
// Reading never trusts the text: every error is an invalid Status "SOURCE:LINE: what is wrong;
// how to fix it" (a wrong first line, another version, a missing or repeated key, a row with the
// wrong count of numbers, a missing layer, text that is not a finite number), and memory grows
// with the size of the text, not with the sizes it claims. No shared state: the functions may run
// on several threads at once, except two write_policy_file calls for one path in one process
// (they would share the temporary file).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/learn/mlp.hpp"

namespace prowl::learn {

inline constexpr int kPolicyFormatVersion = 1;

struct PolicyFile {
  // The caller's metadata (program=, history=, features=, seed=, env=, ...) in order.
  std::vector<std::pair<std::string, std::string>> header;
  Mlp network;
  // Named parameter vectors beyond the network, in order (names as keys, unique).
  std::vector<std::pair<std::string, Eigen::VectorXd>> vectors = {};
};

// Whether `key` may name a header line: not empty, letters, digits, '_', '-' and '.' only.
bool valid_policy_key(std::string_view key);

// The text of a policy file. parse_policy(write_policy(p)) gives back p's header and p's network
// (sizes, activation, every weight and bias bit for bit; not its options or optimizer state).
// REQUIRES: every key is valid_policy_key, unique, and neither "sizes" nor "activation"; no value
// holds '\n' or '\r'; p.network.all_finite().
std::string write_policy(const PolicyFile& policy);

// Reads a policy file's text; `source` names it in messages. The network gets default
// MlpOptions.
Result<PolicyFile> parse_policy(std::string_view text, const std::string& source);

// Reads the policy file at `path`: an unreadable file is an invalid Status naming it.
Result<PolicyFile> read_policy_file(const std::string& path);

// Writes write_policy(policy) to `path` through a temporary file beside it (PATH.tmp.PID),
// flushed to disk and renamed over `path`, so that `path` holds either its old content or the
// whole new file, never part of one. A network with a non-finite weight (training diverged) is
// an invalid Status and nothing is written; failing to write is an environment Status naming the
// file. REQUIRES: the header as for write_policy.
Status write_policy_file(const std::string& path, const PolicyFile& policy);

}  // namespace prowl::learn
