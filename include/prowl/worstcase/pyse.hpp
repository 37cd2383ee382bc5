// PySE (../shared/seeds/003, docs/worst-case.md, "PySE"): worst-case search by Q-learning over
// branch decisions. The state of decision t is the current site and the previous `history`
// decisions (site and side); a Q-network (prowl::learn::Mlp, two outputs: Q(s, True) and
// Q(s, False)) picks the side. A feasible side earns +1, an infeasible one −20 and ends the path.
// After each path the new experiences (s, a, r, s') go into a buffer of at most `buffer`, which
// is then replayed in a random order: Q(s,a) ← r + max Q(s',·) (the network's squared-error step
// does the (1−α) mixing). The Unique Path Finder runs the ε-greedy policy over the tree of
// decisions seen so far ("virtual execution") to the first decision no path has taken, so that
// every symbolic run is a new path: the run follows that prefix and goes on with the policy
// (greedy by default: run_epsilon).
//
// One Pyse learns across sizes: pre-train at a small n, then search at larger ones with the same
// network and buffer. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"
#include "prowl/learn/mlp.hpp"
#include "prowl/learn/policy_file.hpp"
#include "prowl/worstcase/search.hpp"

namespace prowl::wc {

struct PyseOptions {
  int history = 2;              // L: the previous decisions in a state
  double epsilon = 0.05;        // ε of the Unique Path Finder's ε-greedy virtual execution
  double run_epsilon = 0;       // ε of the run's own choices after the prefix (docs/worst-case.md)
  std::size_t buffer = 10000;   // N_e: the experiences kept
  int hidden = 32;              // two hidden layers of this width (ReLU)
  double learning_rate = 1e-2;  // Adam's (1e-3 needed 3-7x the paths on boyer_moore3)
  int replay_passes = 1;        // passes over the buffer after each path (the seed: 1)
  std::size_t min_updates = 400;  // ... and at least this many examples (a small buffer needs more)
  std::size_t batch = 8;          // experiences per optimizer step (the seed: 1)
  std::uint64_t seed = 1;         // the network's initial weights and every random choice
  static constexpr int kSites = 16;  // site slots of the one-hot encoding (more share the last)
};

// One experience: the state, the side taken, the reward, and the next state (none at the end).
struct Experience {
  std::vector<double> state;
  bool action = true;
  double reward = 0;
  std::vector<double> next;  // empty: terminal
};

// The Q-learning target of an experience: r at the end of a path, else r + max Q(s', ·).
double q_target(const learn::Mlp& q, const Experience& e);

class Pyse {
 public:
  Pyse(const Program& program, PyseOptions options);
  ~Pyse();

  // Runs paths at size n until one reaches options.target (when set), every path of the tree has
  // been run, or a limit (max_paths, time_limit, a signal) stops it. Errors of the program are an
  // invalid Status naming the site.
  Result<SearchResult> search(int n, const SearchOptions& options);

  // The features of a decision at `site` after `so_far`: (history + 1) slots of the site's
  // one-hot slot, the side taken (0 for the current decision) and whether the slot is filled.
  std::vector<double> features(const std::vector<PathStep>& so_far, const Site& site);

  // The network and what it needs to be used again, as a policy file: program=, search=pyse,
  // history=, sites= (the site ids in slot order), seed=, trained= (the sizes it ran at).
  learn::PolicyFile to_policy() const;
  // Takes the network and the site slots of a policy file written by to_policy(). An invalid
  // Status naming `source` when the file is of another program, another history length, another
  // network shape, or lacks a key.
  Status load_policy(const learn::PolicyFile& policy, const std::string& source);

  const learn::Mlp& network() const { return q_; }
  const PyseOptions& options() const { return options_; }
  // The experiences in the buffer, oldest first.
  const std::deque<Experience>& experiences() const { return buffer_; }

 private:
  class Tree;
  class Chooser;
  bool greedy_side(const std::vector<double>& state, bool true_ok, bool false_ok, double epsilon);
  void learn_from(const std::vector<PathStep>& decisions, bool infeasible_end);
  void replay();

  const Program& program_;
  PyseOptions options_;
  learn::Mlp q_;
  Rng rng_;
  std::map<std::uint32_t, int> site_slots_;
  std::deque<Experience> buffer_;
  std::set<std::string> known_;  // keys of the experiences in the buffer
  std::vector<int> trained_;     // the sizes searched
};

}  // namespace prowl::wc
