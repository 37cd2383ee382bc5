#include "prowl/learn/mlp.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"

namespace prowl::learn {
namespace {

constexpr double kBeta1 = 0.9;
constexpr double kBeta2 = 0.999;
constexpr double kEpsilon = 1e-8;

void check_options(const MlpOptions& options) {
  PROWL_CHECK(std::isfinite(options.learning_rate) && options.learning_rate > 0,
              "Mlp: learning_rate must be positive and finite");
  PROWL_CHECK(std::isfinite(options.gradient_clip) && options.gradient_clip >= 0,
              "Mlp: gradient_clip must be 0 (off) or positive, and finite");
}

// The half-width of the uniform initialisation of a layer: He for a layer feeding ReLU, Xavier
// (Glorot) for one feeding tanh or the linear output, so that activations keep their scale.
double init_limit(int fan_in, int fan_out, bool feeds_relu) {
  if (feeds_relu) return std::sqrt(6.0 / fan_in);
  return std::sqrt(6.0 / (fan_in + fan_out));
}

Eigen::VectorXd activate(Activation activation, const Eigen::VectorXd& z) {
  if (activation == Activation::kRelu) return z.cwiseMax(0.0);
  return z.array().tanh().matrix();
}

// d activation / d z, from the pre-activation z and the activation a it gave. ReLU's derivative at
// exactly 0 is taken as 0.
Eigen::VectorXd activation_slope(Activation activation, const Eigen::VectorXd& z,
                                 const Eigen::VectorXd& a) {
  if (activation == Activation::kRelu) return (z.array() > 0.0).cast<double>().matrix();
  return (1.0 - a.array().square()).matrix();
}

Gradients zeros_like(const std::vector<Layer>& layers) {
  Gradients zeros;
  zeros.reserve(layers.size());
  for (const Layer& layer : layers) {
    zeros.push_back({Eigen::MatrixXd::Zero(layer.weights.rows(), layer.weights.cols()),
                     Eigen::VectorXd::Zero(layer.bias.size())});
  }
  return zeros;
}

bool same_shapes(const std::vector<Layer>& a, const std::vector<Layer>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t l = 0; l < a.size(); ++l) {
    if (a[l].weights.rows() != b[l].weights.rows() || a[l].weights.cols() != b[l].weights.cols() ||
        a[l].bias.size() != b[l].bias.size()) {
      return false;
    }
  }
  return true;
}

// {inputs, hidden..., outputs} of a list of layers, checking that they chain.
std::vector<int> sizes_of(const std::vector<Layer>& layers) {
  PROWL_CHECK(!layers.empty(), "Mlp: a network needs at least one layer");
  std::vector<int> sizes{static_cast<int>(layers.front().weights.cols())};
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const Layer& layer = layers[l];
    const std::string where = "Mlp: layer " + std::to_string(l);
    PROWL_CHECK(layer.weights.rows() >= 1 && layer.weights.cols() >= 1,
                where + " needs at least one row and one column");
    PROWL_CHECK(layer.bias.size() == layer.weights.rows(),
                where + " needs one bias per row of its weights");
    PROWL_CHECK(layer.weights.cols() == sizes.back(),
                where + " needs one column per output of the layer before it");
    sizes.push_back(static_cast<int>(layer.weights.rows()));
  }
  return sizes;
}

// One Adam update of the parameters p along gradient·scale, with moments m and v.
template <class P>
void adam_update(P& p, const P& gradient, double scale, P& m, P& v, double learning_rate,
                 double correction1, double correction2) {
  m = kBeta1 * m + ((1.0 - kBeta1) * scale) * gradient;
  v = kBeta2 * v + ((1.0 - kBeta2) * scale * scale) * gradient.cwiseAbs2();
  p.array() -=
      learning_rate * (m.array() / correction1) / ((v.array() / correction2).sqrt() + kEpsilon);
}

}  // namespace

std::string_view activation_name(Activation activation) {
  return activation == Activation::kRelu ? "relu" : "tanh";
}

std::optional<Activation> parse_activation(std::string_view name) {
  if (name == "relu") return Activation::kRelu;
  if (name == "tanh") return Activation::kTanh;
  return std::nullopt;
}

Mlp::Mlp(std::vector<int> sizes, Activation hidden, std::uint64_t seed, MlpOptions options)
    : sizes_(std::move(sizes)), hidden_(hidden), options_(options) {
  check_options(options_);
  PROWL_CHECK(sizes_.size() >= 2, "Mlp: sizes needs at least an input and an output size");
  for (int size : sizes_) PROWL_CHECK(size >= 1, "Mlp: every size must be at least 1");
  Rng rng(seed);
  const std::size_t count = sizes_.size() - 1;
  layers_.reserve(count);
  for (std::size_t l = 0; l < count; ++l) {
    const int fan_in = sizes_[l];
    const int fan_out = sizes_[l + 1];
    const bool feeds_relu = hidden_ == Activation::kRelu && l + 1 < count;
    const double limit = init_limit(fan_in, fan_out, feeds_relu);
    Layer layer{Eigen::MatrixXd(fan_out, fan_in), Eigen::VectorXd::Zero(fan_out)};
    for (int r = 0; r < fan_out; ++r) {
      for (int c = 0; c < fan_in; ++c) layer.weights(r, c) = (2.0 * rng.unit() - 1.0) * limit;
    }
    layers_.push_back(std::move(layer));
  }
  reset_optimizer();
}

Mlp::Mlp(std::vector<Layer> layers, Activation hidden, MlpOptions options)
    : sizes_(sizes_of(layers)), hidden_(hidden), options_(options), layers_(std::move(layers)) {
  check_options(options_);
  reset_optimizer();
}

std::size_t Mlp::parameter_count() const {
  std::size_t count = 0;
  for (const Layer& layer : layers_) {
    count += static_cast<std::size_t>(layer.weights.size() + layer.bias.size());
  }
  return count;
}

bool Mlp::all_finite() const {
  for (const Layer& layer : layers_) {
    if (!layer.weights.allFinite() || !layer.bias.allFinite()) return false;
  }
  return true;
}

void Mlp::set_layers(std::vector<Layer> layers) {
  PROWL_CHECK(same_shapes(layers, layers_),
              "Mlp::set_layers: every layer must keep the shape of the network's layer");
  layers_ = std::move(layers);
  reset_optimizer();
}

void Mlp::set_options(MlpOptions options) {
  check_options(options);
  const bool changed = options.optimizer != options_.optimizer;
  options_ = options;
  if (changed) reset_optimizer();
}

void Mlp::reset_optimizer() {
  adam_steps_ = 0;
  if (options_.optimizer == Optimizer::kAdam) {
    first_moment_ = zeros_like(layers_);
    second_moment_ = zeros_like(layers_);
  } else {
    first_moment_.clear();
    second_moment_.clear();
  }
}

Mlp::Pass Mlp::run(const Eigen::VectorXd& x) const {
  PROWL_CHECK(x.size() == inputs(), "Mlp: the input needs one value per input of the network");
  Pass pass;
  pass.z.reserve(layers_.size());
  pass.a.reserve(layers_.size() + 1);
  pass.a.push_back(x);
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    pass.z.push_back(layers_[l].weights * pass.a.back() + layers_[l].bias);
    const bool output = l + 1 == layers_.size();
    pass.a.push_back(output ? pass.z.back() : activate(hidden_, pass.z.back()));
  }
  return pass;
}

Eigen::VectorXd Mlp::forward(const Eigen::VectorXd& x) const { return run(x).a.back(); }

Eigen::MatrixXd Mlp::forward_columns(const Eigen::MatrixXd& inputs_by_column) const {
  PROWL_CHECK(inputs_by_column.rows() == inputs(),
              "Mlp: each input column needs one value per input of the network");
  Eigen::MatrixXd a = inputs_by_column;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    Eigen::MatrixXd z = layers_[l].weights * a;
    z.colwise() += layers_[l].bias;
    const bool output = l + 1 == layers_.size();
    if (output) {
      a = std::move(z);
    } else if (hidden_ == Activation::kRelu) {
      a = z.cwiseMax(0.0);
    } else {
      a = z.array().tanh().matrix();
    }
  }
  return a;
}

Gradients Mlp::backward(const Pass& pass, const Eigen::VectorXd& dloss_dy,
                        Eigen::VectorXd* d_input) const {
  Gradients gradients(layers_.size());
  // delta: d loss / d z of layer l; for the linear output layer that is d loss / d y.
  Eigen::VectorXd delta = dloss_dy;
  for (std::size_t l = layers_.size(); l-- > 0;) {
    gradients[l].weights = delta * pass.a[l].transpose();
    gradients[l].bias = delta;
    if (l > 0) {
      delta = (layers_[l].weights.transpose() * delta)
                  .cwiseProduct(activation_slope(hidden_, pass.z[l - 1], pass.a[l]));
    }
  }
  if (d_input != nullptr) *d_input = layers_.front().weights.transpose() * delta;
  return gradients;
}

Gradients Mlp::gradient(const Eigen::VectorXd& x, const Eigen::VectorXd& dloss_dy,
                        Eigen::VectorXd* d_input) const {
  PROWL_CHECK(dloss_dy.size() == outputs(),
              "Mlp::gradient: dloss_dy needs one value per output of the network");
  return backward(run(x), dloss_dy, d_input);
}

void Mlp::step(const Gradients& gradients) {
  PROWL_CHECK(same_shapes(gradients, layers_),
              "Mlp::step: the gradients must have the shapes of the network's layers");
  double scale = 1.0;
  if (options_.gradient_clip > 0) {
    double squared = 0.0;
    for (const Layer& g : gradients) squared += g.weights.squaredNorm() + g.bias.squaredNorm();
    const double norm = std::sqrt(squared);
    if (norm > options_.gradient_clip) scale = options_.gradient_clip / norm;
  }
  const double rate = options_.learning_rate;
  if (options_.optimizer == Optimizer::kSgd) {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      layers_[l].weights -= (rate * scale) * gradients[l].weights;
      layers_[l].bias -= (rate * scale) * gradients[l].bias;
    }
    return;
  }
  ++adam_steps_;
  const double correction1 = 1.0 - std::pow(kBeta1, static_cast<double>(adam_steps_));
  const double correction2 = 1.0 - std::pow(kBeta2, static_cast<double>(adam_steps_));
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    adam_update(layers_[l].weights, gradients[l].weights, scale, first_moment_[l].weights,
                second_moment_[l].weights, rate, correction1, correction2);
    adam_update(layers_[l].bias, gradients[l].bias, scale, first_moment_[l].bias,
                second_moment_[l].bias, rate, correction1, correction2);
  }
}

void add_gradients(Gradients& into, const Gradients& g, double scale) {
  if (into.empty()) {
    into = g;
    for (Layer& layer : into) {
      layer.weights *= scale;
      layer.bias *= scale;
    }
    return;
  }
  PROWL_CHECK(same_shapes(into, g), "add_gradients: the gradients must have the same shapes");
  for (std::size_t l = 0; l < into.size(); ++l) {
    into[l].weights += scale * g[l].weights;
    into[l].bias += scale * g[l].bias;
  }
}

VectorAdam::VectorAdam(Eigen::Index size, double learning_rate)
    : first_(Eigen::VectorXd::Zero(size)),
      second_(Eigen::VectorXd::Zero(size)),
      learning_rate_(learning_rate) {}

void VectorAdam::step(Eigen::VectorXd& parameters, Eigen::VectorXd gradient, double clip) {
  PROWL_CHECK(parameters.size() == first_.size() && gradient.size() == first_.size(),
              "VectorAdam::step: parameters and gradient of the size given");
  const double norm = gradient.norm();
  if (clip > 0 && norm > clip) gradient /= norm / clip;
  ++steps_;
  adam_update(parameters, gradient, 1.0, first_, second_, learning_rate_,
              1.0 - std::pow(kBeta1, static_cast<double>(steps_)),
              1.0 - std::pow(kBeta2, static_cast<double>(steps_)));
}

double Mlp::train(const Eigen::VectorXd& x, int output, double target) {
  return train({Example{x, output, target}});
}

double Mlp::train(const std::vector<Example>& batch) {
  PROWL_CHECK(!batch.empty(), "Mlp::train: the batch is empty");
  const double weight = 1.0 / static_cast<double>(batch.size());
  Gradients sum;
  double loss = 0;
  for (const Example& e : batch) {
    PROWL_CHECK(e.output >= 0 && e.output < outputs(), "Mlp::train: output is out of range");
    PROWL_CHECK(std::isfinite(e.target), "Mlp::train: target must be finite");
    const Pass pass = run(e.input);
    const double error = pass.a.back()(e.output) - e.target;
    loss += 0.5 * error * error * weight;
    Eigen::VectorXd dloss_dy = Eigen::VectorXd::Zero(outputs());
    dloss_dy(e.output) = error * weight;
    add_gradients(sum, backward(pass, dloss_dy));
  }
  step(sum);
  return loss;
}

}  // namespace prowl::learn
