#include "prowl/learn/env.hpp"

#include <cstddef>
#include <tuple>

#include "prowl/core/status.hpp"

namespace prowl::learn {

View::View(const Env& env)
    : View(env.moves(), env.memory(), env.steps(), env.budget(), env.coverage()) {}

namespace {

constexpr std::size_t kBackEdge = static_cast<std::size_t>(-1);

}  // namespace

std::string_view mode_name(Mode mode) { return mode == Mode::kVision ? "vision" : "bump"; }

std::optional<Mode> parse_mode(std::string_view name) {
  if (name == "vision") return Mode::kVision;
  if (name == "bump") return Mode::kBump;
  return std::nullopt;
}

double Env::reset(std::uint64_t seed) {
  seed_ = seed;
  out_.clear();
  at_ = draw(seed, out_);
  const std::size_t n = out_.size();
  PROWL_CHECK(n > 0 && at_ >= 0 && static_cast<std::size_t>(at_) < n,
              "Env::draw: a graph of at least one node and a start in it");
  memory_of_.assign(n, -1);
  parent_.clear();
  tried_.assign(n, {});
  for (std::size_t v = 0; v < n; ++v) tried_[v].assign(out_[v].size(), 0);
  memory_ = Memory{};
  labels_.clear();
  steps_ = 0;
  covered_ = 0;
  memory_.current = remember(at_);
  memory_.visits[0] = 1;
  count_untried(at_);
  offer();
  return 1.0 / static_cast<double>(n);
}

double Env::coverage() const {
  return out_.empty() ? 0.0 : static_cast<double>(covered_) / static_cast<double>(out_.size());
}

bool Env::done() const { return steps_ >= budget_ || covered_ == static_cast<int>(out_.size()); }

double Env::step(std::size_t index) {
  PROWL_CHECK(!done() && index < moves_.size(), "Env::step: a move of moves() before done()");
  ++steps_;
  const int before = covered_;
  const int from = at_;
  const std::size_t edge = offered_edge_[index];
  if (edge == kBackEdge) {
    at_ = parent_.back();
    parent_.pop_back();
  } else {
    const GraphEdge& e = out_[static_cast<std::size_t>(from)][edge];
    if (e.to < 0) {
      // A wall: the step is spent where the agent stands, and the wall is known from now on.
      tried_[static_cast<std::size_t>(from)][edge] = 1;
      memory_.edges[static_cast<std::size_t>(memory_.current)].push_back({e.label, -1});
    } else {
      if (has_back_) parent_.push_back(from);
      at_ = e.to;
      learn_edge(from, edge, at_);
      if (e.reverse >= 0) learn_edge(at_, static_cast<std::size_t>(e.reverse), from);
    }
  }
  memory_.current = remember(at_);
  ++memory_.visits[static_cast<std::size_t>(memory_.current)];
  memory_.last_label = moves_[index].label;
  auto& [tries, fresh] = labels_[moves_[index].label];
  ++tries;
  fresh += covered_ > before ? 1 : 0;
  count_untried(from);
  count_untried(at_);
  offer();
  return static_cast<double>(covered_ - before) / static_cast<double>(out_.size());
}

// The moves of graph node `node` the agent has seen offered there and not tried: the open ones in
// vision mode, every one not known blocked in bump mode.
void Env::count_untried(int node) {
  const std::size_t m = static_cast<std::size_t>(memory_of_[static_cast<std::size_t>(node)]);
  std::vector<std::string>& labels = memory_.untried_labels[m];
  labels.clear();
  const auto& edges = out_[static_cast<std::size_t>(node)];
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const bool seen = edges[i].to >= 0 || mode_ == Mode::kBump;
    if (seen && !tried_[static_cast<std::size_t>(node)][i]) labels.push_back(edges[i].label);
  }
  memory_.untried[m] = static_cast<int>(labels.size());
}

// The memory node of graph node `node`, added (and covered) on the first visit.
int Env::remember(int node) {
  int& m = memory_of_[static_cast<std::size_t>(node)];
  if (m < 0) {
    m = memory_.nodes();
    memory_.edges.emplace_back();
    memory_.visits.push_back(0);
    memory_.untried.push_back(0);
    memory_.untried_labels.emplace_back();
    ++covered_;
  }
  return m;
}

// The memory learns where edge `edge` of `from_node` leads (once).
void Env::learn_edge(int from_node, std::size_t edge, int to_node) {
  char& tried = tried_[static_cast<std::size_t>(from_node)][edge];
  if (tried) return;
  tried = 1;
  const int from = memory_of_[static_cast<std::size_t>(from_node)];
  const int to = remember(to_node);
  memory_.edges[static_cast<std::size_t>(from)].push_back(
      {out_[static_cast<std::size_t>(from_node)][edge].label, to});
}

void Env::offer() {
  moves_.clear();
  offered_edge_.clear();
  if (done()) return;
  const auto& edges = out_[static_cast<std::size_t>(at_)];
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const bool known = tried_[static_cast<std::size_t>(at_)][i] != 0;
    if (edges[i].to < 0 && (mode_ == Mode::kVision || known)) continue;  // a wall it can see
    moves_.push_back(
        {edges[i].label, known ? memory_of_[static_cast<std::size_t>(edges[i].to)] : -1, false});
    offered_edge_.push_back(i);
  }
  if (has_back_ && !parent_.empty()) {
    moves_.push_back({"back", memory_of_[static_cast<std::size_t>(parent_.back())], true});
    offered_edge_.push_back(kBackEdge);
  }
  for (Move& move : moves_) {
    const auto it = labels_.find(move.label);
    if (it != labels_.end()) std::tie(move.label_tries, move.label_new) = it->second;
  }
}

}  // namespace prowl::learn
