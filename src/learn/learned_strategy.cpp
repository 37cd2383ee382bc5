#include "prowl/learn/learned_strategy.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "prowl/learn/features.hpp"
#include "prowl/learn/policy_file.hpp"
#include "prowl/strategy/factory.hpp"

namespace prowl::learn {

namespace {

// A count that stops at the largest int instead of overflowing.
void count(int& c) { c += c < std::numeric_limits<int>::max() ? 1 : 0; }

}  // namespace

LearnedStrategy::LearnedStrategy(AnyPolicy policy, LearnedOptions options)
    : policy_(std::move(policy)), options_(options), rng_(options.seed) {
  PROWL_CHECK(options_.budget > 0 && options_.window >= 1 && options_.candidates >= 1 &&
                  options_.walk_moves >= 0,
              "LearnedStrategy: positive budget, window and candidates");
}

LearnedStrategy::Node& LearnedStrategy::node(StateId s) {
  if (s >= nodes_.size()) {
    const std::size_t n = std::max<std::size_t>(s + 1, nodes_.size() * 2);
    nodes_.resize(n);
    local_.resize(n, -1);
    stamp_.resize(n, 0);
  }
  return nodes_[s];
}

void LearnedStrategy::notify(const Graph& /*graph*/, StateId state,
                             std::span<const ActionId> enabled) {
  Node& n = node(state);
  n.known = true;
  n.untried.assign(enabled.begin(), enabled.end());
  most_enabled_ = std::max(most_enabled_, enabled.size());
  if (!enabled.empty()) {
    open_.push_back(state);
    n.live = static_cast<int>(live_.size());
    live_.push_back(state);
  }
  if (current_ == kNoState) {
    current_ = state;
    n.visits = 1;
  }
}

int LearnedStrategy::local_of(StateId s) const {
  return s < stamp_.size() && stamp_[s] == generation_ ? local_[s] : -1;
}

void LearnedStrategy::next_generation() {
  if (++generation_ == 0) {  // wrapped: every stamp would match again
    std::fill(stamp_.begin(), stamp_.end(), 0);
    generation_ = 1;
  }
}

void LearnedStrategy::build_window() {
  next_generation();
  window_.clear();
  const auto add = [&](StateId s) {
    // Every state here has its node: current_, and the ends of known pairs (observe() made them).
    if (s == kNoState || local_of(s) >= 0 || window_.size() >= std::size_t(options_.window)) return;
    stamp_[s] = generation_;
    local_[s] = static_cast<int>(window_.size());
    window_.push_back(s);
  };
  add(current_);
  for (std::size_t i = 0; i < window_.size() && window_.size() < std::size_t(options_.window);
       ++i) {
    const Node& n = nodes_[window_[i]];
    for (const auto& [action, target] : n.tried) add(target);
    for (StateId from : n.into) add(from);
  }
  const std::size_t size = window_.size();
  memory_.edges.resize(size);
  memory_.visits.resize(size);
  memory_.untried.resize(size);
  memory_.current = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const Node& n = nodes_[window_[i]];
    memory_.edges[i].clear();
    for (const auto& [action, target] : n.tried) {
      const int to = target == kNoState ? -1 : local_of(target);
      if (target == kNoState || to >= 0) memory_.edges[i].push_back({std::string(), to});
    }
    memory_.visits[i] = n.visits;
    memory_.untried[i] = static_cast<int>(n.untried.size());
  }
}

Eigen::VectorXd LearnedStrategy::scores(const View& view, const std::vector<int>& distance,
                                        GraphPolicy::Carry& next) const {
  if (const auto* move = std::get_if<MovePolicy>(&policy_)) {
    // All moves through the network at once: one matrix product instead of one pass a move.
    return move->scorer().forward_columns(move_feature_columns(view, distance)).row(0).transpose();
  }
  // Raw scores, not log-probabilities: jump pools several states' scores in one softmax.
  GraphPolicy::Record record = std::get<GraphPolicy>(policy_).observe(view, carry_);
  next = std::move(record.carry);
  return std::move(record.scores);
}

std::size_t LearnedStrategy::draw(const Eigen::VectorXd& scores) {
  const Eigen::VectorXd p = softmax(scores);
  double u = rng_.unit();
  for (Eigen::Index i = 0; i + 1 < p.size(); ++i) {
    if (u < p[i]) return static_cast<std::size_t>(i);
    u -= p[i];
  }
  return static_cast<std::size_t>(p.size() - 1);
}

Pair LearnedStrategy::take(StateId s, std::size_t untried_index) {
  Node& n = nodes_[s];
  const ActionId action = n.untried[untried_index];
  n.untried.erase(n.untried.begin() + static_cast<std::ptrdiff_t>(untried_index));
  if (n.untried.empty()) {
    nodes_[live_.back()].live = n.live;
    live_[static_cast<std::size_t>(n.live)] = live_.back();
    live_.pop_back();
    n.live = -1;
  }
  current_ = s;
  pending_.push_back({s, action});
  last_pick_ = pending_.back();
  steps_ = std::min(steps_ + 1, options_.budget);  // the feature saturates there
  return pending_.back();
}

std::optional<Pair> LearnedStrategy::fallback() {
  while (!open_.empty()) {
    const StateId s = open_.back();
    if (nodes_[s].untried.empty()) {
      open_.pop_back();
      continue;
    }
    ++fallback_picks_;
    path_.clear();
    return take(s, rng_.below(nodes_[s].untried.size()));
  }
  return std::nullopt;
}

Move LearnedStrategy::move_of(ActionId action, int target) {
  if (action >= actions_.size()) actions_.resize(action + 1);
  return {std::string(), target, false, actions_[action].first, actions_[action].second};
}

std::optional<Pair> LearnedStrategy::walk_pick() {
  if (live_.empty()) return std::nullopt;  // nothing left: no moves to make
  std::vector<Move> moves;
  std::vector<ActionId> labels;  // by move: its action (kNoAction: back)
  std::vector<StateId> targets;  // by move past the untried ones: the state it leads to
  for (int k = 0; k <= options_.walk_moves; ++k) {
    build_window();
    const Node& here = nodes_[current_];
    moves.clear();
    labels.clear();
    targets.clear();
    for (ActionId a : here.untried) moves.push_back(move_of(a, -1));
    for (const auto& [action, target] : here.tried) {
      const int to = target == kNoState ? -1 : local_of(target);
      if (to < 0) continue;
      moves.push_back(move_of(action, to));
      labels.push_back(action);
      targets.push_back(target);
    }
    if (!path_.empty() && local_of(path_.back()) >= 0) {
      moves.push_back({"back", local_of(path_.back()), true, back_tries_, 0});
      labels.push_back(kNoAction);
      targets.push_back(path_.back());
    }
    if (moves.empty() || k == options_.walk_moves) break;
    const View view(moves, memory_, steps_, options_.budget, 0);
    GraphPolicy::Carry next;
    const std::size_t pick = draw(scores(view, frontier_distance(memory_), next));
    carry_ = std::move(next);  // every move of the walk is a decision
    if (pick < here.untried.size()) return take(current_, pick);
    // A move along a known pair or back: a step of the walk, as in training, and a try of its
    // label that found nothing new.
    steps_ = std::min(steps_ + 1, options_.budget);
    const std::size_t t = pick - here.untried.size();
    if (labels[t] == kNoAction) {
      count(back_tries_);
      path_.pop_back();
    } else {
      count(actions_[labels[t]].first);
      path_.push_back(current_);
    }
    current_ = targets[t];
    count(nodes_[current_].visits);
  }
  return fallback();
}

std::optional<Pair> LearnedStrategy::jump_pick() {
  if (live_.empty()) return std::nullopt;
  // An unexplored pair's features need no window: its target is unknown, so they are the budget
  // spent and its action's record (its state shown as one of one unexplored pair, below). The
  // candidates are the current state and states drawn from all that have unexplored pairs.
  next_generation();
  std::vector<StateId> states;
  if (current_ != kNoState && !nodes_[current_].untried.empty()) states.push_back(current_);
  // Each drawn in proportion to its unexplored pairs (as random draws pairs), by rejection
  // against the most pairs any state was notified with: at most 8 tries, then the last drawn.
  for (int k = 0; k < options_.candidates && std::ssize(states) < options_.candidates; ++k) {
    StateId s = live_[rng_.below(live_.size())];
    for (int tries = 1; tries < 8 && rng_.below(most_enabled_) >= nodes_[s].untried.size();
         ++tries) {
      s = live_[rng_.below(live_.size())];
    }
    states.push_back(s);
  }
  std::vector<Move> moves;
  std::vector<Pair> pairs;  // by score: the state and the index of the pair in its untried ones
  std::vector<double> all;
  // A recurrent policy's carry after deciding at each candidate state.
  const auto* graph_policy = std::get_if<GraphPolicy>(&policy_);
  const bool recurrent = graph_policy != nullptr && graph_policy->recurrent();
  std::vector<std::pair<StateId, GraphPolicy::Carry>> carries;
  GraphPolicy::Carry unused;
  Memory one;  // the state alone
  one.edges.resize(1);
  one.visits.resize(1);
  one.untried.resize(1);
  const std::vector<int> distance{0};
  for (StateId s : states) {
    if (stamp_[s] == generation_) continue;  // drawn twice
    stamp_[s] = generation_;
    const Node& n = nodes_[s];
    one.visits[0] = n.visits;
    // Each candidate as a state of one unexplored pair: training never compared moves of states
    // with different numbers of them (every move of a decision shares its state's), so what a
    // policy's weights say of that number is no reason to prefer one state's pairs to another's.
    // The draw above already weighs states by it, as random does.
    one.untried[0] = 1;
    moves.clear();
    for (ActionId a : n.untried) moves.push_back(move_of(a, -1));
    const View view(moves, one, steps_, options_.budget, 0);
    const Eigen::VectorXd z =
        scores(view, distance, recurrent ? carries.emplace_back(s, unused).second : unused);
    for (Eigen::Index b = 0; b < z.size(); ++b) {
      all.push_back(z[b]);
      pairs.push_back({s, static_cast<ActionId>(b)});
    }
  }
  const Pair chosen = pairs[draw(
      Eigen::Map<const Eigen::VectorXd>(all.data(), static_cast<Eigen::Index>(all.size())))];
  // The decision was taken at the chosen pair's state.
  for (auto& [state, carry] : carries) {
    if (state == chosen.state) carry_ = std::move(carry);
  }
  return take(chosen.state, chosen.action);
}

std::optional<Pair> LearnedStrategy::pick(const Graph& /*graph*/) {
  if (current_ == kNoState) return std::nullopt;
  return options_.walk ? walk_pick() : jump_pick();
}

void LearnedStrategy::observe(const Graph& /*graph*/, const StepResult& result) {
  // With several workers, several picks are under way at once and their results come in any
  // order: each is recorded; the agent moves with the latest pick's only.
  const auto it = std::find(pending_.begin(), pending_.end(), result.pair);
  if (it == pending_.end()) return;
  const bool latest = result.pair == last_pick_;
  pending_.erase(it);
  const StateId from = result.pair.state;
  nodes_[from].tried.push_back({result.pair.action, result.target});
  move_of(result.pair.action, -1);  // sizes actions_
  count(actions_[result.pair.action].first);
  if (result.new_state) count(actions_[result.pair.action].second);
  if (result.target == kNoState) return;
  if (result.target != from) node(result.target).into.push_back(from);
  if (!latest) return;
  if (result.target != from && options_.walk) path_.push_back(from);
  current_ = result.target;
  count(nodes_[current_].visits);
}

namespace {

using Made = Result<std::unique_ptr<Strategy>>;

Result<bool> bool_option(const StrategyInput& in, const StrategyOption& option) {
  if (option.value == "true" || option.value == "1") return true;
  if (option.value == "false" || option.value == "0") return false;
  return Status::invalid(fmt::format("strategy '{}': option {} must be true or false, not '{}'",
                                     in.entry.name, option.key, option.value));
}

Result<int> int_option(const StrategyInput& in, const StrategyOption& option, int min) {
  int value = 0;
  const char* end = option.value.data() + option.value.size();
  const auto [ptr, ec] = std::from_chars(option.value.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min) {
    return Status::invalid(
        fmt::format("strategy '{}': option {} must be a whole number >= {}, not "
                    "'{}'",
                    in.entry.name, option.key, min, option.value));
  }
  return value;
}

}  // namespace

Result<AnyPolicy> read_policy_for_models(const std::string& path) {
  Result<PolicyFile> file = read_policy_file(path);
  if (!file) return file.status();
  return policy_for_models(*file, path);
}

Result<AnyPolicy> policy_for_models(const PolicyFile& file, const std::string& path) {
  Result<AnyPolicy> policy = policy_of(file, path);
  if (!policy) return policy;
  const std::string env = policy_header(file, "env");
  if (env == "maze6") {
    return Status::invalid(path +
                           ": the policy was trained for maze6 features (moves by direction, no "
                           "back); a model's moves are its actions and back: train one with "
                           "prowl train --env er-app");
  }
  return policy;
}

namespace {

Made make_learned(const StrategyInput& in) {
  LearnedOptions options;
  options.seed = in.seed;
  std::string path;
  bool budget_given = false;
  for (const StrategyOption& option : in.options) {
    Result<int> number = 0;
    if (option.key == "policy") {
      path = option.value;
    } else if (option.key == "walk") {
      Result<bool> walk = bool_option(in, option);
      if (!walk) return walk.status();
      options.walk = *walk;
    } else if (option.key == "budget" || option.key == "window") {
      number = int_option(in, option, option.key == "budget" ? 1 : 2);
      if (!number) return number.status();
      (option.key == "budget" ? options.budget : options.window) = *number;
      budget_given = budget_given || option.key == "budget";
    } else {
      return unknown_option(in, option);
    }
  }
  if (path.empty()) {
    return Status::invalid(
        "strategy 'learned' needs a policy file: --strategy learned --policy FILE (prowl train "
        "writes one; docs/learned.md)");
  }
  Result<PolicyFile> file = read_policy_file(path);
  if (!file) return file.status();
  Result<AnyPolicy> policy = policy_for_models(*file, path);
  if (!policy) return policy.status();
  // A policy trained on a model counts its budget as it did in training, unless told otherwise.
  const std::optional<int> trained =
      policy_header_int(*file, "budget", 1, std::numeric_limits<int>::max());
  if (!budget_given && trained) options.budget = *trained;
  return std::unique_ptr<Strategy>(std::make_unique<LearnedStrategy>(std::move(*policy), options));
}

constexpr StrategyOptionDoc kLearnedOptions[] = {
    {"policy", "(required)", "the policy file prowl train wrote (--policy FILE)"},
    {"walk", "false", "true: move along known pairs and back, as in training (--walk)"},
    {"budget", "the policy file's budget=, else 2000",
     "the steps the policy's budget-spent feature counts up to"},
    {"window", "256", "walk: states of the memory the policy reads, at most"}};

}  // namespace

void register_learned_strategy() {
  register_strategy({"learned", "a trained exploration policy (prowl train) over the states seen",
                     kLearnedOptions, make_learned});
}

}  // namespace prowl::learn
