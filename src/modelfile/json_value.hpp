// JSON helpers of the model file runtime: context values to and from JSON, comparison for JSON
// checks, and the one-line rendering of a body in a report. Stateless.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "prowl/core/context.hpp"

namespace prowl::modelfile::detail {

// Responses and checks use nlohmann::json (objects compare whatever their key order); request
// bodies keep the model file's key order (ordered_json).
using Json = nlohmann::json;

template <class J = Json>
J to_json(const Value& value) {
  struct Visitor {
    J operator()(std::monostate) const { return nullptr; }
    J operator()(bool b) const { return b; }
    J operator()(std::int64_t i) const { return i; }
    J operator()(double d) const { return d; }
    J operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

// A JSON scalar as a context value (unsigned integers above INT64_MAX become doubles); nullopt
// for arrays and objects.
std::optional<Value> to_value(const Json& json);

// The parsed body, or nullopt when it is not one JSON document.
std::optional<Json> parse_json(std::string_view text);

// The value at a JSON Pointer ("" is the whole document), or nullptr when there is none (a
// missing key, an index out of range or not a number). REQUIRES: a syntactically valid pointer.
const Json* find_pointer(const Json& doc, const std::string& pointer);
// A key as one token of a JSON Pointer: '~' as "~0", '/' as "~1".
std::string pointer_token(std::string_view key);

enum class Order { kLess, kEqual, kGreater, kUnordered };
// Numbers compare numerically (1 == 1.0), strings by bytes; any other pair of values is equal or
// unordered (JSON equality of arrays, objects, booleans and null).
Order compare(const Json& a, const Json& b);

// A body on one line for a step's detail: compact JSON (keys in the order received) when it is
// JSON, else the text with control characters escaped ("\n", "\t", "\x01"). Cut after max_bytes
// (at a UTF-8 boundary) and followed by "... (N more bytes)". "(empty)" for an empty body.
std::string one_line(std::string_view body, std::size_t max_bytes);

// `text` cut to at most max_bytes at a UTF-8 character boundary, with "... (N more bytes)".
std::string truncate_utf8(std::string_view text, std::size_t max_bytes);

}  // namespace prowl::modelfile::detail
