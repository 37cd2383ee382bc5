// libFuzzer target for the system file reader of `prowl reach` (docs/symbolic.md, "System files"):
// YAML whose fields hold SMT-LIB terms that Z3 parses against the declared symbols. Any bytes may
// come in: the reader must answer with a Status that names the file for what it cannot use, and
// never crash, throw or hang. A system it accepts holds what the format promises: Bool guards and
// invariants, and updates of state variables only, each of its variable's sort.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <z3++.h>

#include "prowl/symbolic/system_file.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "system_file_fuzzer: %s\n", what);
  std::abort();
}

void check_system(const prowl::sym::TransitionSystem& ts) {
  if (!ts.initial().is_bool()) fail("a non-Bool initial condition was accepted");
  for (const prowl::sym::NamedInvariant& inv : ts.invariants()) {
    if (!inv.holds.is_bool()) fail("a non-Bool invariant was accepted");
  }
  for (const prowl::sym::Transition& t : ts.transitions()) {
    if (!t.guard.is_bool()) fail("a non-Bool guard was accepted");
    if (t.updates.size() != ts.vars().size()) fail("an update list of the wrong length");
    for (std::size_t i = 0; i < t.updates.size(); ++i) {
      if (t.updates[i] && !z3::eq(t.updates[i]->get_sort(), ts.vars()[i].now.get_sort())) {
        fail("an update of another sort than its variable was accepted");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  z3::context context;
  auto file = prowl::sym::parse_system_file(context, text, "fuzz.yaml");
  if (!file) {
    if (file.status().message().rfind("fuzz.yaml", 0) != 0) {
      std::fprintf(stderr, "%s\n", file.status().message().c_str());
      fail("an error that does not start with the file's name");
    }
    return 0;
  }
  check_system(*file->system);
  return 0;
}
