#include "prowl/learn/ggnn.hpp"

#include <cmath>
#include <tuple>
#include <type_traits>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"

namespace prowl::learn {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// Where each parameter sits in the one vector.
struct Ggnn::Layout {
  Index f, d, types, out;
  Index w_in, b_in, a, c, wz, uz, bz, wr, ur, br, wh, uh, bh, attention, w_o, b_o, total;

  explicit Layout(const Shape& s)
      : f(s.features), d(s.hidden), types(s.edge_types), out(s.readout) {
    Index at = 0;
    const auto take = [&at](Index n) {
      const Index o = at;
      at += n;
      return o;
    };
    w_in = take(d * f), b_in = take(d);
    a = take(types * d * d), c = take(types * d);
    wz = take(d * d), uz = take(d * d), bz = take(d);
    wr = take(d * d), ur = take(d * d), br = take(d);
    wh = take(d * d), uh = take(d * d), bh = take(d);
    attention = take(d), w_o = take(out * d), b_o = take(out);
    total = at;
  }
};

Index Ggnn::parameter_count(const Shape& shape) { return Layout(shape).total; }

namespace {

template <class Vector>
auto mat(Vector& v, Index offset, Index rows, Index cols) {
  using Scalar = std::remove_pointer_t<decltype(v.data())>;
  using Matrix = std::conditional_t<std::is_const_v<Scalar>, const MatrixXd, MatrixXd>;
  return Eigen::Map<Matrix>(v.data() + offset, rows, cols);
}

template <class Vector>
auto vec(Vector& v, Index offset, Index size) {
  using Scalar = std::remove_pointer_t<decltype(v.data())>;
  using Column = std::conditional_t<std::is_const_v<Scalar>, const VectorXd, VectorXd>;
  return Eigen::Map<Column>(v.data() + offset, size);
}

MatrixXd sigmoid_each(const MatrixXd& x) { return (1.0 / (1.0 + (-x.array()).exp())).matrix(); }

}  // namespace

// What backpropagation needs of a forward pass.
struct Ggnn::Trace {
  MatrixXd h0;
  std::vector<MatrixXd> before, m, z, r, candidate;  // per round: H before it, M, Z, R, Ĥ
  MatrixXd h;                                        // after the last round
  VectorXd attention;                                // a, over nodes
  MatrixXd outputs;                                  // tanh(W_o H + b_o), readout × nodes
};

Ggnn::Ggnn(Shape shape, std::uint64_t seed) : shape_(shape) {
  PROWL_CHECK(shape.features >= 1 && shape.hidden >= 1 && shape.edge_types >= 1 &&
                  shape.rounds >= 0 && shape.readout >= 1,
              "Ggnn: every size at least 1 (rounds at least 0)");
  const Layout l(shape_);
  theta_ = VectorXd::Zero(l.total);
  Rng rng(seed);
  const auto fill = [&](Index offset, Index rows, Index cols) {
    const double limit = std::sqrt(6.0 / static_cast<double>(rows + cols));
    for (Index i = 0; i < rows * cols; ++i) theta_[offset + i] = (2 * rng.unit() - 1) * limit;
  };
  fill(l.w_in, l.d, l.f);
  for (Index k = 0; k < l.types; ++k) fill(l.a + k * l.d * l.d, l.d, l.d);
  for (const Index m : {l.wz, l.uz, l.wr, l.ur, l.wh, l.uh}) fill(m, l.d, l.d);
  fill(l.attention, l.d, 1);
  fill(l.w_o, l.out, l.d);
}

Ggnn::Output Ggnn::forward(const GraphInput& graph) const { return run(graph, nullptr); }

Ggnn::Output Ggnn::run(const GraphInput& graph, Trace* trace) const {
  const Layout l(shape_);
  const Index n = graph.features.cols();
  PROWL_CHECK(graph.features.rows() == l.f && n >= 1,
              "Ggnn: a column of shape().features features per node, at least one node");
  for (const GraphInput::Arc& arc : graph.arcs) {
    PROWL_CHECK(arc.from >= 0 && arc.from < n && arc.to >= 0 && arc.to < n && arc.type >= 0 &&
                    arc.type < l.types,
                "Ggnn: an arc between two nodes of the graph, of a known type");
  }
  const VectorXd& p = theta_;
  MatrixXd h = ((mat(p, l.w_in, l.d, l.f) * graph.features).colwise() + vec(p, l.b_in, l.d))
                   .array()
                   .tanh()
                   .matrix();
  if (trace != nullptr) trace->h0 = h;
  for (int round = 0; round < shape_.rounds; ++round) {
    MatrixXd m = MatrixXd::Zero(l.d, n);
    for (const GraphInput::Arc& arc : graph.arcs) {
      m.col(arc.to) += mat(p, l.a + arc.type * l.d * l.d, l.d, l.d) * h.col(arc.from) +
                       vec(p, l.c + arc.type * l.d, l.d);
    }
    const MatrixXd z = sigmoid_each(
        (mat(p, l.wz, l.d, l.d) * m + mat(p, l.uz, l.d, l.d) * h).colwise() + vec(p, l.bz, l.d));
    const MatrixXd r = sigmoid_each(
        (mat(p, l.wr, l.d, l.d) * m + mat(p, l.ur, l.d, l.d) * h).colwise() + vec(p, l.br, l.d));
    const MatrixXd candidate =
        ((mat(p, l.wh, l.d, l.d) * m + mat(p, l.uh, l.d, l.d) * r.cwiseProduct(h)).colwise() +
         vec(p, l.bh, l.d))
            .array()
            .tanh()
            .matrix();
    if (trace != nullptr) {
      trace->before.push_back(h);
      trace->m.push_back(m);
      trace->z.push_back(z);
      trace->r.push_back(r);
      trace->candidate.push_back(candidate);
    }
    h = (1.0 - z.array()).matrix().cwiseProduct(h) + z.cwiseProduct(candidate);
  }
  const VectorXd scores = h.transpose() * vec(p, l.attention, l.d);
  VectorXd attention = (scores.array() - scores.maxCoeff()).exp().matrix();
  attention /= attention.sum();
  const MatrixXd outputs =
      ((mat(p, l.w_o, l.out, l.d) * h).colwise() + vec(p, l.b_o, l.out)).array().tanh().matrix();
  Output out{h, outputs * attention};
  if (trace != nullptr) {
    trace->h = h;
    trace->attention = attention;
    trace->outputs = outputs;
  }
  return out;
}

VectorXd Ggnn::gradient(const GraphInput& graph, const MatrixXd& d_nodes,
                        const VectorXd& d_readout) const {
  const Layout l(shape_);
  Trace t;
  run(graph, &t);
  PROWL_CHECK(
      d_nodes.rows() == l.d && d_nodes.cols() == graph.features.cols() && d_readout.size() == l.out,
      "Ggnn::gradient: gradients shaped like forward()'s output");
  const VectorXd& p = theta_;
  VectorXd g = VectorXd::Zero(l.total);
  // Readout: g = Σ_v a_v o_v, o_v = tanh(W_o h_v + b_o), a = softmax(wᵀ h_v).
  MatrixXd dh = d_nodes;
  const MatrixXd d_pre_out = (d_readout * t.attention.transpose())
                                 .cwiseProduct((1.0 - t.outputs.array().square()).matrix());
  mat(g, l.w_o, l.out, l.d) += d_pre_out * t.h.transpose();
  vec(g, l.b_o, l.out) += d_pre_out.rowwise().sum();
  dh += mat(p, l.w_o, l.out, l.d).transpose() * d_pre_out;
  const VectorXd d_attention = t.outputs.transpose() * d_readout;
  const VectorXd d_scores =
      t.attention.cwiseProduct((d_attention.array() - t.attention.dot(d_attention)).matrix());
  vec(g, l.attention, l.d) += t.h * d_scores;
  dh += vec(p, l.attention, l.d) * d_scores.transpose();
  // The rounds, last first.
  for (int round = shape_.rounds - 1; round >= 0; --round) {
    const std::size_t i = static_cast<std::size_t>(round);
    const MatrixXd& h = t.before[i];
    const MatrixXd& m = t.m[i];
    const MatrixXd& z = t.z[i];
    const MatrixXd& r = t.r[i];
    const MatrixXd& candidate = t.candidate[i];
    MatrixXd d_before = dh.cwiseProduct((1.0 - z.array()).matrix());
    const MatrixXd d_pre_h =
        dh.cwiseProduct(z).cwiseProduct((1.0 - candidate.array().square()).matrix());
    const MatrixXd d_pre_z =
        dh.cwiseProduct(candidate - h).cwiseProduct(z.cwiseProduct((1.0 - z.array()).matrix()));
    mat(g, l.wh, l.d, l.d) += d_pre_h * m.transpose();
    mat(g, l.uh, l.d, l.d) += d_pre_h * r.cwiseProduct(h).transpose();
    vec(g, l.bh, l.d) += d_pre_h.rowwise().sum();
    const MatrixXd d_rh = mat(p, l.uh, l.d, l.d).transpose() * d_pre_h;
    d_before += d_rh.cwiseProduct(r);
    const MatrixXd d_pre_r =
        d_rh.cwiseProduct(h).cwiseProduct(r.cwiseProduct((1.0 - r.array()).matrix()));
    MatrixXd dm = mat(p, l.wh, l.d, l.d).transpose() * d_pre_h;
    for (const auto& [w, u, b, d_pre] :
         {std::tuple{l.wz, l.uz, l.bz, &d_pre_z}, std::tuple{l.wr, l.ur, l.br, &d_pre_r}}) {
      mat(g, w, l.d, l.d) += *d_pre * m.transpose();
      mat(g, u, l.d, l.d) += *d_pre * h.transpose();
      vec(g, b, l.d) += d_pre->rowwise().sum();
      dm += mat(p, w, l.d, l.d).transpose() * *d_pre;
      d_before += mat(p, u, l.d, l.d).transpose() * *d_pre;
    }
    for (const GraphInput::Arc& arc : graph.arcs) {
      mat(g, l.a + arc.type * l.d * l.d, l.d, l.d) += dm.col(arc.to) * h.col(arc.from).transpose();
      vec(g, l.c + arc.type * l.d, l.d) += dm.col(arc.to);
      d_before.col(arc.from) +=
          mat(p, l.a + arc.type * l.d * l.d, l.d, l.d).transpose() * dm.col(arc.to);
    }
    dh = std::move(d_before);
  }
  const MatrixXd d_pre_in = dh.cwiseProduct((1.0 - t.h0.array().square()).matrix());
  mat(g, l.w_in, l.d, l.f) += d_pre_in * graph.features.transpose();
  vec(g, l.b_in, l.d) += d_pre_in.rowwise().sum();
  return g;
}

}  // namespace prowl::learn
