// A program built on prowl::CommandLine whose model is broken in the way --case selects, for the
// black-box tests of run_main's exit codes:
//   1 duplicate action names, 2 unknown dependency, 3 weight <= 0   (invalid model: exit 2)
//   4 the world cannot be built: database unreachable                (environment: exit 3)
//   5 a broken precondition (LogicError) while building the world     (internal error: exit 70)
//   6 an action that throws                                           (a finding: exit 1)
//   7 an invariant that fails at 2, and a no-op action to pad traces  (a finding: exit 1)
// Every action reports the value it leaves as its detail.
#include <stdexcept>
#include <string>

#include "prowl/cli/run_main.hpp"
#include "prowl/explore/object_model.hpp"

namespace {

prowl::ObjectModel<int> make_model(int which) {
  prowl::ObjectModel<int> model("fixture", 0);
  model.action("inc").when([](const int& v) { return v < 2; }).run([](int& v) {
    return prowl::Outcome::ok("value " + std::to_string(++v));
  });
  switch (which) {
    case 1:
      model.action("inc").run([](int& v) { ++v; });
      break;
    case 2:
      model.action("dec").after("increment").run([](int& v) { --v; });
      break;
    case 3:
      model.action("dec").weight(0).run([](int& v) { --v; });
      break;
    case 4:
      model.set_world([]() -> prowl::Result<std::unique_ptr<prowl::World>> {
        return prowl::Status::environment("database at 127.0.0.1:1 is unreachable");
      });
      break;
    case 5:
      model.set_world([]() -> prowl::Result<std::unique_ptr<prowl::World>> {
        PROWL_CHECK(false, "the fixture's world factory is broken");
        return prowl::Status::ok();
      });
      break;
    case 6:
      model.action("explode")
          .when([](const int& v) { return v == 1; })
          .run([](int&) -> prowl::Outcome { throw std::runtime_error("boom"); });
      break;
    case 7:
      model.action("dec").when([](const int& v) { return v > 0; }).run([](int& v) {
        return prowl::Outcome::ok("value " + std::to_string(--v));
      });
      model.action("touch").run(
          [](int& v) { return prowl::Outcome::ok("value " + std::to_string(v)); });
      model.invariant("stays_below_two")
          .severity(prowl::Severity::kCritical)
          .check([](const int& v) { return v < 2; });
      break;
  }
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  int which = 1;
  prowl::CommandLine command_line;
  command_line.add_int_flag("--case", "which broken model", &which, 1, 7);
  if (auto code = command_line.parse(argc, argv)) return *code;
  return command_line.run(make_model(which));
}
