// A training run as the command lines do it (`prowl train`, and `PROGRAM train` of run_main
// programs; docs/learned.md): trains a move policy on an Env by A2C, prints the learning curve,
// and writes the policy file, atomically, unless a signal stopped it.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/learn/a2c.hpp"
#include "prowl/learn/env.hpp"

namespace prowl::learn {

// The --linear-episodes flag's help, for the commands that train (prowl train, PROGRAM train).
inline constexpr std::string_view kLinearEpisodesHelp =
    "--network graph: train the linear move scorer this many episodes first and start the graph "
    "policy from it (default 32000; 0: from its own first weights)";

// The --keep-best-window flag's help (prowl train, prowl eval --ablation, PROGRAM train), and
// its largest value.
inline constexpr std::string_view kKeepBestWindowHelp =
    "keep the policy as it was after the B consecutive updates of highest mean training coverage "
    "(a guard against a late collapse; default 0: the last update's)";
inline constexpr int kMaxKeepBestWindow = 1'000'000;

struct TrainRun {
  std::string program;  // "prowl train": the prefix of messages
  std::string title;    // what is trained on, for the first line: "maze6 (vision)"
  long episodes = 0;    // >= 1; 16 make an update
  std::uint64_t seed = 1;
  std::vector<int> hidden;  // hidden layer widths of a new move policy's scorer
  bool graph = false;       // a new graph policy (GraphPolicy, default shape) instead
  GraphPolicy::Summary summary = GraphPolicy::Summary::kGraph;  // its history summary
  bool history = false;                                         // and its LSTM over the steps
  // A new graph policy's linear start (train_graph_policy): episodes of the linear control
  // first, rounded up to updates of 16 (0: none).
  long linear_episodes = static_cast<long>(kLinearStartUpdates) * 16;
  int threads = 1;
  // A2cOptions::keep_best_window (0: the policy of the last update). A graph policy's linear
  // start keeps its own best window too.
  int keep_best_window = 0;
  std::string output;
  // A policy to go on training (fine-tuning) instead of a new one, and the file it came from.
  std::optional<AnyPolicy> start;
  std::string start_file;
  // More header lines for the file, after kind, features, env and mode.
  std::vector<std::pair<std::string, std::string>> header;
};

// Trains, prints "PROGRAM: TITLE, U updates of 16 episodes, seed S" (", after a linear start of
// L updates" and its line "  linear start  coverage C" with one), twenty curve lines, with a best
// window "  kept the policy after update E (updates F - E: mean coverage C)" (and, after a linear
// start, "  the linear start: kept the policy after its update E"), and "policy written to FILE"
// on `out`, errors on `err`. Returns the exit code: 0; 130/143/129 when
// a signal stopped it between updates (the file is left as it was); 2 or 3 when the file cannot
// be written. Interrupt handlers must be installed (prowl/core/interrupt.hpp).
int run_training(Env& env, TrainRun run, std::ostream& out, std::ostream& err);

}  // namespace prowl::learn
