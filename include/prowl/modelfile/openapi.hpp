// `prowl init --openapi`: a starter model file (docs/model-file.md) written from an OpenAPI 3.0 or
// 3.1 document (YAML or JSON).
//
// One action per operation; path parameters bound from earlier answers (OpenAPI links, else the
// id of what the operation on the collection creates); request bodies from the examples, else
// the smallest valid value; params: from enums and small integer ranges; rejected: from the
// documented 4xx statuses; a no_5xx response rule; a GET invariant per read operation from the
// bounds its answer's schema documents; and "# TODO:" comments where only the user can decide
// (the service command, the database, authentication, bodies without an example). The text is
// deterministic: the same document gives the same bytes.
//
// Every problem with the document is a Status::invalid (exit code 2) whose message names the
// file, and the line and column where there is one ("FILE:LINE:COL: message"), followed by a
// line "  hint: ..." that says how to fix it. Stateless functions, safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "prowl/core/status.hpp"

namespace prowl::modelfile {

struct OpenApiInitOptions {
  // The command that starts the service, written as the process system's command (one string,
  // run by /bin/sh -c in the model file's directory; {port} is the port prowl picks). Empty: a
  // command that only says it must be written, and a TODO.
  std::string command;
  // How the model's first comment names the document (default: the file's name, without its
  // directory).
  std::string source;
};

// The largest OpenAPI document read: "FILE: the document is N bytes; prowl init reads at most
// 32 MiB".
inline constexpr std::size_t kMaxOpenApiBytes = std::size_t{32} << 20;

// The model file text for the OpenAPI document `text`; `file` names it in messages.
Result<std::string> model_from_openapi(std::string_view text, const std::string& file,
                                       const OpenApiInitOptions& options = {});

// The same for the document in the file at `path`: a path that is not a readable regular file
// is "FILE: cannot read the OpenAPI document: REASON".
Result<std::string> model_from_openapi_file(const std::string& path,
                                            const OpenApiInitOptions& options = {});

}  // namespace prowl::modelfile
