// SymExec: what a program under worst-case search sees (docs/worst-case.md). The program is a
// plain C++ function `void f(SymExec&, int n)`; it makes its inputs symbolic with int_input() and
// array(), computes with z3::expr values, and asks branch() at every condition that depends on
// them. The search re-executes the function once per path with a prefix of decisions (no forking),
// so the function must do the same thing under the same decisions: the same sites in the same
// order. A condition that simplifies to true or false is not a decision.
//
//   void insertion_sort(prowl::wc::SymExec& ex, int n) {
//     std::vector<z3::expr> a = ex.array("a", n);
//     for (int i = 1; i < n; ++i) {
//       for (int j = i; j > 0 && ex.branch(PROWL_SITE, a[j - 1] > a[j]); --j) std::swap(...);
//     }
//   }
//
// A SymExec is made by the search for one run and is valid only during it; its expressions belong
// to the search's z3::context. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <z3++.h>

namespace prowl::wc {

// A branch site in the source: stable across runs and input sizes (the same binary gives the same
// file, line and counter), so that a policy learned at one size applies at another.
struct Site {
  const char* file = "";
  int line = 0;
  int counter = 0;  // __COUNTER__: tells apart two sites on one line
  // "insertion_sort.cpp:12" (the file's base name and the line).
  std::string name() const;
  // A stable 32-bit number for the site (a hash of its name and counter), for features and
  // policies.
  std::uint32_t id() const;
  friend bool operator==(const Site& a, const Site& b) {
    return a.line == b.line && a.counter == b.counter && std::string_view(a.file) == b.file;
  }
};

// One decision of a path: where it branched and which side it took.
struct PathStep {
  Site site;
  bool taken = true;
};

// The site of the branch() call it is written in.
#define PROWL_SITE (::prowl::wc::Site{__FILE__, __LINE__, __COUNTER__})

namespace detail {
class PathRun;
}

class SymExec {
 public:
  z3::context& context() const;
  // The input size the function runs at.
  int n() const { return n_; }
  // A fresh symbolic integer input; the witness gives its value. REQUIRES: `name` is not used yet
  // in this run.
  z3::expr int_input(const std::string& name);
  // `size` symbolic integers named NAME[0], NAME[1], ...
  std::vector<z3::expr> array(const std::string& name, int size);
  // The branch the path takes at `condition` (Bool). A decision when the condition is not
  // constant: the search picks the side, and a side whose path condition is infeasible is not
  // taken. REQUIRES: `condition` is Bool (a LogicError names the site otherwise).
  bool branch(const Site& site, const z3::expr& condition);
  // Adds to the path's cost (the objective of `--objective cost`).
  void cost(std::uint64_t amount);

 private:
  friend class detail::PathRun;
  SymExec(detail::PathRun& run, int n) : run_(&run), n_(n) {}
  detail::PathRun* run_;
  int n_;
};

// A function under worst-case search, by name.
struct Program {
  std::string name;
  std::string description;
  std::function<void(SymExec&, int)> run;
};

}  // namespace prowl::wc
