#include "prowl/learn/model_env.hpp"

#include <utility>

#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"

namespace prowl::learn {

Result<ModelGraph> explore_model_graph(const Model& model, std::uint64_t max_steps) {
  Bfs bfs;
  Options options;
  options.max_steps = max_steps;
  options.record_edges = true;
  options.confirm = false;
  Result<RunReport> report = explore(model, bfs, options);
  if (!report) return report.status();
  PROWL_CHECK(report->graph.has_value(), "explore_model_graph: a run with record_edges");
  ModelGraph graph;
  graph.model = report->model;
  graph.exhausted = report->termination == Termination::kExhausted;
  graph.out.resize(report->graph->states);
  for (const Edge& e : report->graph->edges) {
    graph.out[e.from].push_back(
        {std::string(model.actions()[e.action].name), static_cast<int>(e.to), -1});
  }
  return graph;
}

namespace {

class ModelEnv : public Env {
 public:
  ModelEnv(std::vector<std::shared_ptr<const ModelGraph>> graphs, int budget)
      : Env(Mode::kVision, budget, true), graphs_(std::move(graphs)) {
    PROWL_CHECK(!graphs_.empty() && budget >= 1, "make_model_env: a graph and a budget");
  }
  std::string name() const override { return "model"; }
  std::unique_ptr<Env> fresh() const override {
    return std::make_unique<ModelEnv>(graphs_, budget());
  }

 private:
  int draw(std::uint64_t seed, std::vector<std::vector<GraphEdge>>& out) override {
    out = graphs_[seed % graphs_.size()]->out;
    return 0;
  }

  std::vector<std::shared_ptr<const ModelGraph>> graphs_;
};

}  // namespace

std::unique_ptr<Env> make_model_env(std::vector<std::shared_ptr<const ModelGraph>> graphs,
                                    int budget) {
  return std::make_unique<ModelEnv>(std::move(graphs), budget);
}

}  // namespace prowl::learn
