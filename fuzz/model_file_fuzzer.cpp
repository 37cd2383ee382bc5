// libFuzzer target for the model file loader (docs/model-file.md). Any bytes may come in: the
// loader must answer with a Status for what it cannot use and never crash, throw or hang (the
// YAML bounds keep alias bombs and deep nesting in check). Each input is read twice, with its
// environment references resolved and without (as for --list-actions). A file it accepts is also
// turned into an HttpModel, which reads the whole spec but starts nothing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "prowl/modelfile/http_model.hpp"
#include "prowl/modelfile/loader.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The seed models (corpus/model) read these; with them set, the seeds load completely and the
  // fuzzer starts from models that get past the environment checks. Nothing is started or written.
  for (const char* name : {"PROWL_CLI_WORK", "SHOP_API", "SHOP_DB", "SHOP_PG_DSN", "SHOP_TOKEN"}) {
    setenv(name, "/nonexistent/prowl-fuzz", /*overwrite=*/0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Relative paths in the model resolve against a directory that does not exist; the loader only
  // joins them and never opens them.
  for (const bool resolve_env : {true, false}) {
    auto spec = prowl::modelfile::parse_model(text, "fuzz.yaml", "/nonexistent/prowl-fuzz",
                                              {.resolve_env = resolve_env});
    if (!spec) {
      if (spec.status().message().empty()) {
        std::fprintf(stderr, "model_file_fuzzer: an error without a message\n");
        std::abort();
      }
      continue;
    }
    prowl::modelfile::HttpModel model(std::move(*spec));
  }
  return 0;
}
