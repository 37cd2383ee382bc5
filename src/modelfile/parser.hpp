// Parser: the model file's YAML document to a ModelSpec, one section at a time (parse.cpp: the
// top level and the final cross-checks; parse_system.cpp: systems and the reset request;
// parse_action.cpp: actions; parse_check.cpp: observations and invariants). Cross-references
// (context keys, `after:` names, databases) are collected while reading and checked once the whole
// file is known, so each error still points at the reference. One Parser per file; not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "prowl/modelfile/spec.hpp"
#include "yaml_reader.hpp"

namespace prowl::modelfile::detail {

class Parser {
 public:
  explicit Parser(const Reader& reader) : r_(reader) {}

  Result<ModelSpec> run(const YAML::Node& root);

 private:
  // A name used somewhere that must be defined somewhere else.
  struct Ref {
    std::string name;
    SourcePos pos;
    std::string what;  // "action 'pay': path" for messages
  };
  // An SQL observation, added to its database's queries once the systems are known.
  struct SqlObservation {
    std::string name;
    std::string database;
    std::string sql;
    SourcePos pos;
  };

  // parse.cpp
  Status top_level(const Item& root);
  Status headers(const Item& item, std::vector<HeaderSpec>& out, bool allow_keys);
  // A template without context keys, as text.
  Result<std::string> literal(const Item& item) const;
  // Whether `text` holds an environment reference left unresolved (a spec read for listing):
  // checks that need its value skip it.
  bool unresolved(const std::string& text) const;
  // A header value must be one line: its literal text, and each environment variable it takes,
  // may hold no CR, LF or NUL.
  Status check_header_value(const Item& value, const Template& t) const;
  Status finish();
  Status check_keys() const;
  Status check_databases();
  Status resolve_sqlite_paths();
  std::string known_keys_hint(const std::string& key) const;

  // parse_system.cpp
  struct ProcessKeys;
  Status system(const Item& item);
  Status process(const Item& item, const std::string& name);
  Status process_field(const std::string& key, const Item& v, ProcessSpec& p, ProcessKeys& seen);
  Status process_command(const Item& v, std::vector<std::string>& argv) const;
  Status process_setting(const std::string& key, const Item& v, ProcessOptions& options) const;
  Status process_limit(const std::string& key, const Item& v, ProcessOptions& options) const;
  Status database(const Item& item, const std::string& name, const std::string& type);
  Status reset_hook(const Item& item);

  // parse_action.cpp
  struct ActionKeys;
  Status action(const Item& item);
  Status action_field(const std::string& key, const Item& v, ActionSpec& a, ActionKeys& seen);
  Status bindings(const Item& v, ActionSpec& a);
  Status params(const Item& v, ActionSpec& a);
  // A parameter's domain; a state-given one (from_sql:, from_context:) also says where from.
  Result<Domain> domain(const Item& v, ActionSpec::StateSource& source) const;
  Result<Domain> state_domain(const Item& v, ActionSpec::StateSource& source) const;
  // A name or a sequence of names into `out`, each recorded in `refs` for the cross-checks.
  Status names(const Item& v, std::vector<Ref>& refs, std::vector<std::string>& out);
  Status ok_and_rejected_differ(const Item& item, const ActionSpec& a) const;
  Status request_field(const std::string& key, const Item& value, RequestSpec& request);
  Status conditions(const Item& item, std::vector<Condition>& out);
  Status status_set(const Item& item, StatusSet& out, bool allow_5xx) const;
  Status pointer(const Item& item, std::string& out) const;
  // Records every context key of t as a reference made by `item`.
  void refer(const Template& t, const Item& item);
  void refer(const JsonTemplate& t, const Item& item);

  // parse_check.cpp
  Status observation(const Item& item);
  struct InvariantKeys;
  Status invariant(const Item& item);
  Status invariant_field(const std::string& key, const Item& v, InvariantSpec& inv,
                         InvariantKeys& seen);
  Status invariant_severity(const Item& v, InvariantSpec& inv) const;
  Status invariant_timing(const Item& v, InvariantSpec& inv) const;
  Status invariant_kind(const std::string& key, const Item& v, InvariantSpec& inv);
  Status invariant_checks(const Item& v, InvariantSpec& inv);
  Status invariant_keys_fit(const Item& item, const InvariantSpec& inv,
                            const InvariantKeys& seen) const;
  Status json_check(const Item& item, JsonCheck& out);
  Status response_rule(const Item& item, ResponseRule& out) const;

  const Reader& r_;
  ModelSpec spec_;
  std::vector<Ref> key_refs_;       // context keys used
  std::vector<Ref> after_refs_;     // action names in after:
  std::vector<Ref> database_refs_;  // database names in invariants (empty name: the only one)
  std::vector<std::size_t> database_ref_invariant_;  // invariant index of each database ref
  std::vector<SqlObservation> sql_observations_;
  std::vector<SourcePos> action_pos_;
  SourcePos base_url_pos_;
  SourcePos root_pos_{1, 1};
  // Where each bound key is bound (first binding), for hints.
  std::vector<std::pair<std::string, std::string>> bound_by_;  // key, action
};

}  // namespace prowl::modelfile::detail
