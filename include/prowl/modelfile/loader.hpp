// Reading a model file (docs/model-file.md) into a ModelSpec.
//
// Every problem is a Status::invalid whose message starts with "FILE:LINE:COL: " (1-based, the
// position of the offending key or value) and may end with a line "  hint: ...": YAML syntax
// errors, unknown keys (with the closest known key), values of the wrong type, a context key that
// a template, condition or state key names but nothing binds, an environment variable that is not
// set. Nothing is started or sent while reading. A file that cannot be read is Status::invalid
// too (a bad argument).
//
// The YAML is bounded before anything is built from it, so that a small hostile file cannot take
// the time or memory of a large one: the file's size (kMaxModelFileBytes; the message names the
// file but no line), the number of nodes once every alias is expanded (kMaxModelNodes) and the
// depth of nesting (kMaxModelDepth) and the text (kMaxModelExpandedBytes), the last three at the
// node that crosses the limit; and how much
// the YAML reader may hold before it completes a node (65536 brackets, commas and other
// indicators: a [...] or {...} collection that begins the document or a list entry is held whole
// until it closes).
//
// Stateless functions, safe to call from any thread (they read the process environment).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/modelfile/spec.hpp"

namespace prowl::modelfile {

// The largest model file read: "FILE: the model file is N bytes; model files are limited to
// 4 MiB".
inline constexpr std::size_t kMaxModelFileBytes = std::size_t{4} << 20;
// The most nodes (scalars, lists, mappings; map keys included) a document may have with every
// alias expanded: "FILE:LINE:COL: aliases expand the document to more than 100000 nodes" at the
// alias that crosses it ("the document has more than 100000 nodes" at a node that is not one).
inline constexpr std::size_t kMaxModelNodes = 100000;
// The deepest nesting of lists and mappings, aliases expanded: "FILE:LINE:COL: the document
// nests deeper than 64 levels".
inline constexpr std::size_t kMaxModelDepth = 64;
// The most text (bytes of scalars) a document may hold with every alias expanded, so that a few
// large scalars repeated by aliases cannot cost what their copies would: "FILE:LINE:COL: aliases
// expand the document to more than 16 MiB of text" at the alias that crosses it.
inline constexpr std::size_t kMaxModelExpandedBytes = std::size_t{16} << 20;

struct ReadOptions {
  // True: every ${env:NAME} is replaced by the variable's value, and an unset variable is an
  // error. False: no environment variable is read; every reference stays as it is written, and
  // shows as "${env:NAME}" wherever the spec holds text (checks that need the value, such as
  // base_url's scheme, are skipped for it). The spec is marked list_only: it is good for listing
  // the model's actions and invariants (`prowl explore --list-actions`), which starts nothing,
  // and HttpModel refuses to build a world from it.
  bool resolve_env = true;
};

// Reads and checks the model file at `path`. Relative paths in the file are relative to the
// directory that holds it.
Result<ModelSpec> read_model_file(const std::string& path, ReadOptions options = {});

// Reads and checks model text. `file` names it in messages; relative paths in it resolve against
// `base_dir`.
Result<ModelSpec> parse_model(std::string_view text, const std::string& file,
                              const std::string& base_dir, ReadOptions options = {});

// The known word closest to `word` (edit distance at most a third of its length, at least 1; else
// a known word that starts with it or that it starts with, 3 letters at least), or "" when none
// is close. For "did you mean" hints.
std::string closest_word(std::string_view word, const std::vector<std::string>& known);

}  // namespace prowl::modelfile
