// Writes the model `prowl init` planned (openapi_plan.hpp) as model file text, and the YAML
// quoting it needs: every string that came from the document is written so that it reads back
// as the same string, whatever it holds (": #", quotes, line breaks, "true", "1"). Stateless.
#pragma once

#include <string>
#include <string_view>

#include "openapi_plan.hpp"
#include "openapi_values.hpp"
#include "prowl/modelfile/openapi.hpp"

namespace prowl::modelfile::detail {

// `text` as a YAML scalar: plain when that reads back as the same string (letters, digits and
// "_./ -", starting with a letter, '_' or '/', not a word YAML or the model file gives a type,
// such as true, null or no; in block context also '$', '{' and '}'), else double-quoted with
// escapes (\", \\, \n, \xNN, \L, ...).
std::string yaml_string(std::string_view text, bool flow);
// A JSON value in YAML flow style: {a: 1, b: [x, "y z"]}; numbers, booleans and null plain.
std::string yaml_flow(const OJson& value);
// `text` made one comment line: line breaks and other control characters become spaces.
std::string comment_text(std::string_view text);

// The model file. `source` names the document in the first comment.
std::string write_model(const ModelPlan& model, const OpenApiInitOptions& options,
                        std::string_view source);

}  // namespace prowl::modelfile::detail
