// Reading a model file (docs/model-file.md) into a ModelSpec.
//
// Every problem is a Status::invalid whose message starts with "FILE:LINE:COL: " (1-based, the
// position of the offending key or value) and may end with a line "  hint: ...": YAML syntax
// errors, unknown keys (with the closest known key), values of the wrong type, a context key that
// a template, condition or state key names but nothing binds, an environment variable that is not
// set. Nothing is started or sent while reading. A file that cannot be read is Status::invalid
// too (a bad argument). Stateless functions, safe to call from any thread (they read the process
// environment).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/modelfile/spec.hpp"

namespace prowl::modelfile {

// Reads and checks the model file at `path`. Relative paths in the file are relative to the
// directory that holds it.
Result<ModelSpec> read_model_file(const std::string& path);

// Reads and checks model text. `file` names it in messages; relative paths in it resolve against
// `base_dir`.
Result<ModelSpec> parse_model(std::string_view text, const std::string& file,
                              const std::string& base_dir);

// The known word closest to `word` (edit distance at most a third of its length, at least 1; else
// a known word that starts with it or that it starts with, 3 letters at least), or "" when none
// is close. For "did you mean" hints.
std::string closest_word(std::string_view word, const std::vector<std::string>& known);

}  // namespace prowl::modelfile
