// Reader: typed access to the nodes of a model file with errors that name the file, line and
// column. Every accessor takes an Item (a node, its position and how messages call it) and
// returns a Result whose Status is invalid with "FILE:LINE:COL: message[\n  hint: ...]".
// Environment references in templates are resolved here, so an unset variable fails while the
// file is read; a Reader made with resolve_env = false reads no variable and leaves every
// reference as it is (for a spec that is only listed). Not thread-safe; one per file read.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "prowl/core/context.hpp"
#include "prowl/core/status.hpp"
#include "prowl/modelfile/spec.hpp"
#include "prowl/modelfile/template.hpp"

namespace prowl::modelfile::detail {

// A node to read: where it is and what messages call it ("action 'pay': timeout").
struct Item {
  YAML::Node node;
  SourcePos pos;
  std::string what;
};

class Reader {
 public:
  Reader(std::string file, std::filesystem::path base_dir, bool resolve_env = true);

  const std::string& file() const { return file_; }
  bool resolves_env() const { return resolve_env_; }
  SourcePos pos(const YAML::Node& node) const;
  Status error(SourcePos at, std::string_view message, std::string_view hint = {}) const;

  // Calls fn for each entry of the mapping in item, in file order, after checking that every key
  // is a string, none repeats and each is one of `known` (an unknown key names the closest
  // known one). The entry's item is named "<item.what>: <key>" (or "<key>" when item.what is
  // empty); a null value's position is its key's.
  using EntryFn = std::function<Status(const std::string& key, const Item& value)>;
  Status entries(const Item& item, std::span<const std::string_view> known,
                 const EntryFn& fn) const;
  // Each element of a sequence; a scalar or mapping counts as a sequence of one when
  // `single_ok`.
  Status elements(const Item& item, bool single_ok,
                  const std::function<Status(const Item&)>& fn) const;

  bool is_null(const Item& item) const { return !item.node || item.node.IsNull(); }
  Status expect_map(const Item& item) const;
  Result<std::string> text(const Item& item) const;
  // A name: letters, digits, '_', '-' and '.', starting with a letter or '_'.
  Result<std::string> name(const Item& item) const;
  Result<std::int64_t> integer(const Item& item, std::int64_t min, std::int64_t max) const;
  Result<double> number(const Item& item) const;
  Result<bool> boolean(const Item& item) const;
  // "250ms", "2s", "1.5s".
  Result<std::chrono::milliseconds> duration(const Item& item) const;
  // A scalar, or a sequence of scalars.
  Result<std::vector<std::string>> texts(const Item& item) const;
  // A scalar as a context value: plain scalars are typed (null, true/false, integers, decimals),
  // quoted scalars are strings.
  Result<Value> value(const Item& item) const;
  // Where a template may write ${raw:key}: only where it becomes part of a URL.
  enum class Raw { kRefused, kAllowed };
  // A scalar template with environment references resolved (unless the reader leaves them).
  // With `secrets`, the values taken from the environment are added to it. A raw key is an
  // error unless `raw` allows it.
  Result<Template> templ(const Item& item, std::vector<std::string>* secrets = nullptr,
                         Raw raw = Raw::kRefused) const;
  // Any node as a JSON template: mappings become objects, sequences arrays, scalars are typed as
  // in value(); strings may hold templates.
  Result<JsonTemplate> json(const Item& item) const;

  // `path` made absolute against the model file's directory.
  std::string absolute(const std::string& path) const;

 private:
  Status json_node(const Item& item, const std::string& pointer, nlohmann::ordered_json& out,
                   std::vector<JsonTemplate::Slot>& slots) const;

  std::string file_;
  std::filesystem::path base_dir_;
  bool resolve_env_ = true;
};

// Item of a child: position of the node (or `fallback` when it is missing or null).
Item child(const YAML::Node& node, SourcePos fallback, std::string what);

}  // namespace prowl::modelfile::detail
