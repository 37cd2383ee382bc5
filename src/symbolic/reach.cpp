#include "prowl/symbolic/reach.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "counterexample.hpp"
#include "cubes.hpp"
#include "prowl/core/interrupt.hpp"
#include "prowl/symbolic/image.hpp"
#include "prowl/symbolic/region.hpp"
#include "solver.hpp"

namespace prowl::sym {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Interrupts the context's Z3 call under way when a signal arrives or the time limit passes.
class Watchdog {
 public:
  Watchdog(z3::context& context, double time_limit)
      : context_(context),
        deadline_(time_limit > 0 ? Clock::now() + to_duration(time_limit)
                                 : Clock::time_point::max()),
        thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  // Why the search must stop: "" while it may go on.
  std::string stop_reason() const {
    if (interrupts() > 0) return "interrupted by " + std::string(signal_name(interrupt_signal()));
    if (timed_out_.load()) return "time limit reached";
    if (Clock::now() >= deadline_) return "time limit reached";
    return {};
  }

 private:
  static Clock::duration to_duration(double seconds) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
  void watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::milliseconds(20));
      if (done_) break;
      const bool late = Clock::now() >= deadline_;
      if (late) timed_out_ = true;
      if (late || interrupts() > 0) context_.interrupt();
    }
  }
  z3::context& context_;
  Clock::time_point deadline_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::atomic<bool> timed_out_{false};
  std::thread thread_;
};

class Search {
 public:
  Search(const TransitionSystem& system, const ReachOptions& options, ReachResult& result)
      : system_(system),
        context_(system.context()),
        options_(options),
        result_(result),
        start_(Clock::now()),
        psyco_(system) {
    if (options.image != ImageMode::kPsyco) cubes_.emplace(system, options.image);
    for (const NamedInvariant& inv : system.invariants()) {
      result_.checks.push_back({"invariant:" + inv.name, Verdict::kOpen, 0, std::nullopt});
      targets_.push_back(!inv.holds);
    }
    for (const Transition& t : system.transitions()) {
      if (!t.error) continue;
      result_.checks.push_back({"error:" + t.name, Verdict::kOpen, 0, std::nullopt});
      targets_.push_back(t.guard);
      error_paths_.push_back(&t);
    }
  }

  void run(const Watchdog& watchdog) {
    if (cubes_) cubes_->set_stop([&watchdog] { return !watchdog.stop_reason().empty(); });
    if (cubes_) {
      result_.frontiers.push_back(to_cubes(system_.initial()));
      cubes_->add_to_reach(result_.frontiers.back());
    } else {
      result_.frontiers.push_back({system_.initial()});
    }
    if (!check_frontier(0)) return;
    reached_depth();
    for (;;) {
      if (nothing_left_to_prove()) break;
      if (options_.max_depth > 0 && result_.depth >= options_.max_depth) {
        stop(ReachStatus::kInterrupted,
             "depth cap " + std::to_string(options_.max_depth) +
                 " reached with new states still found: termination is not guaranteed");
        return;
      }
      if (std::string why = watchdog.stop_reason(); !why.empty()) {
        stop_for(why);
        return;
      }
      const Clock::time_point start = Clock::now();
      ++result_.iterations;
      std::optional<std::vector<z3::expr>> next = step();
      if (!next) return;
      IterationStats stats;
      stats.seconds = seconds_since(start);
      stats.disjuncts = next->size();
      stats.nodes = next->empty() ? 0 : node_count(disjunction(context_, *next));
      stats.new_states = !next->empty();
      result_.stats.push_back(stats);
      if (next->empty()) break;
      ++result_.depth;
      result_.frontiers.push_back(std::move(*next));
      if (!check_frontier(result_.depth)) return;
      reached_depth();
    }
    // The fixpoint (or nothing left to prove): every check not broken holds in every state.
    if (result_.status == ReachStatus::kFixpoint || result_.status == ReachStatus::kViolated) {
      const bool complete = !result_.stats.empty() && !result_.stats.back().new_states;
      for (Check& c : result_.checks) {
        if (complete && c.verdict == Verdict::kOpen) c.verdict = Verdict::kProved;
      }
    }
  }

  void stop_for(const std::string& why) {
    if (why.rfind("interrupted by ", 0) == 0) result_.signal = interrupt_signal();
    stop(ReachStatus::kInterrupted, why);
    // A check whose query the interruption cut short was not undecidable: it is still open.
    for (Check& c : result_.checks) {
      if (c.verdict == Verdict::kUnknown) c.verdict = Verdict::kOpen;
    }
  }

 private:
  void stop(ReachStatus status, std::string reason) {
    result_.status = status;
    result_.reason = std::move(reason);
  }

  void reached_depth() {
    if (!options_.on_depth) return;
    result_.seconds = seconds_since(start_);
    options_.on_depth(result_);
  }

  bool nothing_left_to_prove() const {
    if (options_.explore_after_violations || result_.checks.empty()) return false;
    return std::all_of(result_.checks.begin(), result_.checks.end(),
                       [](const Check& c) { return c.verdict == Verdict::kViolated; });
  }

  // The next frontier; empty at the fixpoint; nullopt when the search ended (status set).
  std::optional<std::vector<z3::expr>> step() {
    const std::vector<z3::expr>& frontier = result_.frontiers.back();
    if (options_.image == ImageMode::kPsyco) {
      const std::vector<z3::expr> reach = result_.region();
      std::string reason;
      std::optional<std::vector<z3::expr>> fresh =
          psyco_.difference(psyco_.post(frontier), reach, reason);
      if (!fresh) stop(ReachStatus::kUnknown, reason);
      return fresh;
    }
    std::optional<std::vector<z3::expr>> next = cubes_->step(frontier);
    if (!next) stop(ReachStatus::kUnknown, cubes_->reason());
    return next;
  }

  // Checks the open invariants and error paths on New_depth. False when the search ended.
  bool check_frontier(std::uint32_t depth) {
    const z3::expr frontier = disjunction(context_, result_.frontiers[depth]);
    for (std::size_t i = 0; i < result_.checks.size(); ++i) {
      Check& check = result_.checks[i];
      if (check.verdict != Verdict::kOpen) continue;
      z3::solver solver = make_solver(context_);
      solver.add(frontier);
      solver.add(targets_[i]);
      const z3::check_result r = solver.check();
      if (r == z3::unknown) {
        check.verdict = Verdict::kUnknown;
        stop(ReachStatus::kUnknown, "Z3 could not decide " + check.finding + " at depth " +
                                        std::to_string(depth) + " (" + solver.reason_unknown() +
                                        ")");
        return false;
      }
      if (r == z3::unsat) continue;
      const std::size_t invariants = system_.invariants().size();
      const Transition* error = i >= invariants ? error_paths_[i - invariants] : nullptr;
      check.counterexample =
          walk_back(system_, result_.frontiers, depth, solver.get_model(), error);
      check.counterexample->finding = check.finding;
      check.depth = static_cast<std::uint32_t>(check.counterexample->steps.size());
      check.verdict = Verdict::kViolated;
      result_.status = ReachStatus::kViolated;
    }
    return true;
  }

  const TransitionSystem& system_;
  z3::context& context_;
  const ReachOptions& options_;
  ReachResult& result_;
  Clock::time_point start_;
  Psyco psyco_;
  std::optional<CubeFrontier> cubes_;
  std::vector<z3::expr> targets_;  // per check: what breaks it
  std::vector<const Transition*> error_paths_;
};

}  // namespace

std::string_view to_string(ImageMode mode) {
  switch (mode) {
    case ImageMode::kQe2:
      return "qe2";
    case ImageMode::kQe:
      return "qe";
    case ImageMode::kQeRec:
      return "qe_rec";
    case ImageMode::kQeLight:
      return "qe-light";
    case ImageMode::kPsyco:
      return "psyco";
  }
  return "?";
}

std::optional<ImageMode> parse_image_mode(std::string_view name) {
  for (ImageMode m : {ImageMode::kQe2, ImageMode::kQe, ImageMode::kQeRec, ImageMode::kQeLight,
                      ImageMode::kPsyco}) {
    if (to_string(m) == name) return m;
  }
  return std::nullopt;
}

std::string_view to_string(ReachStatus status) {
  switch (status) {
    case ReachStatus::kFixpoint:
      return "fixpoint";
    case ReachStatus::kViolated:
      return "violated";
    case ReachStatus::kInterrupted:
      return "interrupted";
    case ReachStatus::kUnknown:
      return "unknown";
  }
  return "?";
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kProved:
      return "proved";
    case Verdict::kViolated:
      return "violated";
    case Verdict::kOpen:
      return "open";
    case Verdict::kUnknown:
      return "unknown";
  }
  return "?";
}

std::vector<z3::expr> ReachResult::region() const {
  std::vector<z3::expr> out;
  for (const auto& frontier : frontiers) out.insert(out.end(), frontier.begin(), frontier.end());
  return out;
}

z3::expr ReachResult::region_expr(z3::context& context) const {
  return disjunction(context, region());
}

ReachResult reach(const TransitionSystem& system, const ReachOptions& options) {
  ReachResult result;
  const Clock::time_point start = Clock::now();
  Search search(system, options, result);
  {
    Watchdog watchdog(system.context(), options.time_limit);
    try {
      search.run(watchdog);
      // A query the watchdog cut short answers unknown: that is the interruption's doing.
      if (result.status == ReachStatus::kUnknown && !watchdog.stop_reason().empty()) {
        search.stop_for(watchdog.stop_reason());
      }
    } catch (const z3::exception& e) {
      if (std::string why = watchdog.stop_reason(); !why.empty()) {
        search.stop_for(why);
      } else {
        result.status = ReachStatus::kUnknown;
        result.reason = std::string("Z3 failed: ") + e.msg();
      }
    }
  }
  // A violation found is a finding whatever ended the search.
  const bool violated = std::any_of(result.checks.begin(), result.checks.end(),
                                    [](const Check& c) { return c.verdict == Verdict::kViolated; });
  if (violated) result.status = ReachStatus::kViolated;
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace prowl::sym
