#include "prowl/world/system.hpp"

namespace prowl {

Result<SnapshotHandle> System::save() {
  PROWL_CHECK(false, "system '" + name() + "' has no snapshot capability");
}
Status System::restore(SnapshotHandle) {
  PROWL_CHECK(false, "system '" + name() + "' has no snapshot capability");
}
void System::release(SnapshotHandle) {
  PROWL_CHECK(false, "system '" + name() + "' has no snapshot capability");
}
Result<SystemImagePtr> System::capture() {
  PROWL_CHECK(false, "system '" + name() + "' has no portable capability");
}
Status System::load(const SystemImagePtr&) {
  PROWL_CHECK(false, "system '" + name() + "' has no portable capability");
}
Status System::push() { PROWL_CHECK(false, "system '" + name() + "' has no stack capability"); }
Status System::rollback(std::size_t) {
  PROWL_CHECK(false, "system '" + name() + "' has no stack capability");
}
Status System::reset() { PROWL_CHECK(false, "system '" + name() + "' has no reset capability"); }

}  // namespace prowl
