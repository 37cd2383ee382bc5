// HttpApi: the service under test as prowl sees it over HTTP, the last system of a model file's
// world (named "http"). It owns the HttpClient (created in begin(), once the process system before
// it has chosen the port of the base URL), sends each action's request, judges the answer, keeps
// the responses of the latest step for the response rules, checks the SQL and HTTP invariants,
// and observes the HTTP observations.
//
// Restore: the service's state lives in the other systems (a restarted process, a restored
// database). HttpApi itself holds nothing, so it declares snapshot and reset with operations that
// do nothing: declaring only reset would force the whole world into reset mode (restart and
// replay) although the databases could restore directly. With a `reset:` hook it declares reset
// only, and reset() sends the hook's request. That no-op restore is only right if nothing else
// of the service's state survives a restore; a service that caches rows in memory needs a process
// system (restart) or a reset hook (see docs/model-file.md).
//
// It holds pointers to the process and database systems of the same World, which owns them all.
// Driven from one thread; const methods use the client (mutable): observe() and the invariant
// checks send requests.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "database.hpp"
#include "prowl/core/action.hpp"
#include "prowl/core/invariant.hpp"
#include "prowl/modelfile/spec.hpp"
#include "prowl/systems/http_client.hpp"
#include "prowl/systems/process.hpp"
#include "prowl/world/system.hpp"
#include "prowl/world/world.hpp"

namespace prowl::modelfile::detail {

class HttpApi final : public System {
 public:
  // `context` is the World's context (observations render their paths with it).
  HttpApi(std::shared_ptr<const ModelSpec> spec, const Context& context,
          const ProcessSystem* port_source, std::vector<const Database*> databases);
  ~HttpApi() override;

  // The HttpApi of a world built from a model file (its last system).
  static HttpApi& of(World& world);
  static const HttpApi& of(const World& world);

  Capabilities capabilities() const override;
  // The HTTP observations, then the name of each response rule that the latest step's answer
  // broke. The explorer reports an invariant for the step that takes a state satisfying it to
  // one that does not; a refused step usually leaves the service's state as it was, and without
  // the mark it would lead back to its own source state and never be reported.
  Status observe(Hasher& hasher) const override;
  std::string describe() const override;
  // Resolves the base URL, creates the client, checks that the service answers (an
  // environment Status naming the URL when it does not), sends the reset hook if there is one,
  // and tries every SQL invariant once (Status::invalid naming its line when its SQL fails).
  Status begin() override;
  Result<SnapshotHandle> save() override { return SnapshotHandle{0}; }
  Status restore(SnapshotHandle) override;
  void release(SnapshotHandle) override {}
  // Holds nothing either in a copy of the world for another worker.
  Result<SystemImagePtr> capture() override { return SystemImagePtr(); }
  Status load(const SystemImagePtr& image) override;
  Status reset() override;

  // Runs an action's request against the service and judges the answer.
  // With `params`, the values of one combination of the action's parameters: its request reads
  // them as context keys (they are never bound in `context`).
  Outcome run(const ActionSpec& action, Context& context,
              const std::vector<std::pair<std::string, Value>>& params = {});
  // Checks one invariant in the current state.
  Check check(const InvariantSpec& invariant, const Context& context) const;

  const std::string& base_url() const { return base_url_; }
  // The values a parameter's from_sql: or from_context: gives in the current state: the first
  // column's values (NULLs left out) or the bound keys' values, in order, each once.
  Result<std::vector<ParamValue>> state_values(const ActionSpec::StateSource& source,
                                               const Context& context) const;

 private:
  // One answer to an action's request, kept for the response rules.
  struct StepResponse {
    std::string request;  // "POST http://..."
    int status = 0;
    bool json = false;
    std::string body;
  };

  // The latest offending rows of an SQL invariant and the message they made.
  struct LastFailure {
    std::optional<SqlRows> rows;
    std::string message;
  };
  // A body as a step's detail shows it (one_line, cut at body_limit), and whether it is JSON.
  struct ShownBody {
    std::string line;
    bool json = false;
  };
  // Hashes and compares std::string keys with std::string_view, without a copy.
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  Result<HttpResponse> send(const HttpRequest& request) const;
  // GET of observation o's path, as JSON.
  Result<HttpResponse> fetch_observation(const ObservationSpec& o) const;
  // The steps of run() once the answer is in: its status judged, then the bindings made.
  Outcome judge(const ActionSpec& a, const HttpRequest& r, const HttpResponse& reply, Context& ctx);
  Outcome server_error(const HttpRequest& r, int status, std::string detail) const;
  Outcome bind(const ActionSpec& a, const std::string& body_text, bool json, std::string detail,
               Context& ctx) const;
  // "METHOD PATH", redacted, for the messages about a step.
  std::string method_and_path(const HttpRequest& r) const;
  // shown(text) for a body: remembered for the bodies seen lately, since steps send the same
  // requests and get the same answers (a refusal, say) over and over.
  const ShownBody& shown(std::string_view text) const;
  // The request and its answer (null: none) as data for reports: redacted, bodies cut at 64 KiB.
  std::shared_ptr<const HttpExchange> exchange(const HttpRequest& r,
                                               const HttpResponse* reply) const;
  // "METHOD URL [request body] -> STATUS response body" on one line, redacted and cut.
  std::string line(const HttpRequest& request, const HttpResponse* reply) const;
  std::string redact(std::string_view text) const;
  Check check_sql(const InvariantSpec& inv, const Context& ctx) const;
  Check check_http(const InvariantSpec& inv, const Context& ctx) const;
  Check check_response(const InvariantSpec& inv) const;
  const Database* database(const std::string& name) const;
  Status try_sql_invariants() const;
  Status send_reset();

  std::shared_ptr<const ModelSpec> spec_;
  const Context& context_;
  const ProcessSystem* port_source_;
  std::vector<const Database*> databases_;
  std::vector<std::string> secrets_;  // the model's secrets, longest first
  std::string base_url_;
  mutable std::unique_ptr<HttpClient> client_;
  std::optional<StepResponse> step_;
  // Per invariant: its SQL when the template binds no context key (rendered once).
  std::vector<std::optional<std::string>> literal_sql_;
  mutable std::unordered_map<std::string, ShownBody, TextHash, std::equal_to<>> shown_;
  mutable std::vector<LastFailure> failures_;  // per invariant
};

// Whether every condition holds in ctx.
bool conditions_hold(const std::vector<Condition>& conditions, const Context& ctx);

}  // namespace prowl::modelfile::detail
