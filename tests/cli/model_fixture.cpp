// A program built on prowl::CommandLine whose model is broken in the way --case selects, for the
// black-box tests of run_main's exit codes:
//   1 duplicate action names, 2 unknown dependency, 3 weight <= 0   (invalid model: exit 2)
//   4 the world cannot be built: database unreachable                (environment: exit 3)
//   5 a broken precondition (LogicError) while building the world     (internal error: exit 70)
//   6 an action that throws                                           (a finding: exit 1)
//   7 an invariant that fails at 2, and a no-op action to pad traces  (a finding: exit 1)
//   8 a count to 1000 whose process dies (SIGKILL) on the way when it is rank 1 of an MPI job
//     (OMPI_COMM_WORLD_RANK=1): the search over several processes must stop
//   9 a grid with three invariants that fail and an action that throws, every action typed
//     (findings: exit 1), for the search over several processes
//  10 case 8, but rank 1 first stops rank 0 as a launcher would (SIGTERM to the process id rank 0
//     wrote to rank0.pid in the working directory), then dies
//  11 a count to 1000 whose world cannot be built when it is rank 1 of an MPI job: an error of
//     rank 1's own (environment: exit 3), which must not leave rank 0 waiting
// Every action reports the value it leaves as its detail.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

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

bool is_rank(const char* which) {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  return rank != nullptr && std::string(rank) == which;
}

// Case 8: a count to 1000 whose process dies (SIGKILL) on the way when it is rank 1 of an MPI job;
// case 10: which first stops rank 0 with SIGTERM and gives it time to take it.
prowl::ObjectModel<int> dying_model(bool stop_rank_0) {
  prowl::ObjectModel<int> model("fixture", 0);
  model.action("count").when([](const int& v) { return v < 1000; }).run([stop_rank_0](int& v) {
    if (v >= 100 && is_rank("1")) {
      long pid = 0;
      if (stop_rank_0 && (std::ifstream("rank0.pid") >> pid) && pid > 0) {
        ::kill(static_cast<pid_t>(pid), SIGTERM);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
      }
      std::raise(SIGKILL);
    }
    ++v;
  });
  return model;
}

// Case 11: a count to 1000 whose world cannot be built on rank 1 of an MPI job.
prowl::ObjectModel<int> one_rank_fails_model() {
  prowl::ObjectModel<int> model("fixture", 0);
  model.action("count").when([](const int& v) { return v < 1000; }).run([](int& v) { ++v; });
  if (is_rank("1")) {
    model.set_world([]() -> prowl::Result<std::unique_ptr<prowl::World>> {
      return prowl::Status::environment("rank 1's database at 127.0.0.1:1 is unreachable");
    });
  }
  return model;
}

struct Grid {
  std::uint8_t x = 0;
  std::uint8_t y = 0;
  std::uint8_t spoiled = 0;
};

// Case 9: a grid whose invariants fail after several last actions each, and an action that
// throws, every action typed: what the search over several processes takes (tests/cli/mpi.cmake).
prowl::ObjectModel<Grid> grid_model() {
  prowl::ObjectModel<Grid> m("grid", Grid{});
  m.action("inc_x").when([](const Grid& g) { return g.x < 7; }).run([](Grid& g) { ++g.x; });
  m.action("inc_y").when([](const Grid& g) { return g.y < 7; }).run([](Grid& g) { ++g.y; });
  m.action("swap").run([](Grid& g) { std::swap(g.x, g.y); });
  m.action("glitch").when([](const Grid& g) { return g.x == 3; }).run([](Grid& g) {
    if (g.y == 2) {
      g.spoiled = 1;
      throw std::runtime_error("glitch at y=2");
    }
  });
  m.invariant("sum_small").check([](const Grid& g) { return g.x + g.y < 12; });
  m.invariant("not_x6y1").severity(prowl::Severity::kCritical).check([](const Grid& g) {
    return !(g.x == 6 && g.y == 1);
  });
  m.invariant("clean").check([](const Grid& g) { return g.spoiled == 0; });
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int which = 1;
  prowl::CommandLine command_line;
  command_line.add_int_flag("--case", "which broken model", &which, 1, 11);
  if (auto code = command_line.parse(argc, argv)) return *code;
  if (which == 10 && is_rank("0")) std::ofstream("rank0.pid") << ::getpid() << '\n';
  if (which == 8 || which == 10) return command_line.run(dying_model(which == 10));
  if (which == 9) return command_line.run(grid_model());
  if (which == 11) return command_line.run(one_rank_fails_model());
  return command_line.run(make_model(which));
}
