// `prowl recover MODEL`: puts back the databases a killed run of MODEL left changed, from their
// recovery records, and removes the worker copies such runs left; starts no service. A run does
// this itself when it begins; `recover` is for when no run follows (a CI job's cleanup step).
#include <iostream>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/modelfile/recover.hpp"

namespace prowl::app {

namespace {

constexpr std::string_view kUsage =
    "Usage: prowl recover [--force] MODEL\n"
    "Puts back every database the model file declares that a killed run of it left changed\n"
    "(from the recovery record the run kept beside a SQLite file, or in a PostgreSQL\n"
    "database), and removes the worker copies such runs left in the temporary directory. It\n"
    "starts no service. A run of the model does the same when it begins.\n"
    "A SQLite database changed after the killed run's last sign of life, or a file that\n"
    "replaced the one the record belongs to, is not put back (that would undo those changes)\n"
    "unless --force is given.\n"
    "Exit codes: 0 done (it says what it put back, or that there was nothing to do), 2 bad\n"
    "usage or model file, 3 a database is held by a run still going, cannot be reached, or\n"
    "its record cannot be read (the message says what to do).\n";

}  // namespace

int recover_command(int argc, char** argv) {
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::cout << kUsage;
    return kExitOk;
  }
  const bool force = argc == 3 && std::string_view(argv[1]) == "--force";
  if (!(argc == 2 || force) || argv[argc - 1][0] == '-') {
    std::cerr << "prowl recover: takes the model file, after --force if given\n\n" << kUsage;
    return kExitUsage;
  }
  const std::string path = argv[argc - 1];
  auto spec = modelfile::read_model_file(path);
  if (!spec) {
    std::cerr << escape_lines(spec.status().message()) << '\n';
    return spec.status().exit_code();
  }
  auto done = modelfile::recover(*spec, force);
  if (!done) {
    std::cerr << "prowl recover: " << escape_lines(done.status().message()) << '\n';
    return done.status().exit_code();
  }
  if (done->empty()) {
    std::cout << "nothing to recover: no run of " << escape_text(path) << " left anything behind\n";
  }
  for (const std::string& line : *done) std::cout << escape_text(line) << '\n';
  return kExitOk;
}

}  // namespace prowl::app
