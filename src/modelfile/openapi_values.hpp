// Values `prowl init` derives from the schemas of an OpenAPI document: examples, the smallest
// valid value of a schema, the domain a parameter can range over (params:), and the checks an
// answer's schema implies. $refs are followed; a schema that contains itself (a tree node with a
// required child node) is cut where it would repeat. Stateless functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "openapi_document.hpp"

namespace prowl::modelfile::detail {

// Bodies and values keep the document's key order.
using OJson = nlohmann::ordered_json;

// How deep nested schemas and values are followed; deeper parts become null.
inline constexpr int kMaxSchemaDepth = 32;
// The most values a parameter may range over to become params: (an enum or an integer range).
inline constexpr std::size_t kMaxDomainValues = 16;

// A YAML node as JSON: plain scalars typed as the model file types them (null, true/false,
// integers, decimals), quoted scalars strings, mappings objects (scalar keys), sequences arrays.
OJson yaml_to_json(const YAML::Node& node);

// An object schema's properties with those of its allOf parts (and theirs) merged in: (name,
// schema) in the document's order, and the names it requires.
struct ObjectShape {
  std::vector<std::pair<std::string, YAML::Node>> properties;
  std::vector<std::string> required;
  bool requires_name(const std::string& name) const;
};
ObjectShape object_shape(const OpenApiDocument& doc, const YAML::Node& schema);

// The example a parameter, media type or schema gives: `example`, else the first `examples`
// entry (a list of values in 3.1 schemas; a mapping of Example objects, taking `value`,
// elsewhere), else those of its `schema`. nullopt when there is none.
std::optional<OJson> example_of(const OpenApiDocument& doc, const YAML::Node& holder);

// The smallest valid value of `schema`: its example, const, first enum value or default when it
// has one; else an object of its required properties only, an array of minItems elements, a
// string of minLength 'a's (at least one) or a sample of its format (date, date-time, uuid,
// email, uri), a number at its minimum (one above an exclusive minimum, up to a multipleOf) or
// else 0 (or its maximum when that is negative), false; the first alternative of oneOf/anyOf;
// null for a schema without a type, and where a schema would contain itself.
OJson minimal_value(const OpenApiDocument& doc, const YAML::Node& schema);

// What params: can range over: an enum of 2 to kMaxDomainValues numbers or strings (no two that
// read the same, as 1 and "1"), or an integer range of 2 to kMaxDomainValues values.
struct SchemaDomain {
  std::vector<OJson> one_of;  // empty for a range
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};
std::optional<SchemaDomain> domain_of(const OpenApiDocument& doc, const YAML::Node& schema);

// One check of a `get:` invariant: {pointer: P, OP: operand} with OP one of exists, equals,
// at_least, greater_than, at_most, less_than.
struct Check {
  std::string pointer;
  std::string op;
  OJson operand;
  bool operator==(const Check&) const = default;
};
// The checks an answer's schema implies, for each required property (nested objects followed):
// its bounds (minimum, maximum, exclusive ones) when it is a number, equals when it has a single
// enum value or a const, and else exists: true. None for a schema that is not an object.
std::vector<Check> response_checks(const OpenApiDocument& doc, const YAML::Node& schema);

// `text` with every "${" written "$${", so that the model file sends it as it is.
std::string escape_template(std::string_view text);
// The same for every string (not key) of `value`.
void escape_templates(OJson& value);

}  // namespace prowl::modelfile::detail
