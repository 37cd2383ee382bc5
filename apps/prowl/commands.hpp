// The prowl CLI's subcommands, one file each. Each takes the arguments after the program name,
// so argv[0] is the subcommand's own name, and returns the process exit code (see
// prowl/cli/run_main.hpp for their meaning).
#pragma once

namespace prowl::app {

// `prowl demo [run_main flags]`: explores the bundled refund example.
int demo_command(int argc, char** argv);

// `prowl explore MODEL.yaml [run_main flags]`: explores an HTTP service described by a model
// file (docs/model-file.md).
int explore_command(int argc, char** argv);

// `prowl version`: prints the version.
int version_command(int argc, char** argv);

}  // namespace prowl::app
