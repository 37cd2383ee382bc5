// Parses SMT-LIB terms against a set of declared constants with Z3's parser, turning its errors
// into messages about the term (with the offset in the term they point at). Not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <z3++.h>

#include "prowl/core/status.hpp"

namespace prowl::sym {

struct TermError {
  std::size_t offset = 0;  // in the term's text
  std::string message;
  std::string hint;
};

class TermParser {
 public:
  explicit TermParser(z3::context& context) : context_(context), decls_(context), sorts_(context) {}
  void declare(const z3::expr& constant);
  // The term, of any sort. On failure, last_error() says why.
  Result<z3::expr> parse(std::string_view text) const;
  const TermError& last_error() const { return error_; }

 private:
  Status fail(std::size_t offset, std::string message, std::string hint = "") const;
  z3::context& context_;
  z3::func_decl_vector decls_;
  z3::sort_vector sorts_;
  std::string names_;  // the declared names, for hints
  mutable TermError error_;
};

}  // namespace prowl::sym
