#include "openapi_document.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "yaml_bounds.hpp"

namespace prowl::modelfile::detail {

// Large public specs hold a few hundred thousand nodes; 2 million leaves room and bounds what an
// alias bomb can cost.
constexpr YamlBounds kOpenApiBounds{2'000'000, kMaxModelDepth, std::uint64_t{64} << 20};

namespace {

// Nodes the $ref check visits at most: aliases are shared by yaml-cpp but visited once per
// reference, so a document of anchors made of aliases would otherwise take forever.
constexpr std::size_t kMaxVisitedNodes = 2'000'000;

constexpr std::string_view kStartHint =
    "an OpenAPI document is a mapping that starts with openapi: 3.0.3 (or 3.1.0), info: and "
    "paths:";

std::string document_kind(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsScalar()) return "a scalar";
  if (node.IsSequence()) return "a list";
  return "a mapping";
}

// "~1" is '/', "~0" is '~', and a URI fragment may percent-encode.
std::string decode_pointer_token(std::string_view token) {
  std::string decoded;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const auto hex = [](char c) {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (token[i] == '%' && i + 2 < token.size() && hex(token[i + 1]) >= 0 &&
        hex(token[i + 2]) >= 0) {
      decoded += static_cast<char>(hex(token[i + 1]) * 16 + hex(token[i + 2]));
      i += 2;
    } else {
      decoded += token[i];
    }
  }
  std::string out;
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    if (decoded[i] == '~' && i + 1 < decoded.size() &&
        (decoded[i + 1] == '0' || decoded[i + 1] == '1')) {
      out += decoded[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += decoded[i];
    }
  }
  return out;
}

// Keys whose values are data (examples, defaults, enums, extensions), not schemas: a "$ref" in
// them is a value, not a reference. Under `properties` every key is a property name.
bool is_data_key(std::string_view key) {
  return key == "example" || key == "examples" || key == "default" || key == "enum" ||
         key == "const" || key == "value" || key.starts_with("x-");
}

}  // namespace

YAML::Node field(const YAML::Node& node, std::string_view key) {
  if (!node.IsDefined() || !node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  for (const auto& entry : node) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) {
      if (entry.second.IsNull()) break;
      return entry.second;
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node list(const YAML::Node& node, std::string_view key) {
  const YAML::Node f = field(node, key);
  return f.IsDefined() && f.IsSequence() ? f : YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node mapping(const YAML::Node& node, std::string_view key) {
  const YAML::Node f = field(node, key);
  return f.IsDefined() && f.IsMap() ? f : YAML::Node(YAML::NodeType::Undefined);
}

std::string scalar(const YAML::Node& node) {
  return node.IsDefined() && node.IsScalar() ? node.Scalar() : std::string();
}

bool plain_scalar(const YAML::Node& node) {
  return node.IsDefined() && node.IsScalar() && node.Tag() == "?";
}

Status OpenApiDocument::error(const YAML::Node& at, std::string_view message,
                              std::string_view hint) const {
  std::string text;
  if (at.IsDefined() && at.Mark().line >= 0) {
    text = fmt::format("{}:{}:{}: {}", file_, at.Mark().line + 1, at.Mark().column + 1, message);
  } else {
    text = fmt::format("{}: {}", file_, message);
  }
  if (!hint.empty()) text += fmt::format("\n  hint: {}", hint);
  return Status::invalid(std::move(text));
}

Result<OpenApiDocument> OpenApiDocument::parse(std::string_view text, std::string file) {
  // Before yaml-cpp recurses into it or anything expands an alias: a model file's depth and
  // read-ahead limits, and room for a large document's nodes.
  const Reader reader(file, {}, /*resolve_env=*/false);
  if (Status st = check_utf8(text, reader); !st) return st;
  if (Status st = check_yaml_bounds(text, reader, kOpenApiBounds); !st) return st;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string where = file;
    if (e.mark.line >= 0) where += fmt::format(":{}:{}", e.mark.line + 1, e.mark.column + 1);
    return Status::invalid(fmt::format(
        "{}: not YAML or JSON: {}\n  hint: an OpenAPI document is YAML or JSON; check the "
        "quoting and indentation here or just above",
        where, e.msg));
  }
  OpenApiDocument doc(std::move(root), std::move(file));
  if (!doc.root_.IsDefined() || !doc.root_.IsMap()) {
    return doc.error(YAML::Node(YAML::NodeType::Undefined),
                     fmt::format("not an OpenAPI document: the file holds {}, not a mapping",
                                 document_kind(doc.root_)),
                     kStartHint);
  }
  if (Status st = doc.check_version(); !st) return st;
  if (Status st = doc.check_paths(); !st) return st;
  if (Status st = doc.check_refs(); !st) return st;
  return doc;
}

Status OpenApiDocument::check_version() const {
  if (const YAML::Node swagger = field(root_, "swagger"); swagger.IsDefined()) {
    return error(swagger,
                 fmt::format("this is a Swagger {} document; prowl init reads OpenAPI 3.0 and 3.1",
                             scalar(swagger)),
                 "convert it to OpenAPI 3 first, e.g. with swagger2openapi or in "
                 "editor.swagger.io (Edit > Convert to OpenAPI 3)");
  }
  const YAML::Node version = field(root_, "openapi");
  if (!version.IsDefined()) {
    return error(version, "not an OpenAPI document: it has no 'openapi' key", kStartHint);
  }
  const std::string v = scalar(version);
  if (!v.starts_with("3.0") && !v.starts_with("3.1")) {
    return error(
        version,
        fmt::format("openapi: '{}' is not a version prowl init reads (3.0.x and 3.1.x)", v),
        "prowl init reads OpenAPI 3.0 and 3.1; write the version the document follows, "
        "as in openapi: 3.0.3");
  }
  return Status::ok();
}

Status OpenApiDocument::check_paths() const {
  constexpr std::string_view kHint =
      "add the API's operations under paths: (prowl makes one action per operation)";
  const YAML::Node paths = field(root_, "paths");
  if (!paths.IsDefined()) {
    return error(paths, "the document has no paths: there is no operation to make an action of",
                 kHint);
  }
  // The first path that holds an operation but does not start with '/', named if it is why no
  // operation is left (collect_operations leaves such paths out, and TRACE operations too).
  YAML::Node unrooted(YAML::NodeType::Undefined);
  bool any = false;
  for_each_operation(
      [&](const YAML::Node& path, const YAML::Node&, const std::string& method, const YAML::Node&) {
        switch (sendable(scalar(path), method)) {
          case Sendable::kYes:
            any = true;
            break;
          case Sendable::kUnrootedPath:
            if (!unrooted.IsDefined()) unrooted.reset(path);
            break;
          case Sendable::kTrace:
            break;
        }
      });
  if (any) return Status::ok();
  if (unrooted.IsDefined()) {
    return error(unrooted,
                 fmt::format("path '{}' does not start with '/', and no other path holds an "
                             "operation prowl can send",
                             escape_text(scalar(unrooted))),
                 "an OpenAPI path starts with '/' and is appended to the server's URL, as in "
                 "/health");
  }
  return error(paths,
               "paths holds no operation prowl can send: there is no operation to make an "
               "action of (TRACE is left out)",
               kHint);
}

void OpenApiDocument::for_each_operation(const OperationVisitor& visit) const {
  for (const auto& path_entry : mapping(root_, "paths")) {
    const YAML::Node item = resolve(path_entry.second);
    if (!item.IsDefined() || !item.IsMap()) continue;  // a path item is a mapping of operations
    for (const auto& entry : item) {
      const std::string method = scalar(entry.first);
      if (std::find(std::begin(kOpenApiMethods), std::end(kOpenApiMethods), method) !=
          std::end(kOpenApiMethods)) {
        visit(path_entry.first, item, method, entry.second);
      }
    }
  }
}

Result<YAML::Node> OpenApiDocument::target(const YAML::Node& at, const std::string& ref) const {
  if (!ref.starts_with("#")) {
    return error(
        at, fmt::format("$ref '{}' points into another file; prowl init reads one document", ref),
        "bundle the document into one file first (e.g. redocly bundle or swagger-cli "
        "bundle)");
  }
  YAML::Node node = root_;
  std::string walked = "#";
  std::string_view rest = std::string_view(ref).substr(1);
  if (!rest.empty() && rest.front() != '/') {
    return error(at, fmt::format("$ref '{}' is not a JSON Pointer into this document", ref),
                 "write references as '#/components/schemas/NAME'");
  }
  while (!rest.empty()) {
    rest.remove_prefix(1);
    const std::size_t slash = rest.find('/');
    const std::string token = decode_pointer_token(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    YAML::Node next(YAML::NodeType::Undefined);
    if (node.IsMap()) {
      next.reset(field(node, token));
    } else if (node.IsSequence() && !token.empty() &&
               std::all_of(token.begin(), token.end(),
                           [](char c) { return c >= '0' && c <= '9'; }) &&
               token.size() < 10 && std::stoul(token) < node.size()) {
      next.reset(node[std::stoul(token)]);
    }
    if (!next.IsDefined()) {
      return error(
          at, fmt::format("$ref '{}' does not resolve: there is no '{}' in {}", ref, token, walked),
          "correct the reference, or add what it names to the document");
    }
    node.reset(next);
    walked += "/" + token;
  }
  return node;
}

YAML::Node OpenApiDocument::resolve(const YAML::Node& node) const {
  YAML::Node current = node;
  std::set<std::string> seen;
  for (std::string ref = ref_of(current); !ref.empty(); ref = ref_of(current)) {
    if (!seen.insert(ref).second) return YAML::Node(YAML::NodeType::Undefined);
    Result<YAML::Node> next = target(current, ref);
    if (!next) return YAML::Node(YAML::NodeType::Undefined);
    current.reset(*next);
  }
  return current;
}

std::string OpenApiDocument::ref_of(const YAML::Node& node) { return scalar(field(node, "$ref")); }

Status OpenApiDocument::check_refs() const {
  struct Entry {
    YAML::Node node;
    bool names_only;  // a mapping of property names to schemas: no key of it is data
  };
  std::vector<Entry> stack{{root_, false}};
  std::size_t visited = 0;
  while (!stack.empty()) {
    Entry entry = std::move(stack.back());
    stack.pop_back();
    if (++visited > kMaxVisitedNodes) {
      return error(YAML::Node(YAML::NodeType::Undefined),
                   fmt::format("the document expands to more than {} nodes (aliases count once "
                               "per use)",
                               kMaxVisitedNodes),
                   "write the document without anchors and aliases that repeat each other");
    }
    // Children are pushed last first, so that the first bad $ref in the file is the one named.
    std::vector<Entry> children;
    if (entry.node.IsSequence()) {
      for (const auto& element : entry.node) children.push_back({element, false});
      stack.insert(stack.end(), children.rbegin(), children.rend());
      continue;
    }
    if (!entry.node.IsMap()) continue;
    if (const YAML::Node ref = field(entry.node, "$ref"); ref.IsScalar() && !entry.names_only) {
      std::vector<std::string> chain{ref.Scalar()};
      YAML::Node current = entry.node;
      for (std::string r = ref.Scalar(); !r.empty(); r = ref_of(current)) {
        Result<YAML::Node> next = target(ref, r);
        if (!next) return next.status();
        current.reset(*next);
        const std::string following = ref_of(current);
        if (std::find(chain.begin(), chain.end(), following) != chain.end()) {
          chain.push_back(following);
          std::string path;
          for (const std::string& c : chain) path += (path.empty() ? "'" : " -> '") + c + "'";
          return error(ref,
                       fmt::format("$ref '{}' is a cycle of references that never reaches a value "
                                   "({})",
                                   ref.Scalar(), path),
                       "make one of these references name a schema (or other object) itself");
        }
        if (!following.empty()) chain.push_back(following);
      }
    }
    for (const auto& child : entry.node) {
      const std::string key = scalar(child.first);
      if (!entry.names_only && is_data_key(key)) continue;
      children.push_back(
          {child.second, !entry.names_only && (key == "properties" || key == "patternProperties" ||
                                               key == "$defs")});
    }
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return Status::ok();
}

}  // namespace prowl::modelfile::detail
