#include "openapi_values.hpp"

#include "json_value.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

namespace prowl::modelfile::detail {

namespace {

// Plain scalars as the model file's reader types them (yaml_reader.cpp), so that a value written
// back plain reads as the same value.
OJson typed_scalar(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (!plain_scalar(node)) return s;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  const std::size_t start = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (start < s.size() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(start), s.end(),
                                      [](char c) { return c >= '0' && c <= '9'; })) {
    errno = 0;
    const long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno != ERANGE) return static_cast<std::int64_t>(v);
  }
  const bool numeric =
      std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
      std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+';
      });
  if (numeric) {
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end != nullptr && *end == '\0' && std::isfinite(d)) return d;
  }
  return s;
}

OJson to_json_at(const YAML::Node& node, int depth) {
  if (!node.IsDefined() || node.IsNull() || depth > kMaxSchemaDepth) return nullptr;
  if (node.IsScalar()) return typed_scalar(node);
  if (node.IsSequence()) {
    OJson out = OJson::array();
    for (const auto& element : node) out.push_back(to_json_at(element, depth + 1));
    return out;
  }
  OJson out = OJson::object();
  for (const auto& entry : node) out[scalar(entry.first)] = to_json_at(entry.second, depth + 1);
  return out;
}

// The schema's first type that is not "null" (3.1 lists types; 3.0 has nullable), or "" when it
// names none.
std::string type_of(const YAML::Node& schema) {
  const YAML::Node type = field(schema, "type");
  if (type.IsScalar()) return type.Scalar();
  if (type.IsSequence()) {
    for (const auto& t : type) {
      if (scalar(t) != "null") return scalar(t);
    }
  }
  return "";
}

bool nullable(const YAML::Node& schema) {
  if (scalar(field(schema, "nullable")) == "true") return true;
  const YAML::Node type = field(schema, "type");
  if (type.IsSequence()) {
    for (const auto& t : type) {
      if (scalar(t) == "null") return true;
    }
  }
  return false;
}

std::optional<double> number_field(const YAML::Node& schema, std::string_view key) {
  const OJson v = yaml_to_json(field(schema, key));
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

// The smallest integer `schema` allows, when it bounds it from below: exclusiveMinimum is a
// number in 3.1 and a flag on minimum in 3.0.
std::optional<double> lower_bound(const YAML::Node& schema) {
  if (const std::optional<double> ex = number_field(schema, "exclusiveMinimum")) {
    return std::floor(*ex) + 1;
  }
  const std::optional<double> minimum = number_field(schema, "minimum");
  if (!minimum) return std::nullopt;
  if (scalar(field(schema, "exclusiveMinimum")) == "true") return std::floor(*minimum) + 1;
  return std::ceil(*minimum);
}

std::optional<double> upper_bound(const YAML::Node& schema) {
  if (const std::optional<double> ex = number_field(schema, "exclusiveMaximum")) {
    return std::ceil(*ex) - 1;
  }
  const std::optional<double> maximum = number_field(schema, "maximum");
  if (!maximum) return std::nullopt;
  if (scalar(field(schema, "exclusiveMaximum")) == "true") return std::ceil(*maximum) - 1;
  return std::floor(*maximum);
}

OJson as_number(double v) {
  if (v == std::floor(v) && std::abs(v) < 9e15) return static_cast<std::int64_t>(v);
  return v;
}

OJson minimal_number(const YAML::Node& schema) {
  double v = 0;
  if (const std::optional<double> lo = lower_bound(schema)) {
    v = *lo;
  } else if (const std::optional<double> hi = upper_bound(schema); hi && *hi < 0) {
    v = *hi;
  }
  if (const std::optional<double> m = number_field(schema, "multipleOf"); m && *m > 0) {
    v = std::ceil(v / *m) * *m;
  }
  return as_number(v);
}

OJson minimal_string(const YAML::Node& schema) {
  const std::string format = scalar(field(schema, "format"));
  if (format == "date") return "2000-01-01";
  if (format == "date-time") return "2000-01-01T00:00:00Z";
  if (format == "uuid") return "00000000-0000-0000-0000-000000000000";
  if (format == "email") return "a@example.com";
  if (format == "uri" || format == "url") return "http://example.com";
  const OJson min_length = yaml_to_json(field(schema, "minLength"));
  const OJson max_length = yaml_to_json(field(schema, "maxLength"));
  if (max_length.is_number_integer() && max_length.get<std::int64_t>() == 0) return "";
  std::int64_t n = 1;
  if (min_length.is_number_integer())
    n = std::clamp<std::int64_t>(min_length.get<std::int64_t>(), 1, 1024);
  return std::string(static_cast<std::size_t>(n), 'a');
}

struct Minimal {
  const OpenApiDocument& doc;
  std::vector<std::string> active;  // the $refs being expanded, outermost first

  OJson value(const YAML::Node& schema, int depth) {
    if (depth > kMaxSchemaDepth || !schema.IsDefined()) return nullptr;
    if (const std::string ref = OpenApiDocument::ref_of(schema); !ref.empty()) {
      // A schema that requires itself has no finite value: cut it where it would repeat.
      if (std::find(active.begin(), active.end(), ref) != active.end()) return nullptr;
      active.push_back(ref);
      OJson v = value(doc.resolve(schema), depth + 1);
      active.pop_back();
      return v;
    }
    if (std::optional<OJson> example = example_of(doc, schema)) return *example;
    if (const YAML::Node c = field(schema, "const"); c.IsDefined()) return yaml_to_json(c);
    if (const YAML::Node e = field(schema, "enum"); e.IsSequence() && e.size() > 0) {
      return yaml_to_json(e[0]);
    }
    if (const YAML::Node d = field(schema, "default"); d.IsDefined()) return yaml_to_json(d);
    for (const char* key : {"oneOf", "anyOf"}) {
      if (const YAML::Node alternatives = field(schema, key);
          alternatives.IsSequence() && alternatives.size() > 0) {
        return value(alternatives[0], depth + 1);
      }
    }
    std::string type = type_of(schema);
    const ObjectShape shape = object_shape(doc, schema);
    if (type.empty() && (!shape.properties.empty() || !shape.required.empty())) type = "object";
    if (type.empty() && field(schema, "items").IsDefined()) type = "array";
    if (type.empty()) {
      const YAML::Node all = field(schema, "allOf");
      return all.IsSequence() && all.size() > 0 ? value(all[0], depth + 1) : OJson(nullptr);
    }
    if (type == "object") return object(shape, depth);
    if (type == "array") {
      OJson out = OJson::array();
      const OJson min_items = yaml_to_json(field(schema, "minItems"));
      const std::int64_t n = min_items.is_number_integer()
                                 ? std::clamp<std::int64_t>(min_items.get<std::int64_t>(), 0, 16)
                                 : 0;
      for (std::int64_t i = 0; i < n; ++i) out.push_back(value(field(schema, "items"), depth + 1));
      return out;
    }
    if (type == "integer" || type == "number") return minimal_number(schema);
    if (type == "string") return minimal_string(schema);
    if (type == "boolean") return false;
    return nullptr;
  }

  OJson object(const ObjectShape& shape, int depth) {
    OJson out = OJson::object();
    for (const auto& [name, property] : shape.properties) {
      if (shape.requires_name(name)) out[name] = value(property, depth + 1);
    }
    for (const std::string& name : shape.required) {
      if (!out.contains(name)) out[name] = nullptr;
    }
    return out;
  }
};

void shape_of(const OpenApiDocument& doc, const YAML::Node& schema_in, int depth,
              ObjectShape& out) {
  if (depth > kMaxSchemaDepth) return;
  const YAML::Node schema = doc.resolve(schema_in);
  for (const auto& entry : mapping(schema, "properties")) {
    const std::string name = scalar(entry.first);
    const bool seen = std::any_of(out.properties.begin(), out.properties.end(),
                                  [&](const auto& p) { return p.first == name; });
    if (!seen) out.properties.emplace_back(name, entry.second);
  }
  for (const auto& r : list(schema, "required")) {
    if (!out.requires_name(scalar(r))) out.required.push_back(scalar(r));
  }
  for (const auto& part : list(schema, "allOf")) shape_of(doc, part, depth + 1, out);
}

// minimum and maximum, each inclusive, or exclusive by a 3.0 flag; 3.1's exclusive bounds.
void bound_checks(const YAML::Node& property, const std::string& at, std::vector<Check>& out) {
  struct Bound {
    const char* key;
    const char* exclusive_key;
    const char* op;
    const char* exclusive_op;
  };
  for (const Bound& b : {Bound{"minimum", "exclusiveMinimum", "at_least", "greater_than"},
                         Bound{"maximum", "exclusiveMaximum", "at_most", "less_than"}}) {
    const OJson bound = yaml_to_json(field(property, b.key));
    const OJson exclusive = yaml_to_json(field(property, b.exclusive_key));
    if (bound.is_number()) {
      out.push_back({at, exclusive == true ? b.exclusive_op : b.op, bound});
    }
    if (exclusive.is_number()) out.push_back({at, b.exclusive_op, exclusive});
  }
}

void checks_at(const OpenApiDocument& doc, const YAML::Node& schema, const std::string& pointer,
               int depth, std::vector<Check>& out) {
  const ObjectShape shape = object_shape(doc, schema);
  for (const std::string& name : shape.required) {
    const std::string at = pointer + "/" + pointer_token(name);
    const std::size_t before = out.size();
    const auto it = std::find_if(shape.properties.begin(), shape.properties.end(),
                                 [&](const auto& p) { return p.first == name; });
    const YAML::Node property = it == shape.properties.end() ? YAML::Node(YAML::NodeType::Undefined)
                                                             : doc.resolve(it->second);
    if (property.IsDefined() && !nullable(property)) {
      const std::string type = type_of(property);
      const YAML::Node values = field(property, "enum");
      if (const YAML::Node c = field(property, "const");
          c.IsDefined() && !c.IsMap() && !c.IsSequence()) {
        out.push_back({at, "equals", yaml_to_json(c)});
      } else if (values.IsSequence() && values.size() == 1 && values[0].IsScalar()) {
        out.push_back({at, "equals", yaml_to_json(values[0])});
      } else if (type == "integer" || type == "number") {
        bound_checks(property, at, out);
      } else if ((type == "object" || type.empty()) && depth < kMaxSchemaDepth) {
        checks_at(doc, property, at, depth + 1, out);
      }
    }
    if (out.size() == before) out.push_back({at, "exists", true});
  }
}

}  // namespace

OJson yaml_to_json(const YAML::Node& node) { return to_json_at(node, 0); }

bool ObjectShape::requires_name(const std::string& name) const {
  return std::find(required.begin(), required.end(), name) != required.end();
}

ObjectShape object_shape(const OpenApiDocument& doc, const YAML::Node& schema) {
  ObjectShape shape;
  shape_of(doc, schema, 0, shape);
  return shape;
}

std::optional<OJson> example_of(const OpenApiDocument& doc, const YAML::Node& holder_in) {
  const YAML::Node holder = doc.resolve(holder_in);
  if (const YAML::Node example = field(holder, "example"); example.IsDefined()) {
    return yaml_to_json(example);
  }
  const YAML::Node examples = field(holder, "examples");
  if (examples.IsSequence() && examples.size() > 0) return yaml_to_json(examples[0]);
  if (examples.IsMap()) {
    for (const auto& entry : examples) {
      if (const YAML::Node value = field(doc.resolve(entry.second), "value"); value.IsDefined()) {
        return yaml_to_json(value);
      }
    }
  }
  if (const YAML::Node schema = field(holder, "schema"); schema.IsDefined()) {
    return example_of(doc, schema);
  }
  return std::nullopt;
}

OJson minimal_value(const OpenApiDocument& doc, const YAML::Node& schema) {
  Minimal minimal{doc, {}};
  return minimal.value(schema, 0);
}

std::optional<SchemaDomain> domain_of(const OpenApiDocument& doc, const YAML::Node& schema_in) {
  const YAML::Node schema = doc.resolve(schema_in);
  if (const YAML::Node values = field(schema, "enum"); values.IsSequence()) {
    SchemaDomain domain;
    std::set<std::string> texts;
    for (const auto& v : values) {
      OJson value = yaml_to_json(v);
      if (!value.is_string() && !value.is_number()) return std::nullopt;
      if (!texts.insert(value.is_string() ? value.get<std::string>() : value.dump()).second) {
        return std::nullopt;
      }
      domain.one_of.push_back(std::move(value));
    }
    if (domain.one_of.size() < 2 || domain.one_of.size() > kMaxDomainValues) return std::nullopt;
    return domain;
  }
  if (type_of(schema) != "integer") return std::nullopt;
  const std::optional<double> lo = lower_bound(schema);
  const std::optional<double> hi = upper_bound(schema);
  if (!lo || !hi || *hi - *lo < 1 || *hi - *lo + 1 > static_cast<double>(kMaxDomainValues)) {
    return std::nullopt;
  }
  return SchemaDomain{{}, static_cast<std::int64_t>(*lo), static_cast<std::int64_t>(*hi)};
}

std::vector<Check> response_checks(const OpenApiDocument& doc, const YAML::Node& schema) {
  std::vector<Check> out;
  checks_at(doc, schema, "", 0, out);
  return out;
}

std::string escape_template(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') out += '$';
    out += text[i];
  }
  return out;
}

void escape_templates(OJson& value) {
  if (value.is_string()) {
    value = escape_template(value.get<std::string>());
  } else if (value.is_structured()) {
    for (auto& element : value) escape_templates(element);
  }
}

}  // namespace prowl::modelfile::detail
