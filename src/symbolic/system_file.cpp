#include "prowl/symbolic/system_file.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "prowl/core/text_file.hpp"
#include "prowl/symbolic/region.hpp"
#include "term_parser.hpp"

namespace prowl::sym {

namespace {

constexpr std::size_t kMaxDomain = 100000;

struct Position {
  int line = 1;
  int column = 1;
};

Position position_of(const YAML::Node& node) {
  if (!node || node.Mark().line < 0) return {};
  return {node.Mark().line + 1, node.Mark().column + 1};
}

class FileReader {
 public:
  FileReader(z3::context& context, std::string source)
      : context_(context), source_(std::move(source)), terms_(context) {}

  Result<SystemFile> read(const YAML::Node& root);

 private:
  Status error(const YAML::Node& at, const std::string& where, const std::string& what,
               const std::string& hint = "") const {
    return error_at(position_of(at), where, what, hint);
  }
  Status error_at(Position at, const std::string& where, const std::string& what,
                  const std::string& hint = "") const {
    std::string text = fmt::format("{}:{}:{}: {}: {}", source_, at.line, at.column, where, what);
    if (!hint.empty()) text += "\n  hint: " + hint;
    return Status::invalid(std::move(text));
  }
  Status check_keys(const YAML::Node& map, const std::string& where,
                    std::initializer_list<std::string_view> known) const;
  Result<std::string> name_of(const YAML::Node& key, const std::string& where) const;
  Result<z3::sort> sort_of(const YAML::Node& node, const std::string& where) const;
  Result<z3::expr> term(const YAML::Node& node, const std::string& where) const;
  Result<z3::expr> condition(const YAML::Node& node, const std::string& where) const;
  Status read_vars(const YAML::Node& node);
  Status read_inputs(const YAML::Node& node);
  Result<std::vector<z3::expr>> read_domain(const YAML::Node& node, const z3::sort& sort,
                                            const std::string& where) const;
  Status read_transitions(const YAML::Node& node);
  Status read_transition(const YAML::Node& node, const std::string& where);
  Status read_invariants(const YAML::Node& node);

  z3::context& context_;
  std::string source_;
  TermParser terms_;
  SystemFile out_;
};

std::string kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "empty";
    default:
      return "'" + node.Scalar() + "'";
  }
}

Status FileReader::check_keys(const YAML::Node& map, const std::string& where,
                              std::initializer_list<std::string_view> known) const {
  std::set<std::string> seen;
  for (const auto& entry : map) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == key;
    if (!ok) {
      return error(entry.first, where, "unknown key '" + key + "'",
                   fmt::format("the keys here are: {}", fmt::join(known, ", ")));
    }
    if (!seen.insert(key).second)
      return error(entry.first, where, "key '" + key + "' appears twice");
  }
  return Status::ok();
}

Result<std::string> FileReader::name_of(const YAML::Node& key, const std::string& where) const {
  const std::string name = key.IsScalar() ? key.Scalar() : "";
  if (!is_plain_symbol(name)) {
    return error(key, where, "'" + name + "' is not a name",
                 "a name is letters, digits and ~!@$%^&*_-+=<>.?/, not starting with a digit");
  }
  if (name.rfind("uVarReplacement_", 0) == 0) {
    return error(key, where, "'" + name + "' is reserved",
                 "names starting with uVarReplacement_ are the psyco image mode's own");
  }
  if (out_.system->var_index(name) || out_.system->input_index(name)) {
    return error(key, where, "'" + name + "' is declared twice",
                 "a variable and an input cannot share a name either");
  }
  return name;
}

Result<z3::sort> FileReader::sort_of(const YAML::Node& node, const std::string& where) const {
  const std::string text = node.IsScalar() ? node.Scalar() : "";
  if (text == "Int") return context_.int_sort();
  if (text == "Bool") return context_.bool_sort();
  if (text == "Real") return context_.real_sort();
  std::istringstream in(text);
  std::string open, bitvec;
  unsigned width = 0;
  char close = 0;
  if ((in >> open >> bitvec >> width >> close) && open == "(_" && bitvec == "BitVec" &&
      close == ')' && width >= 1 && width <= 64 && (in >> std::ws).eof()) {
    return context_.bv_sort(width);
  }
  return error(node, where, "unknown sort " + kind_of(node),
               "the sorts are Int, Bool, Real and (_ BitVec N) with 1 <= N <= 64");
}

Result<z3::expr> FileReader::term(const YAML::Node& node, const std::string& where) const {
  if (!node || !node.IsScalar() || node.Scalar().empty()) {
    return error(node, where, "expected an SMT-LIB term, found " + kind_of(node),
                 "write it as text, e.g. (+ x 1); quote a term that starts with # (\"#x0f\")");
  }
  const bool quoted = node.Tag() == "!";
  Result<z3::expr> parsed = terms_.parse(node.Scalar());
  if (parsed) return parsed;
  const TermError& e = terms_.last_error();
  Position at = position_of(node);
  if (node.Scalar().find('\n') == std::string::npos) {
    at.column += static_cast<int>(e.offset) + (quoted ? 1 : 0);
  }
  return error_at(at, where, e.message, e.hint);
}

Result<z3::expr> FileReader::condition(const YAML::Node& node, const std::string& where) const {
  Result<z3::expr> e = term(node, where);
  if (!e) return e;
  if (!e->is_bool()) {
    return error(node, where, "must be Bool, but is " + sort_name(e->get_sort()),
                 "a condition compares, e.g. (< x 3)");
  }
  return e;
}

Status FileReader::read_vars(const YAML::Node& node) {
  if (!node || !node.IsMap() || node.size() == 0) {
    return error(node, "vars",
                 "expected a mapping of state variables to sorts, found " + kind_of(node),
                 "e.g. vars: {x: Int, ok: Bool}");
  }
  for (const auto& entry : node) {
    Result<std::string> name = name_of(entry.first, "vars");
    if (!name) return name.status();
    Result<z3::sort> sort = sort_of(entry.second, "vars." + *name);
    if (!sort) return sort.status();
    terms_.declare(out_.system->var(*name, *sort));
  }
  return Status::ok();
}

Result<std::vector<z3::expr>> FileReader::read_domain(const YAML::Node& node, const z3::sort& sort,
                                                      const std::string& where) const {
  std::vector<z3::expr> values;
  if (const YAML::Node list = node["values"]) {
    if (!list.IsSequence() || list.size() == 0) {
      return error(list, where + ".values", "expected a list of values, found " + kind_of(list));
    }
    for (const YAML::Node& v : list) {
      std::optional<z3::expr> value =
          v.IsScalar() ? parse_value(context_, sort, v.Scalar()) : std::nullopt;
      if (!value) return error(v, where + ".values", kind_of(v) + " is not " + sort_name(sort));
      values.push_back(*value);
    }
  }
  if (const YAML::Node range = node["range"]) {
    if (!sort.is_int() && !sort.is_bv()) {
      return error(range, where + ".range", "a range needs an Int or bit-vector input",
                   "list the values with values: [...]");
    }
    long long lo = 0, hi = 0;
    if (!range.IsSequence() || range.size() != 2 ||
        !YAML::convert<long long>::decode(range[0], lo) ||
        !YAML::convert<long long>::decode(range[1], hi) || lo > hi) {
      return error(range, where + ".range", "expected [LOW, HIGH] with LOW <= HIGH");
    }
    if (static_cast<unsigned long long>(hi - lo) >= kMaxDomain) {
      return error(range, where + ".range",
                   fmt::format("{} values is more than an explicit model takes ({})", hi - lo + 1,
                               kMaxDomain),
                   "leave the range out: the symbolic search takes every value the guards allow");
    }
    for (long long v = lo; v <= hi; ++v) {
      std::optional<z3::expr> value = parse_value(context_, sort, std::to_string(v));
      if (!value)
        return error(range, where + ".range", std::to_string(v) + " is not " + sort_name(sort));
      values.push_back(*value);
    }
  }
  return values;
}

Status FileReader::read_inputs(const YAML::Node& node) {
  if (!node) return Status::ok();
  if (!node.IsMap()) {
    return error(node, "inputs", "expected a mapping of inputs to sorts, found " + kind_of(node),
                 "e.g. inputs: {p: {sort: Int, values: [1, 2]}}");
  }
  for (const auto& entry : node) {
    Result<std::string> name = name_of(entry.first, "inputs");
    if (!name) return name.status();
    const std::string where = "inputs." + *name;
    const YAML::Node spec = entry.second;
    const YAML::Node sort_node = spec.IsMap() ? spec["sort"] : spec;
    if (spec.IsMap()) {
      if (Status st = check_keys(spec, where, {"sort", "values", "range"}); !st) return st;
      if (!sort_node) return error(spec, where, "has no sort", "e.g. {sort: Int, values: [1, 2]}");
    }
    Result<z3::sort> sort = sort_of(sort_node, where);
    if (!sort) return sort.status();
    terms_.declare(out_.system->input(*name, *sort));
    std::optional<std::vector<z3::expr>> domain;
    if (spec.IsMap() && (spec["values"] || spec["range"])) {
      Result<std::vector<z3::expr>> values = read_domain(spec, *sort, where);
      if (!values) return values.status();
      domain = std::move(*values);
    }
    out_.domains.push_back(std::move(domain));
  }
  return Status::ok();
}

Status FileReader::read_transition(const YAML::Node& node, const std::string& where) {
  if (!node.IsMap()) return error(node, where, "expected a mapping, found " + kind_of(node));
  if (Status st = check_keys(node, where, {"name", "guard", "update", "error"}); !st) return st;
  const YAML::Node name_node = node["name"];
  if (!name_node || !name_node.IsScalar() || !is_plain_symbol(name_node.Scalar())) {
    return error(name_node ? name_node : node, where + ".name",
                 "expected the transition's name, found " + kind_of(name_node),
                 "a name is letters, digits and ~!@$%^&*_-+=<>.?/, not starting with a digit");
  }
  const std::string name = name_node.Scalar();
  const std::string at = where + " (" + name + ")";
  if (out_.system->transition_index(name)) return error(name_node, at, "the name is used twice");
  z3::expr guard = context_.bool_val(true);
  if (const YAML::Node g = node["guard"]) {
    Result<z3::expr> e = condition(g, at + ".guard");
    if (!e) return e.status();
    guard = *e;
  }
  bool is_error = false;
  if (const YAML::Node err = node["error"]) {
    if (!YAML::convert<bool>::decode(err, is_error)) {
      return error(err, at + ".error", "expected true or false, found " + kind_of(err));
    }
  }
  std::vector<std::pair<z3::expr, z3::expr>> updates;
  if (const YAML::Node upd = node["update"]) {
    if (!upd.IsMap()) return error(upd, at + ".update", "expected a mapping of variables to terms");
    if (is_error)
      return error(upd, at + ".update", "an error path has no updates", "remove update:");
    std::set<std::string> seen;
    for (const auto& entry : upd) {
      const std::string var = entry.first.IsScalar() ? entry.first.Scalar() : "";
      const std::string field = at + ".update." + var;
      if (out_.system->input_index(var)) {
        return error(entry.first, field, var + " is an input",
                     "inputs take a fresh value at each step and cannot be updated; declare it "
                     "under vars to keep it in the state");
      }
      std::optional<std::size_t> index = out_.system->var_index(var);
      if (!index) return error(entry.first, field, "'" + var + "' is not a state variable");
      if (!seen.insert(var).second) return error(entry.first, field, var + " is updated twice");
      Result<z3::expr> value = term(entry.second, field);
      if (!value) return value.status();
      const z3::expr& v = out_.system->vars()[*index].now;
      if (!z3::eq(v.get_sort(), value->get_sort())) {
        return error(entry.second, field,
                     "sort mismatch: " + var + " is " + sort_name(v.get_sort()) + ", the term is " +
                         sort_name(value->get_sort()));
      }
      updates.emplace_back(v, *value);
    }
  }
  TransitionBuilder t = out_.system->transition(name);
  t.guard(guard);
  for (const auto& [v, value] : updates) t.update(v, value);
  if (is_error) t.error();
  return Status::ok();
}

Status FileReader::read_transitions(const YAML::Node& node) {
  if (!node || !node.IsSequence() || node.size() == 0) {
    return error(node, "transitions", "the system has no transitions (found " + kind_of(node) + ")",
                 "list them: transitions: [{name: inc, guard: (< x 3), update: {x: (+ x 1)}}]");
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (Status st = read_transition(node[i], fmt::format("transitions[{}]", i)); !st) return st;
  }
  return Status::ok();
}

Status FileReader::read_invariants(const YAML::Node& node) {
  if (!node) return Status::ok();
  if (!node.IsMap()) {
    return error(node, "invariants",
                 "expected a mapping of names to conditions, found " + kind_of(node),
                 "e.g. invariants: {bounded: (<= x 4)}");
  }
  std::set<std::string> seen;
  for (const auto& entry : node) {
    const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (!is_plain_symbol(name))
      return error(entry.first, "invariants", "'" + name + "' is not a name");
    if (!seen.insert(name).second) return error(entry.first, "invariants", name + " appears twice");
    Result<z3::expr> holds = condition(entry.second, "invariants." + name);
    if (!holds) return holds.status();
    out_.system->invariant(name, *holds);
  }
  return Status::ok();
}

Result<SystemFile> FileReader::read(const YAML::Node& root) {
  if (!root.IsMap()) {
    return error(
        root, "the file",
        "expected a mapping with system, vars, init and transitions, found " + kind_of(root));
  }
  if (Status st = check_keys(root, "the file",
                             {"system", "vars", "inputs", "init", "transitions", "invariants"});
      !st) {
    return st;
  }
  std::string name = std::filesystem::path(source_).stem().string();
  if (const YAML::Node n = root["system"]) {
    if (!n.IsScalar() || n.Scalar().empty())
      return error(n, "system", "expected a name, found " + kind_of(n));
    name = n.Scalar();
  }
  out_.path = source_;
  out_.system = std::make_unique<TransitionSystem>(context_, name);
  if (Status st = read_vars(root["vars"]); !st) return st;
  if (Status st = read_inputs(root["inputs"]); !st) return st;
  const YAML::Node init = root["init"];
  if (!init) return error(root, "init", "the file has no init", "e.g. init: (= x 0)");
  Result<z3::expr> initial = condition(init, "init");
  if (!initial) return initial.status();
  out_.system->init(*initial);
  if (Status st = read_transitions(root["transitions"]); !st) return st;
  if (Status st = read_invariants(root["invariants"]); !st) return st;
  return std::move(out_);
}

}  // namespace

Result<SystemFile> parse_system_file(z3::context& context, std::string_view text,
                                     const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Status::invalid(fmt::format("{}:{}:{}: not valid YAML: {}", source, e.mark.line + 1,
                                       e.mark.column + 1, e.msg));
  }
  try {
    return FileReader(context, source).read(root);
  } catch (const YAML::Exception& e) {
    return Status::invalid(
        fmt::format("{}:{}:{}: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

Result<SystemFile> read_system_file(z3::context& context, const std::string& path) {
  Result<std::string> text = read_text_file(path, "system file");
  if (!text) return text.status();
  return parse_system_file(context, *text, path);
}

}  // namespace prowl::sym
