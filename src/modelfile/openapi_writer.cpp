#include "openapi_writer.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace prowl::modelfile::detail {

namespace {

// Words YAML (1.1 or 1.2) or the model file read as something other than a string.
bool typed_word(std::string_view text) {
  std::string w(text);
  std::transform(w.begin(), w.end(), w.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view word : {"null", "true", "false", "yes", "no", "on", "off", "y", "n"}) {
    if (w == word) return true;
  }
  return false;
}

bool plain_ok(std::string_view text, bool flow) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ' || typed_word(text)) return false;
  const auto first = static_cast<unsigned char>(text.front());
  if (std::isalpha(first) == 0 && first != '_' && first != '/') return false;
  return std::all_of(text.begin(), text.end(), [&](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '_' || c == '.' || c == '/' || c == '-' || c == ' ') {
      return true;
    }
    return !flow && (c == '$' || c == '{' || c == '}');
  });
}

// The line breaks Unicode adds to ASCII's, in UTF-8, and how YAML escapes them.
struct Special {
  std::string_view utf8;
  std::string_view escaped;
};
constexpr Special kSpecials[] = {{"\xC2\x85", "\\N"},
                                 {"\xE2\x80\xA8", "\\L"},
                                 {"\xE2\x80\xA9", "\\P"},
                                 {"\xEF\xBB\xBF", "\\uFEFF"}};

// The kSpecials character that begins at text[i], if any.
const Special* special_at(std::string_view text, std::size_t i) {
  const auto it = std::find_if(std::begin(kSpecials), std::end(kSpecials), [&](const Special& s) {
    return text.substr(i).starts_with(s.utf8);
  });
  return it == std::end(kSpecials) ? nullptr : it;
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const Special* special = special_at(text, i);
    if (special != nullptr) {
      out += special->escaped;
      i += special->utf8.size() - 1;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string status_list(const std::vector<std::string>& statuses) {
  if (statuses.size() == 1) return statuses[0];
  return fmt::format("[{}]", fmt::join(statuses, ", "));
}

// `key: {a: 1, b: x}` for pairs.
std::string flow_pairs(const std::vector<std::pair<std::string, OJson>>& pairs) {
  std::vector<std::string> items;
  for (const auto& [k, v] : pairs) items.push_back(yaml_string(k, true) + ": " + yaml_flow(v));
  return fmt::format("{{{}}}", fmt::join(items, ", "));
}

std::string binder_of(const ModelPlan& model, const std::string& key) {
  for (const ActionPlan& a : model.actions) {
    for (const auto& [k, pointer] : a.bind) {
      if (k == key) return a.name;
    }
  }
  return "";
}

using Out = std::back_insert_iterator<std::string>;

void write_header(Out out, const ModelPlan& model, std::string_view source) {
  fmt::format_to(out,
                 "# A prowl model of {}, written by `prowl init` from {}.\n"
                 "# Read it through before the first run: each TODO marks a decision only you can "
                 "make.\n"
                 "# docs/model-file.md explains every key; run `prowl explore FILE --list-actions` "
                 "to check it.\n",
                 comment_text(model.title), comment_text(source));
  fmt::format_to(out, "name: {}\ndescription: {}\n", yaml_string(model.name, false),
                 yaml_string(model.title, false));
  fmt::format_to(
      out,
      "# {{port}} is the port of the service prowl starts (systems: below){}.\n"
      "# TODO: for a service prowl does not start, write its URL here and replace "
      "systems: with a\n"
      "# reset: request that brings it back to its initial state.\n"
      "base_url: {}\n"
      "timeout: 5s\n",
      model.server.empty() ? "" : "; the document's first server is " + comment_text(model.server),
      yaml_string("http://127.0.0.1:{port}" + model.base_path, false));
  if (!model.security.empty()) {
    fmt::format_to(out,
                   "# TODO: the document declares authentication ({}): send it with every "
                   "request, e.g.\n",
                   comment_text(fmt::format("{}", fmt::join(model.security, ", "))));
  } else {
    fmt::format_to(out, "# Headers sent with every request, e.g. for authentication:\n");
  }
  fmt::format_to(out,
                 "# headers: {{Authorization: \"Bearer ${{env:API_TOKEN}}\"}}   # ${{env:...}} "
                 "values are secrets\n");
}

void write_context(Out out, const ModelPlan& model) {
  if (!model.state_keys.empty()) {
    std::vector<std::string> keys;
    for (const std::string& k : model.state_keys) keys.push_back(yaml_string(k, true));
    fmt::format_to(out, "state_keys: [{}]   # the ids answers give are part of a state\n",
                   fmt::join(keys, ", "));
  }
  if (model.context.empty()) return;
  fmt::format_to(out, "\ncontext:\n");
  for (const ContextPlan& c : model.context) {
    fmt::format_to(out, "  # {}\n  {}: {}\n", comment_text(c.todo), yaml_string(c.key, false),
                   yaml_flow(c.value));
  }
}

void write_systems(Out out, const ModelPlan& model, const OpenApiInitOptions& options) {
  fmt::format_to(out, "\nsystems:\n  - name: service\n    type: process\n");
  if (options.command.empty()) {
    fmt::format_to(
        out,
        "    # TODO: the command that starts the service, listening on 127.0.0.1:{{port}} (a free "
        "port\n"
        "    # prowl picks). One string runs through /bin/sh -c in this file's directory; a list "
        "runs\n"
        "    # as it is. `prowl init --command CMD` writes it here.\n"
        "    command: {}\n",
        yaml_string("echo 'write the command that starts the service in the model file "
                    "(systems: service: command:)' >&2; exit 1",
                    false));
  } else {
    fmt::format_to(out, "    command: {}   # runs through /bin/sh -c in this file's directory\n",
                   yaml_string(options.command, false));
  }
  if (!model.health.empty()) {
    fmt::format_to(out, "    health: {}   # ready once GET {} answers 2xx\n",
                   yaml_string(model.health, false), comment_text(model.health));
  } else {
    fmt::format_to(
        out, "    # ready once {{port}} accepts connections (health: PATH waits for a 2xx)\n");
  }
  fmt::format_to(
      out,
      "    ready_timeout: 10s\n"
      "  # TODO: the database the service keeps its state in. Without one here, prowl restarts "
      "the\n"
      "  # service to go back to an earlier state, so it must start empty every time (an "
      "in-memory\n"
      "  # database, or a command that removes its file first). Declared, prowl restores it "
      "instead and\n"
      "  # its rows are part of each state: give the service `db: FILE` and `stateless: true`, "
      "and add\n"
      "  #   - {{name: db, type: sqlite, tables: [TABLE, ...]}}\n"
      "  # (or a type: postgres system with its dsn:). docs/model-file.md, \"Systems\".\n");
}

void write_observe(Out out, const ModelPlan& model) {
  if (model.observe.empty()) return;
  fmt::format_to(out,
                 "\n# What makes up a state: the answers of these GETs. Observe only what is "
                 "deterministic (a\n"
                 "# timestamp or a random id in an answer makes every step a new state).\n"
                 "observe:\n");
  for (const ObservePlan& o : model.observe) {
    fmt::format_to(out, "  - {{name: {}, get: {}}}\n", yaml_string(o.name, true),
                   yaml_string(o.path, true));
  }
}

void write_action(Out out, const ModelPlan& model, const ActionPlan& a) {
  fmt::format_to(out, "  - name: {}\n", yaml_string(a.name, false));
  if (!a.description.empty()) {
    fmt::format_to(out, "    description: {}\n", yaml_string(a.description, false));
  }
  for (const std::string& todo : a.todos) fmt::format_to(out, "    # {}\n", comment_text(todo));
  if (!a.params.empty()) {
    fmt::format_to(out, "    params:\n");
    for (const ParamPlan& p : a.params) {
      if (p.domain.one_of.empty()) {
        fmt::format_to(out, "      {}: {{int: [{}, {}]}}\n", yaml_string(p.name, false),
                       p.domain.lo, p.domain.hi);
      } else {
        fmt::format_to(out, "      {}: {{one_of: {}}}\n", yaml_string(p.name, false),
                       yaml_flow(OJson(p.domain.one_of)));
      }
    }
  }
  fmt::format_to(out, "    method: {}\n    path: {}", a.method, yaml_string(a.path, false));
  std::vector<std::string> binders;
  for (const std::string& key : a.needs) {
    binders.push_back(fmt::format("{} has bound {}", binder_of(model, key), key));
  }
  if (!binders.empty()) fmt::format_to(out, "   # enabled once {}", fmt::join(binders, " and "));
  fmt::format_to(out, "\n");
  if (!a.query.empty()) fmt::format_to(out, "    query: {}\n", flow_pairs(a.query));
  if (!a.headers.empty()) fmt::format_to(out, "    headers: {}\n", flow_pairs(a.headers));
  if (a.body) fmt::format_to(out, "    body: {}\n", yaml_flow(*a.body));
  if (!a.ok.empty()) fmt::format_to(out, "    ok: {}\n", status_list(a.ok));
  if (!a.rejected.empty()) {
    fmt::format_to(out, "    rejected: {}   # refused as documented\n", status_list(a.rejected));
  }
  if (!a.bind.empty()) {
    std::vector<std::pair<std::string, OJson>> pairs;
    for (const auto& [k, pointer] : a.bind) pairs.emplace_back(k, pointer);
    fmt::format_to(out, "    bind: {}\n", flow_pairs(pairs));
  }
  if (!a.unbind.empty()) fmt::format_to(out, "    unbind: [{}]\n", fmt::join(a.unbind, ", "));
}

void write_invariants(Out out, const ModelPlan& model) {
  fmt::format_to(out,
                 "\ninvariants:\n"
                 "  # No answer to an action is a 5xx (a response rule: checked after every "
                 "step).\n"
                 "  - name: no_5xx\n"
                 "    severity: high\n"
                 "    response: no_5xx\n");
  for (const InvariantPlan& inv : model.invariants) {
    fmt::format_to(out,
                   "  # GET {} answers as its schema says: its required members, their "
                   "documented bounds.\n"
                   "  - name: {}\n    get: {}\n",
                   comment_text(inv.path), yaml_string(inv.name, false),
                   yaml_string(inv.path, false));
    if (!inv.status.empty()) fmt::format_to(out, "    status: {}\n", status_list(inv.status));
    fmt::format_to(out, "    checks:\n");
    for (const Check& c : inv.checks) {
      fmt::format_to(out, "      - {{pointer: {}, {}: {}}}\n", yaml_string(c.pointer, true), c.op,
                     yaml_flow(c.operand));
    }
  }
}

}  // namespace

std::string yaml_string(std::string_view text, bool flow) {
  return plain_ok(text, flow) ? std::string(text) : quoted(text);
}

std::string yaml_flow(const OJson& value) {
  if (value.is_string()) return yaml_string(value.get<std::string>(), true);
  if (value.is_array()) {
    std::vector<std::string> items;
    for (const OJson& v : value) items.push_back(yaml_flow(v));
    return fmt::format("[{}]", fmt::join(items, ", "));
  }
  if (value.is_object()) {
    std::vector<std::string> items;
    for (const auto& [k, v] : value.items())
      items.push_back(yaml_string(k, true) + ": " + yaml_flow(v));
    return fmt::format("{{{}}}", fmt::join(items, ", "));
  }
  return value.dump();
}

std::string comment_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const Special* special = special_at(text, i);
    if (special != nullptr) {
      out += ' ';
      i += special->utf8.size() - 1;
    } else {
      out += c < 0x20 || c == 0x7F ? ' ' : static_cast<char>(c);
    }
  }
  return out;
}

std::string write_model(const ModelPlan& model, const OpenApiInitOptions& options,
                        std::string_view source) {
  std::string text;
  Out out(text);
  write_header(out, model, source);
  write_context(out, model);
  write_systems(out, model, options);
  write_observe(out, model);
  fmt::format_to(out, "\nactions:\n");
  for (const std::string& s : model.skipped)
    fmt::format_to(out, "  # left out: {}\n", comment_text(s));
  for (const ActionPlan& a : model.actions) write_action(out, model, a);
  write_invariants(out, model);
  return text;
}

}  // namespace prowl::modelfile::detail
