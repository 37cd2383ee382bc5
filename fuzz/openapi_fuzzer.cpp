// libFuzzer target for `prowl init --openapi` (docs/model-file.md, "Starting from an OpenAPI
// document"). Any bytes may come in: the reader must answer with a Status whose message starts
// with the file's name for what it cannot use, and never crash, throw or hang (the YAML bounds
// keep alias bombs and deep nesting in check). A model it writes must load: the model file
// loader accepts it and it becomes an HttpModel, which starts nothing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "prowl/modelfile/http_model.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/modelfile/openapi.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto model = prowl::modelfile::model_from_openapi(text, "fuzz.yaml", {.command = "true"});
  if (!model) {
    if (!model.status().message().starts_with("fuzz.yaml")) {
      std::fprintf(stderr, "openapi_fuzzer: an error that does not name the file: %s\n",
                   model.status().message().c_str());
      std::abort();
    }
    return 0;
  }
  auto spec = prowl::modelfile::parse_model(*model, "model.yaml", "/nonexistent/prowl-fuzz",
                                            {.resolve_env = false});
  if (!spec) {
    std::fprintf(stderr, "openapi_fuzzer: the written model does not load: %s\n%s\n",
                 spec.status().message().c_str(), model->c_str());
    std::abort();
  }
  prowl::modelfile::HttpModel built(std::move(*spec));
  return 0;
}
