#include "openapi_plan.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "openapi_operations.hpp"

namespace prowl::modelfile::detail {

namespace {

// The most combinations params: may make of one action; a parameter beyond keeps one value.
constexpr std::size_t kMaxPlannedCombinations = 256;

std::string one_line_of(const std::string& text) { return text.substr(0, text.find('\n')); }

// Where each context key bound by an answer comes from.
struct Source {
  std::size_t op = 0;
  std::string pointer;
};
using Sources = std::map<std::string, Source>;

// OpenAPI links: "$response.body#/id" in a link of an operation's 2xx answer binds the target
// operation's path parameter.
void link_sources(const OpenApiDocument& doc, const std::vector<Operation>& ops, Sources& out) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (const auto& entry : mapping(ops[i].node, "responses")) {
      if (!scalar(entry.first).starts_with("2")) continue;
      for (const auto& link_entry : mapping(doc.resolve(entry.second), "links")) {
        const YAML::Node link = doc.resolve(link_entry.second);
        const Operation* target = find_operation(ops, link);
        if (target == nullptr) continue;
        for (const auto& p : mapping(link, "parameters")) {
          std::string name = scalar(p.first);
          if (name.starts_with("path.")) name.erase(0, 5);
          const std::string expr = scalar(p.second);
          if (!expr.starts_with("$response.body#") || !target->path_param(name)) continue;
          out.try_emplace(key_for(target->path, name), Source{i, expr.substr(15)});
        }
      }
    }
  }
}

// The property of `op`'s first 2xx JSON answer that holds the id `param` names: the parameter's
// own name, else "id" when `any_id`.
std::optional<std::string> id_pointer(const OpenApiDocument& doc, const Operation& op,
                                      const std::string& param, bool any_id) {
  const YAML::Node schema = success_schema(doc, op);
  if (!schema.IsDefined()) return std::nullopt;
  const ObjectShape shape = object_shape(doc, schema);
  for (const std::string& name : {param, std::string("id")}) {
    if (name == "id" && !any_id) continue;
    if (std::any_of(shape.properties.begin(), shape.properties.end(),
                    [&](const auto& p) { return p.first == name; })) {
      return "/" + name;
    }
  }
  return std::nullopt;
}

// Without a link: the POST (else PUT) on the collection a path parameter indexes, whose answer
// has the parameter's name or "id"; else any POST whose answer has the parameter's own name.
void inferred_sources(const OpenApiDocument& doc, const std::vector<Operation>& ops, Sources& out) {
  for (const Operation& op : ops) {
    for (const YAML::Node& p : op.parameters) {
      const std::string name = scalar(field(p, "name"));
      if (scalar(field(p, "in")) != "path" || domain_of(doc, field(p, "schema"))) continue;
      const std::string key = key_for(op.path, name);
      if (out.contains(key)) continue;
      const std::string collection = op.path.substr(0, op.path.find("{" + name + "}"));
      const std::string trimmed =
          collection.ends_with("/") ? collection.substr(0, collection.size() - 1) : collection;
      std::optional<Source> found;
      for (const char* method : {"post", "put"}) {
        for (std::size_t i = 0; i < ops.size() && !found; ++i) {
          if (ops[i].path != trimmed || ops[i].method != method) continue;
          if (auto pointer = id_pointer(doc, ops[i], name, true)) found = Source{i, *pointer};
        }
      }
      for (std::size_t i = 0; i < ops.size() && !found && name != "id"; ++i) {
        if (ops[i].method != "post") continue;
        if (auto pointer = id_pointer(doc, ops[i], name, false)) found = Source{i, *pointer};
      }
      if (found) out.emplace(key, *found);
    }
  }
}

std::string status_text(const std::string& code) {
  std::string s = code;
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// ok: the documented 2xx statuses; rejected: the 4xx ones. Codes first, in order, then classes.
void statuses(const Operation& op, ActionPlan& action) {
  std::vector<std::string> ok, rejected;
  for (const auto& entry : mapping(op.node, "responses")) {
    const std::string code = status_text(scalar(entry.first));
    const auto digit = [&](std::size_t i) {
      return std::isdigit(static_cast<unsigned char>(code[i])) != 0;
    };
    // 2xx and 4xx only: three digits, or a digit and "xx".
    const bool valid =
        code.size() == 3 && digit(0) && ((digit(1) && digit(2)) || code.substr(1) == "xx");
    if (!valid) continue;
    if (code[0] == '2') ok.push_back(code);
    if (code[0] == '4') rejected.push_back(code);
  }
  for (auto* list : {&ok, &rejected}) {
    std::sort(list->begin(), list->end(), [](const std::string& a, const std::string& b) {
      const bool ac = a[1] == 'x', bc = b[1] == 'x';
      return ac != bc ? bc : a < b;
    });
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  action.ok = std::move(ok);
  action.rejected = std::move(rejected);
}

// A scalar value for a parameter: its example, else the smallest valid value.
OJson parameter_value(const OpenApiDocument& doc, const YAML::Node& p, bool* from_example) {
  std::optional<OJson> example = example_of(doc, p);
  *from_example = example.has_value() && !example->is_structured();
  if (*from_example) return *example;
  OJson v = minimal_value(doc, field(p, "schema"));
  return v.is_structured() || v.is_null() ? OJson("a") : v;
}

class Planner {
 public:
  Planner(const OpenApiDocument& doc, std::vector<Operation> ops, Sources sources)
      : doc_(doc), ops_(std::move(ops)), sources_(std::move(sources)) {}

  ActionPlan action(std::size_t index);
  std::vector<ContextPlan> take_context() { return std::move(context_); }
  const std::vector<Operation>& ops() const { return ops_; }
  const Sources& sources() const { return sources_; }

 private:
  std::string path_of(const Operation& op, ActionPlan& action);
  std::string param_name(ActionPlan& action, const std::string& name);
  bool add_param(ActionPlan& action, const std::string& name, SchemaDomain domain);
  void body(const Operation& op, ActionPlan& action);
  std::string context_key(const std::string& key, const YAML::Node& p);

  const OpenApiDocument& doc_;
  std::vector<Operation> ops_;
  Sources sources_;
  std::vector<ContextPlan> context_;
};

std::string Planner::param_name(ActionPlan& action, const std::string& name) {
  std::string base = identifier(name);
  std::string out = base;
  for (int n = 2; std::any_of(action.params.begin(), action.params.end(),
                              [&](const ParamPlan& p) { return p.name == out; });
       ++n) {
    out = fmt::format("{}_{}", base, n);
  }
  return out;
}

bool Planner::add_param(ActionPlan& action, const std::string& name, SchemaDomain domain) {
  std::size_t combinations = 1;
  for (const ParamPlan& p : action.params) {
    combinations *= p.domain.one_of.empty()
                        ? static_cast<std::size_t>(p.domain.hi - p.domain.lo + 1)
                        : p.domain.one_of.size();
  }
  const std::size_t size = domain.one_of.empty()
                               ? static_cast<std::size_t>(domain.hi - domain.lo + 1)
                               : domain.one_of.size();
  if (combinations * size > kMaxPlannedCombinations) return false;
  action.params.push_back({name, std::move(domain)});
  return true;
}

std::string Planner::context_key(const std::string& key, const YAML::Node& p) {
  if (std::none_of(context_.begin(), context_.end(),
                   [&](const ContextPlan& c) { return c.key == key; })) {
    bool from_example = false;
    OJson value = parameter_value(doc_, p, &from_example);
    context_.push_back(
        {key, std::move(value),
         fmt::format("TODO: no answer gives {}: set one that exists ({})", scalar(field(p, "name")),
                     from_example ? "this is the document's example" : "this is a guess")});
  }
  return key;
}

std::string Planner::path_of(const Operation& op, ActionPlan& action) {
  std::string out;
  std::string_view rest = op.path;
  while (!rest.empty()) {
    const std::size_t open = rest.find('{');
    const std::size_t close = open == std::string_view::npos ? open : rest.find('}', open);
    if (close == std::string_view::npos) {
      out += escape_template(rest);
      break;
    }
    out += escape_template(rest.substr(0, open));
    const std::string name(rest.substr(open + 1, close - open - 1));
    rest.remove_prefix(close + 1);
    const YAML::Node p = op.path_param(name);
    std::optional<SchemaDomain> domain = domain_of(doc_, field(p, "schema"));
    const std::string key = key_for(op.path, name);
    if (domain && add_param(action, param_name(action, name), *domain)) {
      out += "${" + action.params.back().name + "}";
    } else if (auto it = sources_.find(key); it != sources_.end() && &ops_[it->second.op] != &op) {
      out += "${" + key + "}";
      if (std::find(action.needs.begin(), action.needs.end(), key) == action.needs.end()) {
        action.needs.push_back(key);
      }
    } else {
      out += "${" + context_key(key, p) + "}";
    }
  }
  return out;
}

void Planner::body(const Operation& op, ActionPlan& action) {
  const YAML::Node request = doc_.resolve(field(op.node, "requestBody"));
  if (!request.IsDefined()) return;
  const YAML::Node content = field(request, "content");
  const YAML::Node media = json_media(content);
  if (!media.IsDefined()) {
    std::string types;
    for (const auto& entry : content) types += (types.empty() ? "" : ", ") + scalar(entry.first);
    action.todos.push_back(fmt::format(
        "TODO: the request body is {}; prowl sends JSON bodies only: write a body: or leave the "
        "action out",
        types.empty() ? "not described" : types));
    return;
  }
  if (std::optional<OJson> example = example_of(doc_, media)) {
    escape_templates(*example);
    action.body = std::move(*example);
    return;
  }
  const YAML::Node schema = field(media, "schema");
  OJson body = minimal_value(doc_, schema);
  escape_templates(body);
  action.todos.push_back(
      "TODO: no example of this body in the document: its required members, smallest values");
  if (body.is_object()) {
    for (const auto& [name, property] : object_shape(doc_, schema).properties) {
      if (!body.contains(name)) continue;
      std::optional<SchemaDomain> domain = domain_of(doc_, property);
      if (domain && add_param(action, param_name(action, name), *domain)) {
        body[name] = "${" + action.params.back().name + "}";
      }
    }
  }
  action.body = std::move(body);
}

ActionPlan Planner::action(std::size_t index) {
  const Operation& op = ops_[index];
  ActionPlan action;
  action.name = op.name;
  action.method = op.method;
  std::transform(action.method.begin(), action.method.end(), action.method.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  action.description = scalar(field(op.node, "summary"));
  if (action.description.empty())
    action.description = one_line_of(scalar(field(op.node, "description")));
  action.path = path_of(op, action);
  for (const YAML::Node& p : op.parameters) {
    const std::string in = scalar(field(p, "in"));
    const std::string name = scalar(field(p, "name"));
    if (scalar(field(p, "required")) != "true" || in == "path") continue;
    // What a model file cannot send as written: no name, a place OpenAPI does not define, or a
    // second parameter of the same name (headers compare without case).
    const auto& sent = in == "query" ? action.query : action.headers;
    const bool twice = std::any_of(sent.begin(), sent.end(), [&](const auto& q) {
      return in == "query" ? q.first == name : strcasecmp(q.first.c_str(), name.c_str()) == 0;
    });
    if (name.empty() || (in != "query" && in != "header" && in != "cookie") || twice) {
      action.todos.push_back(fmt::format("TODO: a required parameter{} in '{}' is left out: {}",
                                         name.empty() ? "" : " " + identifier(name), identifier(in),
                                         name.empty() ? "it has no name"
                                         : twice      ? "its name is used twice"
                                                      : "OpenAPI has no such place"));
      continue;
    }
    if (in == "cookie") {
      action.todos.push_back(
          fmt::format("TODO: the cookie {} is required; prowl sends no cookies", identifier(name)));
      continue;
    }
    std::optional<SchemaDomain> domain = domain_of(doc_, field(p, "schema"));
    if (in == "query" && domain && add_param(action, param_name(action, name), *domain)) {
      action.query.emplace_back(name, "${" + action.params.back().name + "}");
      continue;
    }
    bool from_example = false;
    OJson value = parameter_value(doc_, p, &from_example);
    if (value.is_string()) value = escape_template(value.get<std::string>());
    (in == "query" ? action.query : action.headers).emplace_back(name, std::move(value));
  }
  body(op, action);
  statuses(op, action);
  for (const auto& [key, source] : sources_) {
    if (source.op == index) action.bind.emplace_back(key, source.pointer);
  }
  // DELETE /orders/{orderId} ends what order_id names.
  if (op.method == "delete" && op.path.ends_with("}")) {
    const std::string last = op.path.substr(op.path.rfind('{') + 1);
    const std::string key = key_for(op.path, last.substr(0, last.size() - 1));
    if (std::find(action.needs.begin(), action.needs.end(), key) != action.needs.end()) {
      action.unbind.push_back(key);
    }
  }
  return action;
}

// Each GET without parameters to choose (and not the health check) is observed, and each GET
// whose answer's schema implies checks is an invariant.
void add_reads(const OpenApiDocument& doc, const Planner& planner, ModelPlan& model) {
  for (std::size_t i = 0; i < model.actions.size(); ++i) {
    const ActionPlan& a = model.actions[i];
    const bool simple =
        a.method == "GET" && a.params.empty() && a.query.empty() && a.headers.empty();
    if (!simple) continue;
    if (a.path.find("${") == std::string::npos && a.path != model.health) {
      model.observe.push_back({a.name, a.path});
    }
    const YAML::Node schema = success_schema(doc, planner.ops()[i]);
    std::vector<Check> checks = response_checks(doc, schema);
    for (Check& c : checks) escape_templates(c.operand);
    if (checks.empty()) continue;
    std::vector<std::string> status;
    for (const std::string& s : a.ok) status.push_back(s);
    model.invariants.push_back({a.name + "_matches_schema", a.path, status, std::move(checks)});
  }
}

}  // namespace

ModelPlan plan_model(const OpenApiDocument& doc) {
  ModelPlan model;
  const YAML::Node info = field(doc.root(), "info");
  const std::string title = scalar(field(info, "title"));
  model.name = title.empty() ? std::string("api") : snake_case(title);
  model.title =
      fmt::format("{} {}", title.empty() ? "the API" : title, scalar(field(info, "version")));
  const YAML::Node servers = field(doc.root(), "servers");
  if (servers.IsSequence() && servers.size() > 0) {
    model.server = scalar(field(servers[0], "url"));
    model.base_path = server_path(servers[0]);
  }
  for (const auto& scheme : mapping(field(doc.root(), "components"), "securitySchemes")) {
    model.security.push_back(scalar(scheme.first));
  }
  std::vector<Operation> ops = collect_operations(doc, model.skipped);
  Sources sources;
  link_sources(doc, ops, sources);
  inferred_sources(doc, ops, sources);
  for (const Operation& op : ops) {
    if (op.method == "get" && op.parameters.empty() && is_health_path(op.path)) {
      model.health = op.path;
      break;
    }
  }
  Planner planner(doc, std::move(ops), std::move(sources));
  for (std::size_t i = 0; i < planner.ops().size(); ++i) model.actions.push_back(planner.action(i));
  for (const ActionPlan& a : model.actions) {
    for (const auto& [key, pointer] : a.bind) {
      if (std::find(model.state_keys.begin(), model.state_keys.end(), key) ==
          model.state_keys.end()) {
        model.state_keys.push_back(key);
      }
    }
  }
  model.context = planner.take_context();
  add_reads(doc, planner, model);
  return model;
}

}  // namespace prowl::modelfile::detail
