// journal_fuzz: fuzzes the Journal library (examples/journal/journal.hpp) through its FSM.
//   journal_fuzz fuzz --runs 2000 --seed 1     finds the seeded rollback-after-compact bug
//   journal_fuzz shrink prowl-fuzz/001-finding/trace
#include "journal_machine.hpp"
#include "prowl/fsm/fuzz_main.hpp"

int main(int argc, char** argv) {
  auto machine = journal::make_machine();
  return prowl::fsm::fuzz_main(machine, argc, argv,
                               {"journal_fuzz",
                                "Fuzzes the Journal library: random sequences of open, put, get, "
                                "begin, commit, rollback and compact, checked against a reference "
                                "model."});
}
