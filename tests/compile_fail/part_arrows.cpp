// The parts' arrows, as the compiler enforces them: compiled with the include directories of one
// part's target (tests/CMakeLists.txt), a source sees the headers of that part and of the parts
// it links, and no others.
//   PROWL_CASE=0  prowl::explore's headers and prowl::core's below it: compiles.
//   PROWL_CASE=1  prowl::explore reaching for prowl::systems: fails, no such file.
//   PROWL_CASE=2  prowl::core reaching up for prowl::explore: fails, no such file.
#if PROWL_CASE == 0
#include "prowl/core/status.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/world/world.hpp"
#elif PROWL_CASE == 1
#include "prowl/systems/sqlite.hpp"
#elif PROWL_CASE == 2
#include "prowl/explore/explorer.hpp"
#endif

int main() { return 0; }
