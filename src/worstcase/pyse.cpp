#include "prowl/worstcase/pyse.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <numeric>
#include <optional>
#include <utility>

#include "executor.hpp"
#include "tally.hpp"

namespace prowl::wc {

namespace {

using detail::Clock;
using detail::Decision;
using detail::Feasible;
using detail::PathEnd;

constexpr double kFeasibleReward = 1;
constexpr double kInfeasibleReward = -20;  // the seed's P

int side_index(bool side) { return side ? 0 : 1; }  // output 0: Q(s, True); 1: Q(s, False)

Eigen::VectorXd as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// The bytes of an experience: two experiences are the same when their keys are.
std::string key_of(const Experience& e) {
  std::string key(reinterpret_cast<const char*>(e.state.data()), e.state.size() * sizeof(double));
  key += e.action ? 'T' : 'F';
  key.append(reinterpret_cast<const char*>(&e.reward), sizeof e.reward);
  key.append(reinterpret_cast<const char*>(e.next.data()), e.next.size() * sizeof(double));
  return key;
}

}  // namespace

double q_target(const learn::Mlp& q, const Experience& e) {
  if (e.next.empty()) return e.reward;
  return e.reward + q.forward(as_vector(e.next)).maxCoeff();
}

// The decisions seen so far at one size, as a tree with a node per decision point reached.
class Pyse::Tree {
 public:
  enum class Edge { kUnexplored, kFeasible, kInfeasible };
  struct Node {
    std::optional<Site> site;  // unset: no run has reached a decision here (yet, or ever)
    int child[2] = {-1, -1};   // by side_index
    Edge edge[2] = {Edge::kUnexplored, Edge::kUnexplored};
    bool exhausted = false;  // every path through here has been run
  };

  Tree() : nodes_(1) {}

  void add(const std::vector<PathStep>& decisions, PathEnd end) {
    std::vector<int> visited{0};
    int node = 0;
    for (std::size_t t = 0; t < decisions.size(); ++t) {
      const int a = side_index(decisions[t].taken);
      nodes_[node].site = decisions[t].site;
      if (t + 1 == decisions.size() && end == PathEnd::kInfeasible) {
        nodes_[node].edge[a] = Edge::kInfeasible;
        node = -1;
        break;
      }
      nodes_[node].edge[a] = Edge::kFeasible;
      if (nodes_[node].child[a] < 0) {
        nodes_[node].child[a] = static_cast<int>(nodes_.size());
        nodes_.emplace_back();
      }
      node = nodes_[node].child[a];
      visited.push_back(node);
    }
    if (node >= 0) nodes_[node].exhausted = true;  // where the path ended: nothing below
    for (auto it = visited.rbegin(); it != visited.rend(); ++it) {
      Node& n = nodes_[*it];
      if (n.site) n.exhausted = done(n, 0) && done(n, 1);
    }
  }

  // The prefix of a path no run has taken, by the ε-greedy policy over the tree (virtual
  // execution), and the side of its first new decision (nullopt: the run decides it); nullopt
  // when every path has been run.
  std::optional<std::pair<std::vector<PathStep>, std::optional<bool>>> unique_prefix(Pyse& p) {
    if (nodes_[0].exhausted) return std::nullopt;
    std::vector<PathStep> so_far;
    for (int node = 0;;) {
      const Node& n = nodes_[node];
      if (!n.site) return std::make_pair(so_far, std::optional<bool>());
      const bool side = p.greedy_side(p.features(so_far, *n.site), open(n, side_index(true)),
                                      open(n, side_index(false)), p.options_.epsilon);
      const int a = side_index(side);
      if (n.edge[a] == Edge::kUnexplored) return std::make_pair(so_far, std::optional(side));
      so_far.push_back({*n.site, side});
      node = n.child[a];
    }
  }

 private:
  bool done(const Node& n, int a) const {
    return n.edge[a] == Edge::kInfeasible ||
           (n.edge[a] == Edge::kFeasible && nodes_[n.child[a]].exhausted);
  }
  bool open(const Node& n, int a) const { return !done(n, a); }

  std::vector<Node> nodes_;
};

// The run's chooser: the first new decision's side when the Unique Path Finder chose it, then the
// ε-greedy policy.
class Pyse::Chooser : public detail::Chooser {
 public:
  Chooser(Pyse& pyse, std::size_t at, std::optional<bool> first)
      : pyse_(pyse), at_(at), first_(first) {}
  bool checks_both() const override { return false; }
  bool choose(const std::vector<Decision>& so_far, const Site& site, Feasible, Feasible) override {
    if (so_far.size() == at_ && first_) return *first_;
    return pyse_.greedy_side(pyse_.features(so_far, site), true, true, pyse_.options_.run_epsilon);
  }

 private:
  Pyse& pyse_;
  std::size_t at_;
  std::optional<bool> first_;
};

Pyse::Pyse(const Program& program, PyseOptions options)
    : program_(program),
      options_(options),
      q_({(options.history + 1) * (PyseOptions::kSites + 2), options.hidden, options.hidden, 2},
         learn::Activation::kRelu, options.seed,
         learn::MlpOptions{options.learning_rate, learn::Optimizer::kAdam, 10.0}),
      rng_(options.seed) {}

Pyse::~Pyse() = default;

std::vector<double> Pyse::features(const std::vector<PathStep>& so_far, const Site& site) {
  constexpr int kSlot = PyseOptions::kSites + 2;
  std::vector<double> out(static_cast<std::size_t>((options_.history + 1) * kSlot), 0.0);
  const auto put = [&](int slot, const Site& s, double side) {
    auto [it, added] = site_slots_.emplace(s.id(), static_cast<int>(site_slots_.size()));
    const int index = std::min(it->second, PyseOptions::kSites - 1);
    out[static_cast<std::size_t>(slot * kSlot + index)] = 1;
    out[static_cast<std::size_t>(slot * kSlot + PyseOptions::kSites)] = side;
    out[static_cast<std::size_t>(slot * kSlot + PyseOptions::kSites + 1)] = 1;
  };
  put(0, site, 0);
  for (int l = 1; l <= options_.history && static_cast<std::size_t>(l) <= so_far.size(); ++l) {
    const PathStep& d = so_far[so_far.size() - static_cast<std::size_t>(l)];
    put(l, d.site, d.taken ? 1 : 0);
  }
  return out;
}

bool Pyse::greedy_side(const std::vector<double>& state, bool true_ok, bool false_ok,
                       double epsilon) {
  if (true_ok != false_ok) return true_ok;
  if (epsilon > 0 && rng_.unit() < epsilon) return rng_.below(2) == 0;
  const Eigen::VectorXd q = q_.forward(as_vector(state));
  return q[0] >= q[1];
}

void Pyse::learn_from(const std::vector<PathStep>& decisions, bool infeasible_end) {
  std::vector<PathStep> so_far;
  for (std::size_t t = 0; t < decisions.size(); ++t) {
    Experience e;
    e.state = features(so_far, decisions[t].site);
    e.action = decisions[t].taken;
    const bool last = t + 1 == decisions.size();
    e.reward = last && infeasible_end ? kInfeasibleReward : kFeasibleReward;
    so_far.push_back(decisions[t]);
    if (!last) e.next = features(so_far, decisions[t + 1].site);
    std::string key = key_of(e);
    if (!known_.insert(key).second) continue;
    buffer_.push_back(std::move(e));
    if (buffer_.size() > options_.buffer) {
      known_.erase(key_of(buffer_.front()));
      buffer_.pop_front();
    }
  }
}

void Pyse::replay() {
  std::vector<std::size_t> order(buffer_.size());
  std::iota(order.begin(), order.end(), 0);
  // At least min_updates examples: one pass over a buffer of a few experiences leaves the
  // network far from its targets.
  std::size_t passes = static_cast<std::size_t>(options_.replay_passes);
  if (!order.empty()) {
    passes = std::max(passes, (options_.min_updates + order.size() - 1) / order.size());
  }
  const std::size_t batch_size = std::max<std::size_t>(options_.batch, 1);
  std::vector<learn::Example> batch;
  batch.reserve(batch_size);
  for (std::size_t pass = 0; pass < passes; ++pass) {
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng_.below(i)]);
    for (std::size_t at = 0; at < order.size(); at += batch_size) {
      batch.clear();
      for (std::size_t k = at; k < std::min(at + batch_size, order.size()); ++k) {
        const Experience& e = buffer_[order[k]];
        batch.push_back({as_vector(e.state), side_index(e.action), q_target(q_, e)});
      }
      q_.train(batch);
    }
  }
}

learn::PolicyFile Pyse::to_policy() const {
  std::vector<std::uint32_t> ids(site_slots_.size());
  for (const auto& [id, slot] : site_slots_) ids[static_cast<std::size_t>(slot)] = id;
  std::string sites, trained;
  for (std::uint32_t id : ids) sites += (sites.empty() ? "" : ",") + std::to_string(id);
  for (int n : trained_) trained += (trained.empty() ? "" : ",") + std::to_string(n);
  return learn::PolicyFile{{{"program", program_.name},
                            {"search", "pyse"},
                            {"history", std::to_string(options_.history)},
                            {"sites", sites},
                            {"seed", std::to_string(options_.seed)},
                            {"trained", trained}},
                           q_};
}

Status Pyse::load_policy(const learn::PolicyFile& policy, const std::string& source) {
  std::map<std::string, std::string> h(policy.header.begin(), policy.header.end());
  for (const char* key : {"program", "search", "history", "sites"}) {
    if (h.count(key) == 0) {
      return Status::invalid(source + ": the policy has no " + key +
                             "= line (prowl worst-case --policy-out writes it)");
    }
  }
  if (h["search"] != "pyse") {
    return Status::invalid(source + ": the policy is of search '" + h["search"] + "', not pyse");
  }
  if (h["program"] != program_.name) {
    return Status::invalid(source + ": the policy is of program '" + h["program"] + "', not '" +
                           program_.name + "'");
  }
  if (h["history"] != std::to_string(options_.history)) {
    return Status::invalid(source + ": the policy reads " + h["history"] +
                           " decisions of history, not " + std::to_string(options_.history) +
                           ": give --history " + h["history"]);
  }
  if (policy.network.sizes() != q_.sizes()) {
    return Status::invalid(source + ": the policy's network is not the shape PySE uses here");
  }
  std::map<std::uint32_t, int> slots;
  std::size_t at = 0;
  const std::string& text = h["sites"];
  while (at < text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::uint32_t id = 0;
    const char* first = text.data() + at;
    const char* last = text.data() + comma;
    if (std::from_chars(first, last, id).ptr != last) {
      return Status::invalid(source + ": sites=" + text + ": not a list of site ids");
    }
    slots.emplace(id, static_cast<int>(slots.size()));
    at = comma + 1;
  }
  learn::Mlp network = policy.network;
  network.set_options(q_.options());
  q_ = std::move(network);
  site_slots_ = std::move(slots);
  return Status::ok();
}

Result<SearchResult> Pyse::search(int n, const SearchOptions& options) {
  if (n < 1) return Status::invalid("the input size n must be 1 or more");
  trained_.push_back(n);
  const Clock::time_point start = Clock::now();
  SearchResult result;
  result.n = n;
  detail::Executor executor(program_, n, options.max_depth);
  Tree tree;
  try {
    for (;;) {
      if ((result.end = detail::stop_reason(options, result, start)) != SearchEnd::kComplete) {
        break;
      }
      auto prefix = tree.unique_prefix(*this);
      if (!prefix) break;  // every path has been run
      Chooser chooser(*this, prefix->first.size(), prefix->second);
      detail::PathRecord r = executor.run(prefix->first, chooser);
      tree.add(r.decisions, r.end);
      learn_from(r.decisions, r.end == PathEnd::kInfeasible);
      replay();
      detail::tally(result, r, options);
      if (detail::reached_target(result, options)) {
        result.end = SearchEnd::kTarget;
        break;
      }
    }
  } catch (const detail::ProgramError& e) {
    return Status::invalid(program_.name + ": " + e.what());
  }
  detail::finish(result, executor, start);
  return result;
}

}  // namespace prowl::wc
