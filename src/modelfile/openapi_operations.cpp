#include "openapi_operations.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace prowl::modelfile::detail {

namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string singular(const std::string& word) {
  if (word.ends_with("ies") && word.size() > 3) return word.substr(0, word.size() - 3) + "y";
  for (std::string_view end : {"sses", "uses", "xes", "ches", "shes"}) {
    if (word.ends_with(end)) return word.substr(0, word.size() - 2);
  }
  if (word.ends_with("s") && !word.ends_with("ss") && word.size() > 1) {
    return word.substr(0, word.size() - 1);
  }
  return word;
}

std::string unique_name(std::string name, const std::vector<Operation>& ops) {
  const std::string base = name;
  for (int n = 2;
       std::any_of(ops.begin(), ops.end(), [&](const Operation& op) { return op.name == name; });
       ++n) {
    name = fmt::format("{}_{}", base, n);
  }
  return name;
}

}  // namespace

YAML::Node Operation::path_param(std::string_view param) const {
  for (const YAML::Node& p : parameters) {
    if (scalar(field(p, "in")) == "path" && scalar(field(p, "name")) == param) return p;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::vector<Operation> collect_operations(const OpenApiDocument& doc,
                                          std::vector<std::string>& skipped) {
  std::vector<Operation> ops;
  YAML::Node noted(YAML::NodeType::Undefined);  // the path last noted as left out
  doc.for_each_operation([&](const YAML::Node& path_node, const YAML::Node& item,
                             const std::string& method, const YAML::Node& operation) {
    const std::string path = scalar(path_node);
    switch (sendable(path, method)) {
      case Sendable::kUnrootedPath:
        // check_paths refuses a document where no other path is left.
        if (!noted.IsDefined() || !noted.is(path_node)) {
          skipped.push_back(fmt::format("{}: an OpenAPI path starts with '/'", path));
          noted.reset(path_node);
        }
        return;
      case Sendable::kTrace:
        skipped.push_back(fmt::format("TRACE {}: the model file cannot send TRACE requests", path));
        return;
      case Sendable::kYes:
        break;
    }
    std::vector<YAML::Node> shared;
    for (const auto& p : list(item, "parameters")) shared.push_back(doc.resolve(p));
    Operation op{path, method, operation, shared, {}};
    for (const auto& p_in : list(operation, "parameters")) {
      const YAML::Node p = doc.resolve(p_in);
      const auto same =
          std::find_if(op.parameters.begin(), op.parameters.end(), [&](const YAML::Node& q) {
            return scalar(field(q, "name")) == scalar(field(p, "name")) &&
                   scalar(field(q, "in")) == scalar(field(p, "in"));
          });
      if (same != op.parameters.end()) {
        same->reset(p);  // assignment would write into the shared node
      } else {
        op.parameters.push_back(p);
      }
    }
    const std::string id = scalar(field(operation, "operationId"));
    op.name = unique_name(id.empty() ? snake_case(method + "_" + path) : identifier(id), ops);
    ops.push_back(std::move(op));
  });
  return ops;
}

const Operation* find_operation(const std::vector<Operation>& ops, const YAML::Node& link) {
  const std::string id = scalar(field(link, "operationId"));
  std::string ref = scalar(field(link, "operationRef"));
  std::string path, method;
  if (id.empty() && ref.starts_with("#/paths/")) {
    ref.erase(0, 8);
    const std::size_t slash = ref.rfind('/');
    if (slash == std::string::npos) return nullptr;
    method = ref.substr(slash + 1);
    for (std::size_t i = 0; i < slash; ++i) {
      if (ref[i] == '~' && i + 1 < slash) {
        path += ref[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        path += ref[i];
      }
    }
  }
  for (const Operation& op : ops) {
    const bool by_id = !id.empty() && scalar(field(op.node, "operationId")) == id;
    const bool by_ref = id.empty() && !path.empty() && op.path == path && op.method == method;
    if (by_id || by_ref) return &op;
  }
  return nullptr;
}

YAML::Node json_media(const YAML::Node& content) {
  if (const YAML::Node json = field(content, "application/json"); json.IsDefined()) return json;
  for (const auto& entry : content) {
    if (lower(scalar(entry.first)).find("json") != std::string::npos) return entry.second;
  }
  return field(content, "*/*");
}

YAML::Node success_schema(const OpenApiDocument& doc, const Operation& op) {
  for (const auto& entry : mapping(op.node, "responses")) {
    if (!scalar(entry.first).starts_with("2")) continue;
    const YAML::Node media = json_media(field(doc.resolve(entry.second), "content"));
    if (const YAML::Node schema = field(media, "schema"); schema.IsDefined()) return schema;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string server_path(const YAML::Node& server) {
  std::string url = scalar(field(server, "url"));
  for (const auto& v : mapping(server, "variables")) {
    const std::string name = "{" + scalar(v.first) + "}";
    const std::string value = scalar(field(v.second, "default"));
    for (std::size_t at = url.find(name); at != std::string::npos;
         at = url.find(name, at + value.size())) {
      url.replace(at, name.size(), value);
    }
  }
  std::string path;
  if (const std::size_t scheme = url.find("://"); scheme != std::string::npos) {
    const std::size_t slash = url.find('/', scheme + 3);
    if (slash != std::string::npos) path = url.substr(slash);
  } else if (url.starts_with("/")) {
    path = url;
  }
  while (path.ends_with("/")) path.pop_back();
  return path;
}

bool is_health_path(std::string_view path) {
  const std::string last = lower(path.substr(path.rfind('/') + 1));
  for (std::string_view name :
       {"health", "healthz", "healthcheck", "ready", "readyz", "livez", "ping"}) {
    if (last == name) return true;
  }
  return false;
}

std::string identifier(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (is_name_char(c)) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty()) return "x";
  if (std::isalpha(static_cast<unsigned char>(out[0])) == 0 && out[0] != '_') out = "_" + out;
  return out;
}

std::string snake_case(std::string_view text) {
  std::string split;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool after_lower = i > 0 && (std::islower(static_cast<unsigned char>(text[i - 1])) != 0 ||
                                       std::isdigit(static_cast<unsigned char>(text[i - 1])) != 0);
    if (std::isupper(c) != 0 && after_lower) split += '_';
    const char next = std::isalnum(c) != 0 ? static_cast<char>(std::tolower(c)) : '_';
    if (next != '_' || split.empty() || split.back() != '_') split += next;
  }
  return identifier(split);
}

std::string key_for(std::string_view path, std::string_view param) {
  if (lower(param) != "id") return snake_case(param);
  const std::string marker = "/{" + std::string(param) + "}";
  const std::size_t at = path.find(marker);
  if (at == std::string_view::npos || at == 0) return "id";
  const std::size_t start = path.rfind('/', at - 1);
  const std::string_view segment = path.substr(start + 1, at - start - 1);
  if (segment.empty() || segment.find('{') != std::string_view::npos) return "id";
  return snake_case(singular(std::string(segment)) + "_id");
}

}  // namespace prowl::modelfile::detail
