#include <string>

#include <gtest/gtest.h>

#include "prowl/cli/run_main.hpp"

namespace prowl {
namespace {

// A program's own flag may not take the name of one of run_main's (CLI11 would refuse the second
// definition at parse time, uncaught): the mistake is caught where the flag is added.
TEST(OwnFlags, MayNotTakeTheNameOfOneOfRunMainsFlags) {
  for (const std::string name : {"--policy", "--walk", "--seed", "--episodes", "--from"}) {
    CommandLine command_line;
    int value = 1;
    std::string text;
    try {
      command_line.add_int_flag(name, "a size", &value, 0, 9);
      ADD_FAILURE() << name << " was accepted";
    } catch (const LogicError& e) {
      EXPECT_NE(std::string(e.what()).find("flag " + name + " is one of run_main's own"),
                std::string::npos)
          << e.what();
    }
    EXPECT_THROW(command_line.add_string_flag(name, "FILE", "a file", &text), LogicError);
  }
  CommandLine command_line;
  int k = 3;
  command_line.add_int_flag("--k", "counters", &k, 1, 8);  // a name of its own is fine
}

}  // namespace
}  // namespace prowl
