#include "prowl/learn/a2c.hpp"

#include <charconv>
#include <cmath>
#include <functional>
#include <utility>

#include "a2c_train.hpp"
#include "prowl/core/status.hpp"
#include "prowl/learn/features.hpp"

namespace prowl::learn {

namespace {

std::vector<int> sizes(int inputs, const std::vector<int>& hidden) {
  std::vector<int> out{inputs};
  out.insert(out.end(), hidden.begin(), hidden.end());
  out.push_back(1);
  return out;
}

}  // namespace

WindowChoice::WindowChoice(int window) : window_(static_cast<std::size_t>(window)) {
  PROWL_CHECK(window >= 1, "WindowChoice: a window of at least one update");
}

bool WindowChoice::add(std::span<const CurvePoint> so_far) {
  PROWL_CHECK(so_far.size() == points_ + 1, "WindowChoice::add: the curve one point longer");
  points_ = so_far.size();
  sum_ += so_far.back().coverage;
  if (so_far.size() > window_) sum_ -= so_far[so_far.size() - 1 - window_].coverage;
  if (so_far.size() < window_ || (chosen_ && !(sum_ > best_sum_))) return false;
  chosen_ = true;
  best_sum_ = sum_;
  last_update_ = so_far.back().update;
  return true;
}

std::optional<WindowChoice> chosen_window(const std::vector<CurvePoint>& curve, int window) {
  if (window < 1 || curve.size() < static_cast<std::size_t>(window)) return std::nullopt;
  WindowChoice choice(window);
  for (std::size_t n = 1; n <= curve.size(); ++n) {
    choice.add(std::span<const CurvePoint>(curve.data(), n));
  }
  return choice;
}

Eigen::VectorXd softmax(const Eigen::VectorXd& z) {
  const Eigen::VectorXd e = (z.array() - z.maxCoeff()).exp().matrix();
  return e / e.sum();
}

Eigen::VectorXd actor_loss_gradient(const Eigen::VectorXd& p, std::size_t action, double advantage,
                                    double entropy_weight) {
  const double entropy = -(p.array() * p.array().max(1e-12).log()).sum();
  Eigen::VectorXd dz(p.size());
  for (Eigen::Index b = 0; b < p.size(); ++b) {
    const double chosen = static_cast<std::size_t>(b) == action ? 1.0 : 0.0;
    dz[b] = advantage * (p[b] - chosen) +
            entropy_weight * p[b] * (std::log(std::max(p[b], 1e-12)) + entropy);
  }
  return dz;
}

MovePolicy::MovePolicy(const std::vector<int>& hidden, std::uint64_t seed, double learning_rate)
    : scorer_(sizes(kMoveFeatures, hidden), Activation::kTanh, seed,
              MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      critic_(sizes(kStateFeatures, hidden), Activation::kTanh, seed + 1,
              MlpOptions{learning_rate, Optimizer::kAdam, 1.0}) {}

MovePolicy::MovePolicy(Mlp scorer, std::uint64_t seed, double learning_rate)
    : scorer_(std::move(scorer)),
      critic_(sizes(kStateFeatures,
                    std::vector<int>(scorer_.sizes().begin() + 1, scorer_.sizes().end() - 1)),
              Activation::kTanh, seed + 1, MlpOptions{learning_rate, Optimizer::kAdam, 1.0}) {
  scorer_.set_options(MlpOptions{learning_rate, Optimizer::kAdam, 1.0});
}

Eigen::VectorXd MovePolicy::scores(const std::vector<Eigen::VectorXd>& moves) const {
  Eigen::VectorXd z(static_cast<Eigen::Index>(moves.size()));
  for (std::size_t i = 0; i < moves.size(); ++i) {
    z[static_cast<Eigen::Index>(i)] = scorer_.forward(moves[i])[0];
  }
  return z;
}

Eigen::VectorXd MovePolicy::probabilities(const View& view) const {
  return softmax(scores(move_features(view)));
}

std::size_t MovePolicy::greedy(const View& view) const {
  Eigen::Index best = 0;
  scores(move_features(view)).maxCoeff(&best);
  return static_cast<std::size_t>(best);
}

double MovePolicy::value(const View& view) const {
  return critic_.forward(state_features(view))[0];
}

MovePolicy::Record MovePolicy::observe(const View& view, const Carry&) const {
  Record r;
  r.moves = move_features(view);
  r.probabilities = softmax(scores(r.moves));
  return r;
}

void MovePolicy::actor_gradient(const Record& record, const Eigen::VectorXd& dz,
                                Gradients& into) const {
  for (Eigen::Index b = 0; b < dz.size(); ++b) {
    add_gradients(into, scorer_.gradient(record.moves[static_cast<std::size_t>(b)],
                                         Eigen::VectorXd::Constant(1, dz[b])));
  }
}

void MovePolicy::apply(const Gradients& gradient, double scale) {
  if (gradient.empty()) return;
  Gradients scaled;
  add_gradients(scaled, gradient, scale);
  scorer_.step(scaled);
}

std::vector<CurvePoint> train_a2c(Env& env, MovePolicy& policy, const A2cOptions& options,
                                  const std::function<bool(const CurvePoint&)>& progress) {
  return detail::train<MovePolicy, Gradients>(env, policy, options, progress);
}

std::vector<CurvePoint> train_a2c(Env& env, GraphPolicy& policy, const A2cOptions& options,
                                  const std::function<bool(const CurvePoint&)>& progress) {
  return detail::train<GraphPolicy, GraphPolicy::Gradient>(env, policy, options, progress);
}

void start_from(GraphPolicy& graph, const MovePolicy& linear) {
  PROWL_CHECK(linear.scorer().sizes() == std::vector<int>({kMoveFeatures, 1}),
              "start_from: a linear move policy");
  graph.start_from_linear(linear.scorer().layers()[0].weights.row(0).transpose());
}

GraphCurves train_graph_policy(Env& env, GraphPolicy& policy, const A2cOptions& options,
                               int linear_updates,
                               const std::function<bool(const CurvePoint&, bool)>& progress,
                               MovePolicy* linear_out) {
  PROWL_CHECK(linear_updates >= 0 && (linear_updates == 0 || policy.shape().skip),
              "train_graph_policy: linear_updates >= 0, and a policy with skip to start from one");
  GraphCurves curves;
  bool stopped = false;
  const auto stage = [&](bool linear) {
    return [&progress, &stopped, linear](const CurvePoint& p) {
      stopped = progress && !progress(p, linear);
      return !stopped;
    };
  };
  if (linear_updates > 0) {
    MovePolicy linear({}, options.seed, 0.05);
    A2cOptions first = options;
    first.updates = linear_updates;
    curves.linear = train_a2c(env, linear, first, stage(true));
    start_from(policy, linear);
    if (linear_out != nullptr) *linear_out = std::move(linear);
    if (stopped) return curves;
  }
  curves.graph = train_a2c(env, policy, options, stage(false));
  return curves;
}

}  // namespace prowl::learn

namespace prowl::learn {

PolicyFile to_policy_file(const MovePolicy& policy, const Env& env,
                          const std::vector<std::pair<std::string, std::string>>& extra) {
  PolicyFile file{{{"kind", "move-policy"},
                   {"features", std::string(kMoveFeatureSet)},
                   {"env", env.name()},
                   {"mode", std::string(mode_name(env.mode()))}},
                  policy.scorer()};
  file.header.insert(file.header.end(), extra.begin(), extra.end());
  return file;
}

std::string policy_header(const PolicyFile& file, std::string_view key) {
  for (const auto& [k, v] : file.header) {
    if (k == key) return v;
  }
  return "";
}

std::optional<int> policy_header_int(const PolicyFile& file, std::string_view key, int min,
                                     int max) {
  const std::string text = policy_header(file, key);
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

namespace {

Result<MovePolicy> move_policy_of(const PolicyFile& file, const std::string& source) {
  const std::vector<int>& s = file.network.sizes();
  if (s.front() != kMoveFeatures || s.back() != 1) {
    return Status::invalid(source + ": the policy's network takes " + std::to_string(s.front()) +
                           " inputs and gives " + std::to_string(s.back()) + " outputs, not " +
                           std::to_string(kMoveFeatures) + " and 1");
  }
  return MovePolicy(file.network, 1, 0.05);
}

}  // namespace

Result<AnyPolicy> policy_of(const PolicyFile& file, const std::string& source) {
  const std::string kind = policy_header(file, "kind");
  if (kind != "move-policy" && kind != "graph-policy") {
    return Status::invalid(
        source + ": not a policy prowl train wrote (kind=" + (kind.empty() ? "<none>" : kind) +
        ", expected move-policy or graph-policy): train one with prowl train");
  }
  const std::string features = policy_header(file, "features");
  if (features != kMoveFeatureSet) {
    return Status::invalid(source + ": the policy reads features " + features +
                           "; this prowl computes " + std::string(kMoveFeatureSet) +
                           ": train it again with this prowl");
  }
  if (kind == "move-policy") {
    Result<MovePolicy> policy = move_policy_of(file, source);
    if (!policy) return policy.status();
    return AnyPolicy(std::move(*policy));
  }
  Result<GraphPolicy> policy = graph_policy_of(file, source);
  if (!policy) return policy.status();
  return AnyPolicy(std::move(*policy));
}

Result<AnyPolicy> policy_from_file(const PolicyFile& file, const Env& env,
                                   const std::string& source) {
  Result<AnyPolicy> policy = policy_of(file, source);
  if (!policy) return policy;
  const std::string trained_env = policy_header(file, "env");
  const std::string trained_mode = policy_header(file, "mode");
  if (trained_env != env.name() || trained_mode != mode_name(env.mode())) {
    return Status::invalid(source + ": the policy was trained for " + trained_env + " (" +
                           trained_mode + "); this is " + env.name() + " (" +
                           std::string(mode_name(env.mode())) + "): give --env " + trained_env +
                           " --mode " + trained_mode + ", or train one for this environment");
  }
  return policy;
}

}  // namespace prowl::learn
