// The planted-bug library (examples/journal) through the whole FSM pipeline: walk, trace, replay,
// fuzz in forked children, shrink. Built with the examples (PROWL_BUILD_EXAMPLES).
#ifdef PROWL_HAVE_JOURNAL
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "journal_machine.hpp"
#include "prowl/fsm/fuzzer.hpp"
#include "prowl/fsm/runner.hpp"
#include "prowl/trace/shrink.hpp"

namespace prowl::fsm {
namespace {

namespace fs = std::filesystem;

class JournalFuzz : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(machine_.check()); }
  const MachineCore& core() const { return machine_.core(); }

  // A walk's trace, as written line by line.
  std::string walk_text(std::uint64_t seed, RunResult* result = nullptr) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    trace::TraceWriter writer(fds[1]);
    RunResult r = walk(core(), {"journal", {}}, seed, {}, &writer, nullptr);
    ::close(fds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    ::close(fds[0]);
    if (result != nullptr) *result = r;
    return text;
  }

  fs::path out_dir(const std::string& name) {
    fs::path p = fs::temp_directory_path() / ("prowl-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(p);
    dirs_.push_back(p);
    return p;
  }
  void TearDown() override {
    for (const fs::path& p : dirs_) fs::remove_all(p);
  }

  // 600 forked runs with seed 1, buckets under a fresh directory.
  Result<FuzzSummary> fuzz_journal(const std::string& dir, Stats* stats = nullptr) {
    FuzzOptions options;
    options.seed = 1;
    options.runs = 600;
    options.quiet = true;
    options.out_dir = out_dir(dir).string();
    std::ostringstream log;
    return fuzz(core(), {"journal", {}}, options, stats, log);
  }

  Machine<journal::Target> machine_ = journal::make_machine();
  std::vector<fs::path> dirs_;
};

TEST_F(JournalFuzz, TheSameSeedWalksTheSameTraceAndAnotherSeedAnother) {
  EXPECT_EQ(walk_text(11), walk_text(11));
  EXPECT_NE(walk_text(11), walk_text(12));
}

TEST_F(JournalFuzz, EveryWalkReplaysToTheSameEnd) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    RunResult walked;
    auto trace = trace::parse_trace(walk_text(seed, &walked));
    ASSERT_TRUE(trace) << trace.status().message();
    RunResult replayed = replay(core(), *trace, nullptr);
    EXPECT_EQ(replayed.kind, walked.kind) << "seed " << seed;
    EXPECT_EQ(replayed.steps, walked.steps) << "seed " << seed;
    EXPECT_EQ(replayed.message, walked.message) << "seed " << seed;
  }
}

TEST_F(JournalFuzz, ReplayBindsHandlesByTheTracesNames) {
  auto trace = trace::parse_trace(
      "prowl-trace 1 journal\n"
      "1 open\nreturn j7\n"
      "2 open\nreturn j3\n"
      "3 put j3 1 5\n"
      "4 put j7 1 6\n"
      "5 get j3 1\n"
      "6 get j7 1\n");
  ASSERT_TRUE(trace);
  RunResult r = replay(core(), *trace, nullptr);
  EXPECT_EQ(r.kind, RunKind::kOk) << r.message;
  EXPECT_EQ(r.steps, 6u);
}

RunResult replay_text(const MachineCore& core, const std::string& steps) {
  auto trace = trace::parse_trace("prowl-trace 1 journal\n" + steps, "t.trace");
  EXPECT_TRUE(trace) << trace.status().message();
  return replay(core, *trace, nullptr);
}

TEST_F(JournalFuzz, ReplayReportsTheLineATraceCannotBeRunFrom) {
  RunResult r = replay_text(core(), "1 open\nreturn j1\n2 frobnicate j1\n");
  EXPECT_EQ(r.kind, RunKind::kBadTrace);
  EXPECT_EQ(r.line, 4u);
  EXPECT_EQ(r.message,
            "unknown action 'frobnicate' (machine journal has: open, put, get, begin, commit, "
            "rollback, compact)");
  r = replay_text(core(), "1 open\nreturn j1\n2 put j2 1 1\n");
  EXPECT_EQ(r.kind, RunKind::kBadTrace);
  EXPECT_EQ(r.line, 4u);
  EXPECT_EQ(r.message, "put: unknown handle 'j2'");
  r = replay_text(core(), "1 open\nreturn j1\n2 put j1 one 1\n");
  EXPECT_EQ(r.message, "put: argument 2 is 'one': expected an integer");
  r = replay_text(core(), "1 open\nreturn j1\n2 put j1 1\n");
  EXPECT_EQ(r.message, "put: expected 3 argument(s), found 2");
  r = replay_text(core(), "1 open\n");
  EXPECT_EQ(r.line, 2u);
  EXPECT_EQ(r.message, "open: the step returned more handles than its return line names (0)");
  r = replay_text(core(), "1 open\nreturn j1 j2\n");
  EXPECT_EQ(r.line, 2u);
  EXPECT_EQ(r.message, "open: the step returned 1 handle(s), its return line names 2");
  r = replay_text(core(), "1 open\nreturn t1\n");
  EXPECT_EQ(r.message, "open: the step returned a handle of kind 'j', its return line names 't1'");
  r = replay_text(core(), "1 put j1 1 1\nreturn j1\n");
  EXPECT_EQ(r.message, "put: unknown handle 'j1'");
}

TEST_F(JournalFuzz, ReplayReproducesThePlantedBug) {
  RunResult r = replay_text(core(),
                            "1 open\nreturn j1\n2 put j1 0 0\n3 begin j1\n4 put j1 0 1\n"
                            "5 compact j1\n6 rollback j1\n7 get j1 0\n");
  EXPECT_EQ(r.kind, RunKind::kFinding);
  EXPECT_EQ(r.steps, 7u);
  EXPECT_EQ(r.message, "get(0) returned 1, expected 0");
  EXPECT_EQ(r.signature(), "finding in get: get(N) returned N, expected N");
  // Without the compaction the journal is right.
  r = replay_text(core(),
                  "1 open\nreturn j1\n2 put j1 0 0\n3 begin j1\n4 put j1 0 1\n"
                  "6 rollback j1\n7 get j1 0\n");
  EXPECT_EQ(r.kind, RunKind::kOk);
}

TEST_F(JournalFuzz, FuzzingFindsThePlantedBugAndTheSameSeedGivesTheSameRuns) {
  Stats stats(core().states().size(), core().actions().size());
  auto first = fuzz_journal("journal-a", &stats);
  ASSERT_TRUE(first) << first.status().message();
  auto second = fuzz_journal("journal-b");
  ASSERT_TRUE(second);
  EXPECT_EQ(first->runs, 600u);
  EXPECT_EQ(first->ok + first->findings, 600u);
  ASSERT_FALSE(first->buckets.empty());
  EXPECT_EQ(first->buckets[0].signature, "finding in get: get(N) returned N, expected N");
  ASSERT_EQ(first->buckets.size(), second->buckets.size());
  EXPECT_EQ(first->findings, second->findings);
  EXPECT_EQ(first->steps, second->steps);
  for (std::size_t i = 0; i < first->buckets.size(); ++i) {
    const Bucket& a = first->buckets[i];
    const Bucket& b = second->buckets[i];
    EXPECT_EQ(a.signature, b.signature);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.first_run, b.first_run);
    std::ifstream ta(fs::path(a.dir) / "trace"), tb(fs::path(b.dir) / "trace");
    std::stringstream sa, sb;
    sa << ta.rdbuf();
    sb << tb.rdbuf();
    EXPECT_EQ(sa.str(), sb.str());
  }
  std::uint64_t attempted = 0;
  for (ActionIndex a = 0; a < core().actions().size(); ++a) attempted += stats.attempted_count(a);
  EXPECT_EQ(attempted, first->steps);  // the children's counts reach the parent
  EXPECT_EQ(stats.entered_count(0), 600u);
}

TEST_F(JournalFuzz, ShrinkingTheFoundTraceLeavesExactlyThePlantedSequence) {
  auto summary = fuzz_journal("journal-shrink");
  ASSERT_TRUE(summary);
  ASSERT_FALSE(summary->buckets.empty());
  const Bucket& bucket = summary->buckets[0];
  auto found = trace::read_trace_file((fs::path(bucket.dir) / "trace").string());
  ASSERT_TRUE(found) << found.status().message();
  ASSERT_GT(found->steps.size(), 7u);
  const std::string signature = replay(core(), *found, nullptr).signature();
  ASSERT_EQ(signature, bucket.signature);
  trace::Trace shrunk = trace::shrink_trace(*found, [&](const trace::Trace& candidate) {
    return replay(core(), candidate, nullptr).signature() == signature;
  });
  std::vector<std::string> lines;
  std::map<std::string, std::string> rename;  // the handle may be any j<N>
  for (const trace::Step& s : shrunk.steps) {
    for (const std::string& r : s.returns) rename.emplace(r, "J");
    std::string line = s.action;
    for (const std::string& a : s.args) line += " " + (rename.count(a) ? rename[a] : a);
    lines.push_back(line);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"open", "put J 0 0", "begin J", "put J 0 1",
                                             "compact J", "rollback J", "get J 0"}));
}

}  // namespace
}  // namespace prowl::fsm
#endif  // PROWL_HAVE_JOURNAL
