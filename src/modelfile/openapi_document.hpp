// An OpenAPI document as `prowl init` reads it: the YAML (or JSON) tree, checked to be OpenAPI
// 3.0 or 3.1 with at least one operation, every $ref in it resolved, and messages that name the
// file, line and column. Node lookups here never insert into the tree (yaml-cpp's non-const
// operator[] would), and a node variable is re-pointed with reset(), never assigned (assigning
// a yaml-cpp node writes the other node into the tree it belongs to). Immutable once made; safe
// to read from several threads.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "prowl/core/status.hpp"

namespace prowl::modelfile::detail {

// The methods a path item may hold operations for (OpenAPI 3's fixed fields), lower case.
inline constexpr std::string_view kOpenApiMethods[] = {"get",     "put",  "post",  "delete",
                                                       "options", "head", "patch", "trace"};

// The child `key` of a mapping, or an undefined node when `node` is not a mapping or has no such
// key (also when the value is null: "key: ~" says nothing).
YAML::Node field(const YAML::Node& node, std::string_view key);
// field(), but only a sequence (`list`) or only a mapping (`mapping`); an undefined node, which
// iterates as empty, otherwise. Loop over these, not field(): iterating a mapping as a list (or
// the reverse) yields invalid nodes, which yaml-cpp throws on.
YAML::Node list(const YAML::Node& node, std::string_view key);
YAML::Node mapping(const YAML::Node& node, std::string_view key);
// The scalar text of `node`, or "" when it is not a scalar.
std::string scalar(const YAML::Node& node);
// Whether `node` is a plain (unquoted) scalar: typed as a number, boolean or null in YAML.
bool plain_scalar(const YAML::Node& node);

// Whether prowl init makes an action of the operation `method` (lower case, one of
// kOpenApiMethods) of the path `path`, and if not, why: an OpenAPI path starts with '/' (it is
// appended to the server's URL), and the model file cannot send TRACE. check_paths and
// collect_operations both ask this, so that a document parse() takes has an action to make.
enum class Sendable { kYes, kUnrootedPath, kTrace };
inline Sendable sendable(std::string_view path, std::string_view method) {
  if (!path.starts_with("/")) return Sendable::kUnrootedPath;
  return method == "trace" ? Sendable::kTrace : Sendable::kYes;
}

class OpenApiDocument {
 public:
  // Checks `text` and makes the document. Invalid, with a hint, when it is not YAML or JSON,
  // not a mapping, a Swagger 2.0 document, not OpenAPI 3.0 or 3.1, has no operation under
  // `paths`, or a $ref that does not resolve (another file, nothing at its pointer, a cycle of
  // references that never reaches a value).
  static Result<OpenApiDocument> parse(std::string_view text, std::string file);

  const YAML::Node& root() const { return root_; }
  const std::string& file() const { return file_; }
  // `node` with its $ref followed until a node without one (every $ref resolves: parse checked
  // them all). A node without $ref is itself.
  YAML::Node resolve(const YAML::Node& node) const;
  // The $ref of `node`, or "" when it has none.
  static std::string ref_of(const YAML::Node& node);
  // Calls visit(path, item, method, operation) for each operation under `paths`, in the
  // document's order: `path` is the path's key node, `item` the path item ($ref resolved; only
  // items that are mappings), `method` one of kOpenApiMethods.
  using OperationVisitor =
      std::function<void(const YAML::Node& path, const YAML::Node& item, const std::string& method,
                         const YAML::Node& operation)>;
  void for_each_operation(const OperationVisitor& visit) const;

  // "FILE:LINE:COL: message[\n  hint: hint]" at `at` (1-based), or "FILE: ..." when `at` has no
  // position.
  Status error(const YAML::Node& at, std::string_view message, std::string_view hint = {}) const;

 private:
  OpenApiDocument(YAML::Node root, std::string file)
      : root_(std::move(root)), file_(std::move(file)) {}
  Status check_version() const;
  Status check_paths() const;
  // Every $ref in the tree resolves; visits at most a bounded number of nodes.
  Status check_refs() const;
  // The node `ref` points to ("#/components/schemas/Pet"), one step (no chain followed).
  Result<YAML::Node> target(const YAML::Node& at, const std::string& ref) const;

  YAML::Node root_;
  std::string file_;
};

}  // namespace prowl::modelfile::detail
