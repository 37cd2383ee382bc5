// The prowl CLI's subcommands, one file each. Each takes the arguments after the program name,
// so argv[0] is the subcommand's own name, and returns the process exit code (see
// prowl/core/exit_code.hpp for their meaning).
#pragma once

#include <string>
#include <string_view>

#include "prowl/cli/run_main.hpp"

namespace prowl::app {

// `prowl demo [run_main flags]`: explores the bundled shop service over HTTP.
int demo_command(int argc, char** argv);

// `prowl explore MODEL.yaml [run_main flags]`: explores an HTTP service described by a model
// file (docs/model-file.md); with --trace-dir its traces record model-file=MODEL.yaml.
int explore_command(int argc, char** argv);

// `prowl init --openapi SPEC [-o FILE] [--force] [--command CMD]`: writes a starter model file
// from an OpenAPI document.
int init_command(int argc, char** argv);

// `prowl replay TRACE [--model FILE.yaml]`: replays a trace of a model file's target.
int replay_command(int argc, char** argv);

// `prowl shrink TRACE [--model FILE.yaml] [-o OUT]`: shrinks a failing trace of a model file's
// target.
int shrink_command(int argc, char** argv);

// What replay and shrink share: `settings.command` says which; the model file is --model, else
// the trace's model-file option.
int trace_command(MainSettings settings, int argc, char** argv);

// Loads the model file at `path` and runs the parsed command line on it (explore, replay or
// shrink); traces record the path as model-file. A file that does not load is its message
// ("FILE:LINE:COL: ...") on stderr, then `hint` when given, and its exit code.
int run_model_file(CommandLine& command_line, const std::string& path, std::string_view hint = {});

// `prowl report IN.json [--to FORMAT:FILE]...`: a run's JSON report in other formats.
int report_command(int argc, char** argv);

// `prowl recover MODEL.yaml`: puts back the databases a killed run left changed.
int recover_command(int argc, char** argv);

// `prowl reach FILE.yaml [...]`: symbolic reachability of a system file (docs/symbolic.md).
int reach_command(int argc, char** argv);
// `prowl replay TRACE --system FILE.yaml`: replays a trace `prowl reach` wrote.
int reach_replay_command(int argc, char** argv);
// Whether the file at `path` is a trace of kind reach.
bool is_reach_trace(const std::string& path);

// `prowl train --env ENV --episodes N -o FILE`: trains an exploration policy (docs/learned.md).
int train_command(int argc, char** argv);
// `prowl eval --env ENV --policy FILE`: measures it beside the baselines on held-out graphs.
int eval_command(int argc, char** argv);

// `prowl version`: prints the version.
int version_command(int argc, char** argv);
// `prowl worst-case PROGRAM --n SIZES`: worst-case input search on the bundled programs
// (examples/worst_case), and `prowl replay` of the witnesses it writes.
int worst_case_command(int argc, char** argv);
bool is_worst_case_trace(const std::string& path);
int worst_case_replay_command(int argc, char** argv);

}  // namespace prowl::app
