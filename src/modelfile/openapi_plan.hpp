// The model `prowl init` makes of an OpenAPI document, as plain data before it is written: which
// actions, how each path parameter gets its value (a binding an earlier answer makes, a params:
// domain, or a context value the user must check), the observations and the invariants. Strings
// that the model file reads as templates (paths, query values, bodies, check values) are already
// escaped ("$${"); the writer only quotes. Value types; plan_model is a stateless function.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "openapi_document.hpp"
#include "openapi_values.hpp"

namespace prowl::modelfile::detail {

struct ParamPlan {
  std::string name;
  SchemaDomain domain;
};

struct ActionPlan {
  std::string name;
  std::string description;  // the operation's summary (else its description's first line)
  std::string method;       // GET, POST, ...
  std::string path;         // a template: /orders/${order_id}/pay
  std::vector<std::pair<std::string, OJson>> query;
  std::vector<std::pair<std::string, OJson>> headers;
  std::optional<OJson> body;
  std::vector<ParamPlan> params;
  std::vector<std::string> ok;                            // "201", "2xx"; empty: the default (2xx)
  std::vector<std::string> rejected;                      // "404", "4xx"
  std::vector<std::pair<std::string, std::string>> bind;  // context key, JSON Pointer
  std::vector<std::string> unbind;
  std::vector<std::string> needs;  // keys the path uses that another action binds
  std::vector<std::string> todos;  // what the user must decide, one comment line each
};

struct ContextPlan {
  std::string key;
  OJson value;  // a scalar
  std::string todo;
};

struct ObservePlan {
  std::string name;
  std::string path;
};

struct InvariantPlan {
  std::string name;
  std::string path;
  std::vector<std::string> status;
  std::vector<Check> checks;
};

struct ModelPlan {
  std::string name;                   // a name made of the document's title
  std::string title;                  // "Shop API 1.0.0"
  std::string server;                 // the first server's URL as written, or ""
  std::string base_path;              // its path, which base_url keeps: "/v1"
  std::string health;                 // a GET without parameters named like a health check, or ""
  std::vector<std::string> security;  // the security schemes the document declares
  std::vector<ContextPlan> context;
  std::vector<std::string> state_keys;
  std::vector<ObservePlan> observe;
  std::vector<ActionPlan> actions;
  std::vector<InvariantPlan> invariants;  // the GET invariants; no_5xx is always written
  std::vector<std::string> skipped;       // operations prowl cannot send, and why
};

// The model of `doc`; see prowl/modelfile/openapi.hpp for what it holds.
ModelPlan plan_model(const OpenApiDocument& doc);

}  // namespace prowl::modelfile::detail
