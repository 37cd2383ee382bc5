// The threaded breadth-first search (Options::threads): the same states, transitions, coverage,
// findings and paths at 1, 2 and 4 threads, and the same as the one-thread loop it replaces.
// Graph reports (Options::record_edges) keep the one-thread loop, which gives the reference.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if PROWL_HAVE_BENCH_MODELS
#include "models/models.hpp"
#endif
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"
#include "search_testing.hpp"

namespace prowl {
namespace {

using testing_models::expect_same_counts;
using testing_models::grid_model;

Result<RunReport> run(const Model& model, std::uint32_t threads, Options options = {}) {
  Bfs bfs;
  options.threads = threads;
  return explore(model, bfs, std::move(options));
}

// The one-thread loop: graph reports keep it.
Result<RunReport> run_reference(const Model& model, Options options = {}) {
  options.record_edges = true;
  return run(model, 1, std::move(options));
}

std::vector<std::string> actions_of(const Finding& f) {
  std::vector<std::string> names;
  for (const TraceStep& s : f.steps) names.push_back(s.action);
  return names;
}

void expect_same(const RunReport& want, const RunReport& got) {
  expect_same_counts(want, got);
  ASSERT_EQ(got.findings.size(), want.findings.size());
  for (std::size_t i = 0; i < want.findings.size(); ++i) {
    const Finding& w = want.findings[i];
    const Finding& g = got.findings[i];
    SCOPED_TRACE(w.name + " after " + w.action);
    EXPECT_EQ(g.kind, w.kind);
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.action, w.action);
    EXPECT_EQ(g.severity, w.severity);
    EXPECT_EQ(g.message, w.message);
    EXPECT_EQ(g.state, w.state);
    EXPECT_EQ(g.confirmed, w.confirmed);
    EXPECT_EQ(actions_of(g), actions_of(w));
  }
}

TEST(Threads, EveryThreadCountFindsWhatOneThreadFinds) {
  auto m = grid_model();
  auto want = run_reference(m);
  ASSERT_TRUE(want) << want.status().message();
  // The model has findings of every kind the levels record.
  ASSERT_EQ(want->stats.states, 8u * 8u * 4u);  // a failed glitch leaves no state
  ASSERT_GE(want->findings.size(), 5u);
  for (std::uint32_t threads : {1u, 2u, 4u}) {
    SCOPED_TRACE(threads);
    auto got = run(m, threads);
    ASSERT_TRUE(got) << got.status().message();
    EXPECT_TRUE(got->warnings.empty());
    expect_same(*want, *got);
  }
}

#if PROWL_HAVE_BENCH_MODELS
TEST(Threads, TheBenchModelsHaveTheirCountsAtEveryThreadCount) {
  const auto counters = bench::make_counters_model({4, 5});
  const auto philo = bench::make_philo_model({5});
  const auto orders = bench::make_orders_model({2, 2, 4, 1});
  for (const Model* m : std::initializer_list<const Model*>{&counters, &philo, &orders}) {
    SCOPED_TRACE(m->name());
    auto want = run_reference(*m);
    ASSERT_TRUE(want) << want.status().message();
    for (std::uint32_t threads : {1u, 2u, 4u}) {
      SCOPED_TRACE(threads);
      auto got = run(*m, threads);
      ASSERT_TRUE(got) << got.status().message();
      expect_same(*want, *got);
    }
  }
}
#endif

TEST(Threads, ADepthBoundHoldsExactly) {
  auto m = grid_model();
  Options options;
  options.max_depth = 4;
  auto want = run_reference(m, options);
  ASSERT_TRUE(want) << want.status().message();
  ASSERT_LT(want->stats.states, 8u * 8u * 4u);
  for (std::uint32_t threads : {1u, 3u}) {
    auto got = run(m, threads, options);
    ASSERT_TRUE(got) << got.status().message();
    expect_same(*want, *got);
  }
}

TEST(Threads, StopOnFirstReportsTheFirstFindingOneThreadMeets) {
  auto m = grid_model();
  Options options;
  options.stop_on_first = true;
  auto one = run(m, 1, options);
  ASSERT_TRUE(one) << one.status().message();
  ASSERT_EQ(one->termination, Termination::kFirstFinding);
  ASSERT_EQ(one->findings.size(), 1u);
  EXPECT_EQ(one->findings[0].name, "glitch");
  for (std::uint32_t threads : {2u, 4u}) {
    auto got = run(m, threads, options);
    ASSERT_TRUE(got) << got.status().message();
    ASSERT_EQ(got->findings.size(), 1u);
    EXPECT_EQ(got->findings[0].name, "glitch");
    EXPECT_EQ(actions_of(got->findings[0]), actions_of(one->findings[0]));
    EXPECT_EQ(got->stats.states, one->stats.states);
  }
}

TEST(Threads, OtherStrategiesRunOnOneThreadAndSaySo) {
  auto m = grid_model();
  Dfs dfs;
  Options options;
  options.threads = 2;
  auto r = explore(m, dfs, options);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0],
            "2 threads were asked for; running one: strategy 'dfs' is not "
            "breadth-first");
  // Asked for every core (0, the default), the run says nothing.
  options.threads = 0;
  auto quiet = explore(m, dfs, options);
  ASSERT_TRUE(quiet) << quiet.status().message();
  EXPECT_TRUE(quiet->warnings.empty());
}

TEST(Threads, WorkersAskedForOnAnInMemoryModelLeaveItToThreads) {
  auto m = grid_model();
  Options options;
  options.workers = 2;
  options.threads = 2;
  auto want = run_reference(m);
  ASSERT_TRUE(want) << want.status().message();
  auto r = run(m, 2, options);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0],
            "2 workers were asked for; running one: the world is in-process: it runs "
            "breadth-first on --threads instead (workers pay off on live services)");
  EXPECT_EQ(r->settings.threads, 2u);
  expect_same(*want, *r);
}

TEST(MemoryLimit, StopsTheThreadedSearchWithItsReport) {
  auto m = grid_model();
  Options options;
  options.memory_limit = 1;  // any process is over it: the first check stops the run
  auto r = run(m, 2, options);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kMemory);
  EXPECT_EQ(to_string(r->termination), "memory");
  EXPECT_LT(r->stats.states, 8u * 8u * 4u);
  EXPECT_GT(r->stats.states, 1u);  // one round ran
  EXPECT_EQ(r->settings.memory_limit, 1u);
  EXPECT_EQ(r->settings.threads, 2u);
}

TEST(MemoryLimit, StopsTheOneThreadLoopToo) {
  auto m = grid_model();
  Dfs dfs;
  Options options;
  options.memory_limit = 1;
  auto r = explore(m, dfs, options);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kMemory);
  EXPECT_LT(r->stats.states, 8u * 8u * 4u);
  EXPECT_EQ(r->settings.threads, 1u);
  // A limit far above what the run needs changes nothing.
  options.memory_limit = std::uint64_t{1} << 50;
  auto full = explore(m, dfs, options);
  ASSERT_TRUE(full) << full.status().message();
  EXPECT_EQ(full->termination, Termination::kExhausted);
  EXPECT_EQ(full->stats.states, 8u * 8u * 4u);
}

}  // namespace
}  // namespace prowl
