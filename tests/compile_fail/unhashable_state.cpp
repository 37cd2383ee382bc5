// Must not compile: prowl cannot hash a state type with padding or with members that are not
// plain bytes unless it has a prowl_observe. tests/CMakeLists.txt compiles this file once per
// PROWL_CASE and expects the static_assert's message, which names prowl_observe.
#include <map>
#include <string>

#include "prowl/explore/object_model.hpp"

#if PROWL_CASE == 1
struct State {  // 3 bytes of padding after `open`
  bool open = false;
  int count = 0;
};
#elif PROWL_CASE == 2
struct State {
  std::map<std::string, int> entries;
};
#else
#error "PROWL_CASE must be 1 or 2"
#endif

int main() {
  prowl::ObjectModel<State> model("unhashable", State{});
  return static_cast<int>(model.actions().size());
}
