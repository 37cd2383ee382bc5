// reach(): symbolic breadth-first reachability of a TransitionSystem (docs/symbolic.md). Regions
// are formulas over the state variables; from Reach := Init, New := Init it computes the image
// of New under every transition until no image has a state outside Reach. The result is the
// reachable region and its depth (psyco's k counts one more iteration, the final empty one:
// `iterations` = depth + 1 at a fixpoint), each invariant proved or broken at its shortest
// depth with a concrete counterexample, and per-iteration figures.
//
// Termination is not guaranteed (an unbounded counter has no fixpoint): the depth cap
// (`max_depth`, 0 = none) and the time limit end the search as `interrupted`. Z3 answering
// `unknown` (nonlinear arithmetic, quantifiers it gives up on) ends it as `unknown`. A signal
// (prowl/core/interrupt.hpp) interrupts the Z3 call under way. Not thread-safe: it uses the
// system's z3::context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <z3++.h>

#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

// How the image of a region is computed. The QE modes eliminate the old state and the inputs
// with that Z3 tactic, so every region is quantifier-free over the state variables (qe-light
// may leave quantifiers it cannot remove); psyco follows the seed's algorithm as written.
enum class ImageMode { kQe2, kQe, kQeRec, kQeLight, kPsyco };
std::string_view to_string(ImageMode mode);
std::optional<ImageMode> parse_image_mode(std::string_view name);
inline constexpr std::string_view kImageModeNames = "qe2, qe, qe_rec, qe-light, psyco";

enum class ReachStatus { kFixpoint, kViolated, kInterrupted, kUnknown };
std::string_view to_string(ReachStatus status);

struct ReachResult;

struct ReachOptions {
  ImageMode image = ImageMode::kQe2;
  std::uint32_t max_depth = 100;  // 0: no cap
  double time_limit = 0;          // seconds; 0: none
  // Go on after every invariant and error path is broken (to the fixpoint or the cap), for the
  // region and depth; by default the search stops once nothing is left to prove.
  bool explore_after_violations = false;
  // Called with the result so far (seconds set) after frontier 0 and each later frontier is
  // checked, on the thread that runs reach(). A caller that must report even when a Z3 call does
  // not return from its interrupt renders its report here (prowl reach does).
  std::function<void(const ReachResult&)> on_depth;
};

// One state's values, one numeral per state variable, in declaration order.
using Valuation = std::vector<z3::expr>;

struct CounterexampleStep {
  std::string transition;
  std::vector<std::pair<std::string, z3::expr>> inputs;  // the inputs the transition reads
  Valuation after;  // the state after it (an error step: before)
};

// The shortest run that breaks one invariant or reaches one error path.
struct Counterexample {
  std::string finding;  // "invariant:NAME" or "error:TRANSITION"
  Valuation initial;
  std::vector<CounterexampleStep> steps;
};

enum class Verdict { kProved, kViolated, kOpen, kUnknown };
std::string_view to_string(Verdict verdict);

// An invariant, or an error transition ("error:NAME").
struct Check {
  std::string finding;
  Verdict verdict = Verdict::kOpen;
  std::uint32_t depth = 0;  // kViolated: the steps of its counterexample
  std::optional<Counterexample> counterexample;
};

struct IterationStats {
  double seconds = 0;
  std::size_t disjuncts = 0;  // of the image
  std::size_t nodes = 0;      // distinct AST nodes of the image
  bool new_states = false;
};

struct ReachResult {
  ReachStatus status = ReachStatus::kFixpoint;
  std::uint32_t depth = 0;       // the last frontier's index: the longest shortest path
  std::uint32_t iterations = 0;  // psyco's k: images computed
  // New_0..New_depth, each a list of disjuncts (one formula in the QE modes; psyco's symbolic
  // states). States may appear in several frontiers; New_i holds every state at distance i.
  std::vector<std::vector<z3::expr>> frontiers;
  std::vector<IterationStats> stats;
  std::vector<Check> checks;  // the invariants in order, then the error transitions
  std::string reason;         // kInterrupted, kUnknown: why
  int signal = 0;             // kInterrupted by a signal: which
  double seconds = 0;

  // Reach: the frontiers' disjuncts, in order.
  std::vector<z3::expr> region() const;
  z3::expr region_expr(z3::context& context) const;
};

ReachResult reach(const TransitionSystem& system, const ReachOptions& options = {});

}  // namespace prowl::sym
