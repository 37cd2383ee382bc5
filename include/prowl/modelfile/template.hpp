// Template and JsonTemplate: text and JSON from a model file with references to context keys.
//
//   "/orders/${order_id}"          the value bound to order_id, rendered as text
//   "${raw:next}"                  the same, but never percent-encoded in a URL (render_url)
//   "Bearer ${env:SHOP_TOKEN}"     an environment variable (resolved when the file is read)
//   "$${literal}"                  "$${" is a literal "${"
//
// A context key is a name of letters, digits, '_', '-' and '.', starting with a letter or '_';
// an environment variable's name is letters, digits and '_'. Environment references are resolved
// by the model file reader (so that an unset variable fails before anything runs); after that a
// Template holds only literal text and context keys (plain or raw). The reader allows raw keys
// only where a template becomes part of a URL.
//
// Context values are chosen by the system under test (bound from its answers), so a template
// keeps them data wherever it puts them: render_url() percent-encodes them, JsonTemplate makes
// them JSON values, sql_literal() makes them SQL literals.
//
// A JsonTemplate is a JSON document whose strings may be templates. A string that is exactly one
// context reference ("${qty}") takes the bound value with its JSON type (a number stays a number);
// any other template string renders to a JSON string.
//
// Both are immutable values once built, safe to share between threads.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/context.hpp"
#include "prowl/core/status.hpp"

namespace prowl::modelfile {

class Template {
 public:
  struct Part {
    // kRaw: a context key written ${raw:key}, inserted into a URL without encoding.
    enum class Kind { kText, kKey, kEnv, kRaw };
    Kind kind = Kind::kText;
    // Literal text, the context key (kKey, kRaw), or the environment variable's name.
    std::string text;
    friend bool operator==(const Part&, const Part&) = default;
  };

  Template() = default;
  // Parses `text`. Status::invalid, with a message that names the problem but no position, for
  // "${" without its "}", an empty reference, or a name with characters a key cannot have.
  static Result<Template> parse(std::string_view text);
  // A template of literal text only.
  static Template literal(std::string text);

  const std::vector<Part>& parts() const { return parts_; }
  // The text the template was parsed from.
  const std::string& source() const { return source_; }
  bool empty() const { return parts_.empty(); }
  // True when there is no context key (and no unresolved environment reference).
  bool is_literal() const;
  bool has_env() const;
  // The first key written ${raw:key}, or nullptr.
  const std::string* first_raw() const;
  // The key when the whole template is exactly one context reference, "${key}".
  std::optional<std::string> single_key() const;
  // The context keys referenced (plain or raw), in order of first use, each once.
  std::vector<std::string> keys() const;
  // The first referenced key that ctx does not bind, or nullptr.
  const std::string* missing(const Context& ctx) const;

  // Replaces every environment reference with lookup(name); a name for which lookup returns
  // nullopt is left unresolved and returned (the first one), so the caller can report it.
  std::optional<std::string> resolve_env(
      const std::function<std::optional<std::string>(const std::string&)>& lookup);

  // The literal text with every unresolved environment reference written back as
  // "${env:NAME}" (a spec read without its environment shows them so). REQUIRES: no context key.
  std::string text() const;

  // The text with each key (plain or raw) replaced by format(value). REQUIRES: every key is bound
  // in ctx and no environment reference is left.
  std::string render(const Context& ctx) const;
  std::string render(const Context& ctx,
                     const std::function<std::string(const Value&)>& format) const;

  // The template as a request's path (with the query string or fragment it may hold), appended
  // to the base URL. Literal text is kept as it is. Each value of a plain key is percent-encoded
  // (RFC 3986: every byte of its UTF-8 text except A-Z a-z 0-9 - . _ ~ becomes %XX) so that it
  // stays data: before the first literal '?' or '#' it is one path segment, and a value that is
  // exactly "." or ".." becomes %2E or %2E%2E so that it cannot act as a dot segment; after a
  // literal '?' it is a query component, after a literal '#' part of the fragment. A raw key's
  // value is inserted as it is: unsafe with a value the service chose, unless that value is
  // itself meant to be a path (a Location header). REQUIRES: as render().
  std::string render_url(const Context& ctx) const;

  friend bool operator==(const Template& a, const Template& b) { return a.parts_ == b.parts_; }

 private:
  std::vector<Part> parts_;
  std::string source_;
};

class JsonTemplate {
 public:
  // A string of the document and the template it holds, by JSON Pointer ("/items/0/name").
  struct Slot {
    std::string pointer;
    Template value;
  };

  JsonTemplate() = default;
  // skeleton: the JSON text of the document, with every templated string holding its source
  // text; slots: those strings, parsed. REQUIRES: skeleton is valid JSON and every slot pointer
  // names a string in it.
  JsonTemplate(std::string skeleton, std::vector<Slot> slots);

  const std::string& skeleton() const { return skeleton_; }
  const std::vector<Slot>& slots() const { return slots_; }
  std::vector<std::string> keys() const;
  const std::string* missing(const Context& ctx) const;
  // The document with every slot rendered, as compact JSON text. REQUIRES: every key is bound.
  std::string render(const Context& ctx) const;

 private:
  std::string skeleton_;
  std::vector<Slot> slots_;
};

// A context value as a SQL literal: NULL, TRUE/FALSE, a number, or a quoted string ('' inside).
std::string sql_literal(const Value& value);

// `text` with every byte except the unreserved characters of RFC 3986 (A-Z a-z 0-9 - . _ ~)
// written as %XX (upper-case hex).
std::string percent_encode(std::string_view text);

}  // namespace prowl::modelfile
