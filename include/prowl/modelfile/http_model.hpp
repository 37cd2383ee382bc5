// HttpModel: a Model built from a model file (docs/model-file.md). Each action sends one HTTP
// request and judges the answer; each invariant runs SQL on a database, checks the JSON of an
// HTTP GET, or applies a response rule to every step's answer. Its world holds the declared
// systems in file order, then the "http" system that owns the HTTP client.
//
//   auto model = prowl::modelfile::load_model_file("shop.yaml");   // nothing starts yet
//   if (!model) {
//     std::cerr << model.status().message() << '\n';
//     return model.status().exit_code();  // kExitUsage or kExitEnvironment
//   }
//   return prowl::run_main(**model, argc, argv);
//
// An action is enabled when its `when:` conditions hold and every context key its request uses
// is bound (added to Action::requires_keys). The world is built, and services started, only when
// a run begins. Immutable once built; the worlds it makes are independent, except that the
// copies for other workers start from copy 0's private database files (db_copy), which they
// find through state the model shares with its worlds (thread-safe).
#pragma once

#include <memory>
#include <string>

#include "prowl/core/status.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/modelfile/spec.hpp"

namespace prowl::modelfile {

class HttpModel : public Model {
 public:
  explicit HttpModel(ModelSpec spec);
  const ModelSpec& spec() const { return *spec_; }

 private:
  void add_param_actions(std::size_t i, std::size_t index, std::vector<Condition> conditions);
  std::shared_ptr<const ModelSpec> spec_;
};

// read_model_file(path, options), then HttpModel. With options.resolve_env = false the model is
// only good for listing its actions and invariants: building its world fails a PROWL_CHECK.
Result<std::unique_ptr<HttpModel>> load_model_file(const std::string& path,
                                                   ReadOptions options = {});

}  // namespace prowl::modelfile
