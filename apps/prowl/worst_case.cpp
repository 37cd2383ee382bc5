// `prowl worst-case`: worst-case input search on the programs prowl ships (examples/worst_case),
// through the same command line users build their own functions into (prowl::wc::run_main).
#include <string>
#include <vector>

#include "commands.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/trace/trace.hpp"
#include "prowl/worstcase/run_main.hpp"
#include "worst_case/programs.hpp"

namespace prowl::app {

int worst_case_command(int argc, char** argv) {
  return wc::run_main(wc::examples::bundled_programs(), argc, argv, "prowl worst-case");
}

bool is_worst_case_trace(const std::string& path) {
  Result<trace::Trace> t = trace::read_trace_file(path);
  return t && t->header.option("kind") == "worst-case";
}

int worst_case_replay_command(int argc, char** argv) {
  // `prowl replay TRACE`: run_main's `replay TRACE`.
  std::vector<char*> args{argv[0], const_cast<char*>("replay")};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  return wc::run_main(wc::examples::bundled_programs(), static_cast<int>(args.size()), args.data(),
                      "prowl replay");
}

}  // namespace prowl::app
