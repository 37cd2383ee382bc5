// The operations of an OpenAPI document as `prowl init` makes actions of them, and the names it
// gives: action names, context keys, the base path of a server. Stateless functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "openapi_document.hpp"

namespace prowl::modelfile::detail {

struct Operation {
  std::string path;    // as the document writes it: /pets/{petId}
  std::string method;  // lower case: get, post, ...
  YAML::Node node;     // the operation object
  // Resolved: the path item's parameters, replaced by the operation's of the same name and
  // place, then the operation's others, in the document's order.
  std::vector<YAML::Node> parameters;
  std::string name;  // the action's name, unique among the operations

  // The path parameter `name`, or an undefined node.
  YAML::Node path_param(std::string_view name) const;
};

// The operations under `paths`, in the document's order. Named by operationId (made a name:
// other characters become '_'), else by method and path ("get_pets_pet_id"); a name taken
// before gets "_2", "_3", ... TRACE operations (the model file cannot send them) are left out
// and described in `skipped`.
std::vector<Operation> collect_operations(const OpenApiDocument& doc,
                                          std::vector<std::string>& skipped);

// The operation a link object names by operationId or by operationRef ("#/paths/~1pets/get"),
// or nullptr.
const Operation* find_operation(const std::vector<Operation>& ops, const YAML::Node& link);

// The JSON media type of a content map: application/json, else the first whose name holds
// "json", else */*; undefined when there is none.
YAML::Node json_media(const YAML::Node& content);
// The schema of the operation's first 2xx answer with a JSON body, or an undefined node.
YAML::Node success_schema(const OpenApiDocument& doc, const Operation& op);

// The path of a server's URL, its variables replaced by their defaults, without a trailing
// '/': "http://{host}/v1/" -> "/v1"; "" when it has none.
std::string server_path(const YAML::Node& server);
// Whether `path` looks like a health check (/health, /healthz, /ready, /livez, /ping, ...).
bool is_health_path(std::string_view path);

// `text` as a name of the model file: letters, digits, '_', '-' and '.', starting with a letter
// or '_'; every run of other characters becomes one '_'; "x" when nothing is left.
std::string identifier(std::string_view text);
// `text` in snake_case: "showPetById" -> "show_pet_by_id", "Swagger Petstore" ->
// "swagger_petstore".
std::string snake_case(std::string_view text);
// The context key of path parameter `param` in `path`: its name in snake_case, or for a bare
// "id" the singular of the segment before it and "_id" ("/orders/{id}" -> "order_id").
std::string key_for(std::string_view path, std::string_view param);

}  // namespace prowl::modelfile::detail
