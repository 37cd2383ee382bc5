// ModelSpec: a model file (docs/model-file.md) as plain data, after it has been read and checked:
// environment references are resolved (unless it was read for listing only: list_only), relative
// paths are absolute, every context key that a template, condition or state key names is bound by
// the initial context or by an action.
// build_http_model() (http_model.hpp) turns it into a Model. Plain values; safe to share
// between threads once built.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "prowl/core/context.hpp"
#include "prowl/core/invariant.hpp"
#include "prowl/core/severity.hpp"
#include "prowl/explore/params.hpp"
#include "prowl/modelfile/template.hpp"
#include "prowl/systems/process.hpp"

namespace prowl::modelfile {

// The name of the system through which the world of a model file talks to the service; no
// declared system may take it.
inline constexpr std::string_view kHttpSystemName = "http";

// Where something is declared in the model file, 1-based (0: not from a file).
struct SourcePos {
  int line = 0;
  int column = 0;
};

// HTTP statuses: exact codes (201) and classes (4 for "4xx").
struct StatusSet {
  std::vector<int> codes;
  std::vector<int> classes;

  bool empty() const { return codes.empty() && classes.empty(); }
  bool contains(int status) const;
  // "201, 204, 4xx"; "none" when empty.
  std::string str() const;
};

struct HeaderSpec {
  std::string name;
  Template value;
  // The value came (in part) from an environment variable: never shown in a report.
  bool secret = false;
};

// Why `value` cannot be sent as an HTTP header value: "a line break" (it holds CR or LF), "a NUL
// character", or "" when it can. A line break would end the header and start another, or the
// body, of the model file's choosing or the service's.
std::string_view header_value_problem(std::string_view value);

struct RequestSpec {
  std::string method = "GET";  // upper case
  Template path;               // appended to the base URL
  std::vector<std::pair<std::string, Template>> query;
  std::vector<HeaderSpec> headers;
  std::optional<JsonTemplate> body;      // sent as JSON
  std::chrono::milliseconds timeout{0};  // 0: the model's default
};

// A condition on the context: a key is bound, is not bound, or is bound to (not) a value.
struct Condition {
  enum class Kind { kBound, kUnbound, kEquals, kNotEquals };
  Kind kind = Kind::kBound;
  std::string key;
  Value value;  // kEquals, kNotEquals
};

// Binds a context key to the scalar at a JSON Pointer in the response body.
struct Binding {
  std::string key;
  std::string pointer;
};

struct ActionSpec {
  std::string name;
  std::string description;
  SourcePos pos;
  RequestSpec request;
  StatusSet ok;        // the request did what it should: bind, unbind, Outcome::ok
  StatusSet rejected;  // refused as specified: Outcome::rejected, no binding
  std::vector<Binding> bind;
  std::vector<std::string> unbind;
  std::vector<Condition> when;
  std::vector<std::string> after;
  std::uint32_t max_per_path = 0;
  std::uint32_t max_per_run = 0;
  double weight = 1.0;
  // `params:` (docs/model-file.md, "Parameters"): the action stands for one action per
  // combination of values; its templates and `when:` read each as ${name}.
  std::vector<std::pair<std::string, Domain>> params;
  // For each parameter whose values the current state gives (a Domain with places), where they
  // come from: the first column of `sql` on `database` (from_sql:), or the values bound to
  // `keys` (from_context:).
  struct StateSource {
    std::string param;
    std::string sql;
    std::string database;  // the only database when the file names none
    std::vector<std::string> keys;
    SourcePos pos;
  };
  std::vector<StateSource> state_sources;
};

struct ProcessSpec {
  std::string name;
  SourcePos pos;
  ProcessOptions options;
  // `db_copy: true`: the service works on a private copy of options.db (and so does every sqlite
  // system whose path is that file), made in a temporary directory when the world is built and
  // removed with it; the file options.db names is only read.
  bool db_copy = false;
};

// A database the model observes and queries. `type` picks the driver ("sqlite", "postgres").
struct DatabaseSpec {
  std::string name;
  std::string type;
  SourcePos pos;
  std::string path;  // sqlite: the database file
  std::string dsn;   // postgres: the connection string
  std::string mode;  // postgres: "savepoint" or "snapshot"
  std::vector<std::string> tables;
  std::vector<SourcePos> table_pos;                          // where each of `tables` is written
  std::vector<std::pair<std::string, std::string>> queries;  // name, SELECT
  std::chrono::milliseconds busy_timeout{5000};
};

// Systems in declaration order, which is the order they begin (a service first creates the
// database file that a sqlite system then opens).
using SystemSpec = std::variant<ProcessSpec, DatabaseSpec>;

// A request that brings the service back to its initial state (the `reset:` hook).
struct ResetSpec {
  std::string method = "POST";
  std::string path;
  StatusSet ok;
};

// An HTTP GET whose answer (status and the value at `pointer`, or the whole body) is part of
// every state's identity.
struct ObservationSpec {
  std::string name;
  SourcePos pos;
  Template path;
  std::string pointer;  // empty: the whole body
};

// One comparison in an HTTP invariant: the value at `pointer` against an operand, which is a
// (templated) JSON value or the value at `other_pointer` of the same body.
struct JsonCheck {
  enum class Op { kEquals, kNotEquals, kLess, kAtMost, kGreater, kAtLeast, kExists };
  std::string pointer;
  Op op = Op::kEquals;
  std::optional<JsonTemplate> value;
  std::string other_pointer;
  bool exists = true;  // kExists: whether the value must be there
};

// A rule every answer to an action's request must follow. A step whose answer breaks one
// reaches a state marked with the rule, so that the step is reported even when the service's
// state did not change (docs/model-file.md, Invariants).
struct ResponseRule {
  enum class Kind { kNo5xx, kJson };
  Kind kind = Kind::kNo5xx;
};

struct InvariantSpec {
  enum class Kind { kSql, kHttp, kResponse };
  std::string name;
  std::string description;
  SourcePos pos;
  Severity severity = Severity::kHigh;
  Timing timing = Timing::kAfter;
  std::vector<Condition> when;
  Kind kind = Kind::kSql;
  // kSql: fails when the query returns rows; keys render as SQL literals.
  std::string database;
  Template sql;
  // kHttp: GET path, the statuses it must answer, and the checks on its JSON body.
  Template path;
  StatusSet status;
  std::vector<JsonCheck> checks;
  // kResponse
  ResponseRule rule;
};

struct ModelSpec {
  std::string file;  // as given to the loader
  // Read without resolving environment references (ReadOptions::resolve_env = false): good for
  // listing only; HttpModel refuses to build a world from it.
  bool list_only = false;
  std::string name;
  std::string description;
  std::string base_url;  // may hold "{port}": the first process system's port
  std::chrono::milliseconds timeout{10000};
  std::chrono::milliseconds connect_timeout{2000};
  std::vector<HeaderSpec> headers;  // literal values
  // Values of the environment variables used in any header: redacted in every report.
  std::vector<std::string> secrets;
  std::size_t body_limit = 512;  // bytes of each body shown in a step's detail
  std::vector<std::pair<std::string, Value>> context;  // initial bindings
  std::vector<std::string> state_keys;
  std::vector<SystemSpec> systems;
  std::optional<ResetSpec> reset;
  std::vector<ActionSpec> actions;
  std::vector<ObservationSpec> observations;
  std::vector<InvariantSpec> invariants;
};

}  // namespace prowl::modelfile
