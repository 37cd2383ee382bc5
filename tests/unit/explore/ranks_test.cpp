// The search over several processes (Options::ranks, src/explore/ranks.cpp) on a Ranks made of
// threads of this process, each with its own explorer: the same states, transitions, coverage and
// depths as one process, and the same findings at the same shortest lengths, confirmed, for 1 to
// 4 ranks. tests/cli/mpi.cmake runs the real thing under mpirun.
#include <atomic>
#include <barrier>
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/core/interrupt.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/explore/ranks.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"
#include "search_testing.hpp"

namespace prowl {
namespace {

// What the ranks of one search share: every rank's outgoing buffers, values and broadcast.
struct Hub {
  explicit Hub(unsigned n) : size(n), barrier(n), outs(n), values(n) {}
  unsigned size;
  std::barrier<> barrier;
  std::vector<std::span<Ranks::Buffer>> outs;
  std::vector<std::vector<std::uint64_t>> values;
  Ranks::Buffer data;
};

class ThreadRanks final : public Ranks {
 public:
  ThreadRanks(Hub& hub, unsigned rank) : hub_(hub), rank_(rank) {}
  unsigned rank() const override { return rank_; }
  unsigned size() const override { return hub_.size; }
  Status start_exchange(std::span<Buffer> out, std::span<Buffer> in) override {
    hub_.outs[rank_] = out;
    hub_.barrier.arrive_and_wait();
    for (unsigned k = 0; k < hub_.size; ++k) in[k] = hub_.outs[k][rank_];
    hub_.barrier.arrive_and_wait();
    return Status::ok();
  }
  Status finish_exchange() override { return Status::ok(); }
  Status sum(std::span<std::uint64_t> values) override {
    return reduce(values, [](std::uint64_t a, std::uint64_t b) { return a + b; });
  }
  Status max(std::span<std::uint64_t> values) override {
    return reduce(values, [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
  }
  Status broadcast(Buffer& data, unsigned root) override {
    if (rank_ == root) hub_.data = data;
    hub_.barrier.arrive_and_wait();
    data = hub_.data;
    hub_.barrier.arrive_and_wait();
    return Status::ok();
  }

 private:
  template <class Op>
  Status reduce(std::span<std::uint64_t> values, Op op) {
    hub_.values[rank_].assign(values.begin(), values.end());
    hub_.barrier.arrive_and_wait();
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint64_t v = hub_.values[0][i];
      for (unsigned k = 1; k < hub_.size; ++k) v = op(v, hub_.values[k][i]);
      values[i] = v;
    }
    hub_.barrier.arrive_and_wait();
    return Status::ok();
  }

  Hub& hub_;
  unsigned rank_;
};

using testing_models::expect_same_counts;
using testing_models::grid_model;

// One report per rank of a search over n ranks.
std::vector<Result<RunReport>> run_ranks(const Model& model, unsigned n, Options options = {}) {
  Hub hub(n);
  std::vector<Result<RunReport>> reports(n, Status::internal("not run"));
  std::vector<std::thread> threads;
  for (unsigned k = 0; k < n; ++k) {
    threads.emplace_back([&, k] {
      ThreadRanks ranks(hub, k);
      Options o = options;
      o.ranks = &ranks;
      Bfs bfs;
      reports[k] = explore(model, bfs, std::move(o));
    });
  }
  for (std::thread& t : threads) t.join();
  return reports;
}

Result<RunReport> run_one(const Model& model, Options options = {}) {
  Bfs bfs;
  options.threads = 1;
  return explore(model, bfs, std::move(options));
}

void expect_same(const RunReport& want, const RunReport& got) {
  expect_same_counts(want, got);
  // The same findings (kind, name, failing action) at the same lengths, confirmed; which of
  // several equally short paths each shows may differ.
  ASSERT_EQ(got.findings.size(), want.findings.size());
  for (std::size_t i = 0; i < want.findings.size(); ++i) {
    const Finding& w = want.findings[i];
    const auto same = std::find_if(got.findings.begin(), got.findings.end(), [&](const Finding& g) {
      return g.kind == w.kind && g.name == w.name && g.action == w.action;
    });
    ASSERT_NE(same, got.findings.end()) << w.name << " after " << w.action;
    EXPECT_EQ(same->steps.size(), w.steps.size()) << w.name << " after " << w.action;
    EXPECT_EQ(same->message, w.message) << w.name << " after " << w.action;
    EXPECT_EQ(same->severity, w.severity) << w.name << " after " << w.action;
    EXPECT_TRUE(same->confirmed) << w.name << " after " << w.action;
  }
}

void expect_every_rank_same(const RunReport& want, const std::vector<Result<RunReport>>& reports) {
  for (std::size_t k = 0; k < reports.size(); ++k) {
    SCOPED_TRACE(testing::Message() << "rank " << k);
    ASSERT_TRUE(reports[k]) << reports[k].status().message();
    expect_same(want, *reports[k]);
  }
}

TEST(Ranks, FindWhatOneProcessFindsAtEveryRankCount) {
  const auto model = grid_model();
  const auto want = run_one(model);
  ASSERT_TRUE(want) << want.status().message();
  ASSERT_GT(want->stats.states, 200u);
  ASSERT_GE(want->findings.size(), 4u);
  for (unsigned n : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(testing::Message() << n << " ranks");
    expect_every_rank_same(*want, run_ranks(model, n));
  }
}

TEST(Ranks, CountTheSameStatesAtEveryDepth) {
  const auto model = grid_model();
  for (std::uint32_t depth = 1; depth <= 6; ++depth) {
    SCOPED_TRACE(testing::Message() << "depth " << depth);
    Options options;
    options.max_depth = depth;
    const auto want = run_one(model, options);
    ASSERT_TRUE(want);
    const auto reports = run_ranks(model, 3, options);
    for (unsigned k = 0; k < 3; ++k) {
      SCOPED_TRACE(testing::Message() << "rank " << k);
      ASSERT_TRUE(reports[k]) << reports[k].status().message();
      EXPECT_EQ(reports[k]->stats.states, want->stats.states);
      EXPECT_EQ(reports[k]->stats.transitions, want->stats.transitions);
      EXPECT_EQ(reports[k]->stats.max_depth, want->stats.max_depth);
    }
  }
}

struct Box {
  std::uint8_t x = 0;
  std::uint8_t spoiled = 0;
};

TEST(Ranks, KeepTheErrorThatBrokeACriticalInvariantOverAShorterCleanOne) {
  // `fail` errors from every state, cleanly at x < 3 (one step), and from x = 3 on after
  // spoiling the box (four steps): as in one process, the critical one is the finding.
  ObjectModel<Box> model("box", Box{});
  model.action("inc").when([](const Box& b) { return b.x < 5; }).run([](Box& b) { ++b.x; });
  model.action("fail").run([](Box& b) {
    if (b.x >= 3) b.spoiled = 1;
    throw std::runtime_error("fail at x=" + std::to_string(b.x));
  });
  model.invariant("clean").severity(Severity::kCritical).check([](const Box& b) {
    return b.spoiled == 0;
  });
  const auto want = run_one(model);
  ASSERT_TRUE(want) << want.status().message();
  ASSERT_EQ(want->findings.size(), 1u);
  EXPECT_EQ(want->findings[0].severity, Severity::kCritical);
  EXPECT_EQ(want->findings[0].steps.size(), 4u);
  for (unsigned n : {2u, 3u}) {
    SCOPED_TRACE(testing::Message() << n << " ranks");
    expect_every_rank_same(*want, run_ranks(model, n));
  }
}

TEST(Ranks, StopTogetherAtTheFirstFinding) {
  const auto model = grid_model();
  Options options;
  options.stop_on_first = true;
  const auto reports = run_ranks(model, 2, options);
  ASSERT_TRUE(reports[0]) << reports[0].status().message();
  EXPECT_EQ(reports[0]->termination, Termination::kFirstFinding);
  ASSERT_FALSE(reports[0]->findings.empty());
  // Both stop after the same round and report the same findings, at the same lengths.
  ASSERT_TRUE(reports[1]) << reports[1].status().message();
  expect_same(*reports[0], *reports[1]);
  const auto all = run_ranks(model, 2);
  ASSERT_TRUE(all[0]) << all[0].status().message();
  EXPECT_LT(reports[0]->stats.states, all[0]->stats.states);
}

TEST(Ranks, RunOneWorkerPerProcessWhenWorkersAreAskedFor) {
  const auto model = grid_model();
  const auto want = run_one(model);
  ASSERT_TRUE(want) << want.status().message();
  Options options;
  options.workers = 2;
  const auto reports = run_ranks(model, 2, options);
  for (unsigned k = 0; k < 2; ++k) {
    SCOPED_TRACE(testing::Message() << "rank " << k);
    ASSERT_TRUE(reports[k]) << reports[k].status().message();
    expect_same(*want, *reports[k]);
    EXPECT_EQ(reports[k]->warnings,
              std::vector<std::string>{
                  "2 workers were asked for; running one per process: the world is in-process, "
                  "and the search is spread over the processes (--mpi) instead"});
  }
}

TEST(Ranks, AnInterruptEndsTheRoundUnderWay) {
  // A binary tree: level d holds states 2^d - 1 .. 2^(d+1) - 2, level 12 one round of 4096. The
  // first step from level 12 asks for an interrupt: the rank stops within 64 states of it, not at
  // the end of the round. (One rank: with more, how far the others got first is the scheduler's.)
  static std::atomic<bool> asked{false};
  asked = false;
  const auto below = [](const std::uint16_t& v) { return v < 30000; };
  ObjectModel<std::uint16_t> model("tree", 0);
  model.action("left").when(below).run([](std::uint16_t& v) {
    if (v >= 4095 && !asked.exchange(true)) request_interrupt(SIGINT);
    v = static_cast<std::uint16_t>(2 * v + 1);
  });
  model.action("right").when(below).run(
      [](std::uint16_t& v) { v = static_cast<std::uint16_t>(2 * v + 2); });
  const auto reports = run_ranks(model, 1);
  clear_interrupts();
  ASSERT_TRUE(reports[0]) << reports[0].status().message();
  EXPECT_EQ(reports[0]->termination, Termination::kInterrupted);
  // Levels 0-11 take 2 x 4095 steps; level 12 would take 2 x 4096 more.
  EXPECT_GE(reports[0]->stats.steps, 2u * 4095);
  EXPECT_LE(reports[0]->stats.steps, 2u * (4095 + 64));
}

TEST(Ranks, RefuseAStrategyThatIsNotBreadthFirst) {
  const auto model = grid_model();
  Hub hub(1);
  ThreadRanks ranks(hub, 0);
  Options options;
  options.ranks = &ranks;
  Dfs dfs;
  const auto r = explore(model, dfs, options);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().message(),
            "a search over several processes (--mpi) needs breadth-first search of an in-memory "
            "model, and strategy 'dfs' is not breadth-first");
}

}  // namespace
}  // namespace prowl
