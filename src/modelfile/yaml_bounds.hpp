// Bounds on a model file's YAML, checked before anything is built from it (the limits are in
// prowl/modelfile/loader.hpp). yaml-cpp's node API shares an aliased node instead of copying it,
// but whatever walks the document expands every alias (the reader turns a body into JSON): a
// "billion laughs" file of 1 KB, anchors each made of nine aliases of the one before, becomes
// billions of nodes. check_yaml_bounds() reads the document's events only (YAML::Parser with an
// EventHandler), builds nothing, and keeps per anchor the number of nodes and the depth its node
// has once expanded, so that the size of the whole document is known at each alias without
// expanding it. It stops at the first node that crosses a limit, before yaml-cpp's own parser
// recurses deeper than the depth limit.
//
// yaml-cpp's scanner has a cost of its own: it holds every token of a flow collection that
// begins the document or a list entry until the collection closes (a simple key might still turn
// up), at over a hundred bytes a token, before any event. So the text is fed to it through a
// stream that stops (end of input) once 65536 indicator characters (brackets, commas, colons,
// quotes, ...) have been read without an event: 4 MiB of "[1,1,..." or "[[[[..." stays near
// 30 MB instead of 0.5 to 1 GB. Such a cut is reported as itself, whatever yaml-cpp makes of the
// truncated text. Stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "prowl/core/status.hpp"
#include "prowl/modelfile/loader.hpp"
#include "yaml_reader.hpp"

namespace prowl::modelfile::detail {

// The limits a document is held to: a model file's by default (prowl/modelfile/loader.hpp);
// an OpenAPI document may be larger.
struct YamlBounds {
  std::uint64_t nodes = kMaxModelNodes;
  std::size_t depth = kMaxModelDepth;
  std::uint64_t bytes = kMaxModelExpandedBytes;
};

// Ok, or Status::invalid "FILE:LINE:COL: message" (named by `reader`) for the first node that
// crosses bounds.nodes or bounds.depth, an alias inside the node it names (a cycle, which no
// expansion ends), or a YAML syntax error.
Status check_yaml_bounds(std::string_view text, const Reader& reader, YamlBounds bounds = {});

// Ok, or "FILE:LINE:COL: the file is not UTF-8 text (byte 0xNN)" at the first byte that breaks
// UTF-8 (every string read ends up in JSON, which must be UTF-8).
Status check_utf8(std::string_view text, const Reader& reader);

// A YAML syntax error as the loader reports it, with its hint.
Status yaml_syntax_error(const YAML::Exception& e, const Reader& reader);

}  // namespace prowl::modelfile::detail
