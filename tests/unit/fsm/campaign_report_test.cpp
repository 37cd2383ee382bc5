// A fuzz campaign as a RunReport: one finding per bucket, of the kind the bucket's kind maps to,
// its steps the kept trace's; the campaign's figures and limits; per-action coverage from the
// shared counters; and a real campaign of the journal example rendered in JUnit and SARIF with one
// failure and one result per bucket.
#include "prowl/fsm/campaign_report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "prowl/report/groups.hpp"
#include "prowl/report/junit.hpp"
#include "prowl/report/sarif.hpp"

#ifdef PROWL_HAVE_JOURNAL
#include "journal_machine.hpp"
#endif

namespace prowl::fsm {
namespace {

Bucket bucket(int id, RunKind kind, std::string signature, std::string action, std::string message,
              std::uint64_t count) {
  Bucket b;
  b.id = id;
  b.kind = kind;
  b.signature = std::move(signature);
  b.action = std::move(action);
  b.message = std::move(message);
  b.count = count;
  b.first_run = 10 * id;
  b.dir = "out/00" + std::to_string(id) + "-" + std::string(to_string(kind));
  return b;
}

trace::Step step(std::uint64_t seed, std::string action, std::vector<std::string> args,
                 std::vector<std::string> returns = {}) {
  trace::Step s;
  s.seed = seed;
  s.action = std::move(action);
  s.args = std::move(args);
  s.returns = std::move(returns);
  return s;
}

trace::Trace trace_of(std::vector<trace::Step> steps) {
  trace::Trace t;
  t.header.model = "journal";
  t.steps = std::move(steps);
  return t;
}

// Four buckets, one of each failing kind, after 100 of 100 runs.
Campaign four_buckets() {
  Campaign c;
  c.model = "journal";
  c.options.seed = 42;
  c.options.runs = 100;
  c.summary.runs = 100;
  c.summary.ok = 90;
  c.summary.findings = 5;
  c.summary.crashes = 2;
  c.summary.timeouts = 2;
  c.summary.stuck = 1;
  c.summary.steps = 1500;
  c.summary.seconds = 1.25;
  c.summary.buckets = {
      bucket(1, RunKind::kFinding, "finding in get: get(N) returned N, expected N", "get",
             "get(0) returned 1, expected 0", 5),
      bucket(2, RunKind::kCrash, "crash in compact: SIGSEGV", "compact", "SIGSEGV", 2),
      bucket(3, RunKind::kTimeout, "timeout in put", "put", "", 2),
      bucket(4, RunKind::kStuck, "stuck: no transition out of state 'open' is enabled", "put",
             "no transition out of state 'open' is enabled", 1)};
  c.traces = {trace_of({step(11, "open", {}, {"j1"}), step(12, "get", {"j1", "0"})}),
              trace_of({step(21, "compact", {"j1", "a b"})}), trace_of({}),
              trace_of({step(41, "put", {"j1", "1", "2"})})};
  c.states_entered = 2;
  return c;
}

TEST(CampaignReport, MakesEachBucketOneFindingOfItsKind) {
  const RunReport r = campaign_report(four_buckets());
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(group_findings(r.findings).size(), 4u);  // one bug per bucket
  const Finding& oracle = r.findings[0];
  EXPECT_EQ(oracle.kind, FindingKind::kActionError);
  EXPECT_EQ(oracle.severity, Severity::kHigh);
  EXPECT_EQ(oracle.name, "finding in get: get(N) returned N, expected N");
  EXPECT_EQ(oracle.action, "get");
  EXPECT_EQ(oracle.message, "get(0) returned 1, expected 0");
  ASSERT_EQ(oracle.steps.size(), 2u);
  EXPECT_EQ(oracle.steps[0].action, "open");
  EXPECT_EQ(oracle.steps[0].seed, 11u);
  EXPECT_EQ(oracle.steps[0].outcome, "");
  EXPECT_EQ(oracle.steps[0].detail, "-> j1");
  EXPECT_EQ(oracle.steps[1].detail, "j1 0");
  EXPECT_EQ(oracle.steps[1].outcome, "error");
  EXPECT_FALSE(oracle.confirmed);
  EXPECT_EQ(oracle.unconfirmed,
            "fuzz buckets are not replayed; replay the kept trace to confirm it");
  EXPECT_EQ(oracle.state,
            "bucket 001: 5 runs this session, the first run 10\ntrace: out/001-finding/trace\n"
            "output: out/001-finding/output");

  EXPECT_EQ(r.findings[1].kind, FindingKind::kServiceCrashed);
  EXPECT_EQ(r.findings[1].severity, Severity::kCritical);
  EXPECT_EQ(r.findings[1].steps[0].detail, "j1 \"a b\"");
  EXPECT_EQ(r.findings[2].kind, FindingKind::kActionError);
  EXPECT_EQ(r.findings[2].message, "timeout in put");  // no message: the signature
  EXPECT_TRUE(r.findings[2].steps.empty());
  EXPECT_EQ(r.findings[3].kind, FindingKind::kInvariant);
  EXPECT_EQ(r.findings[3].severity, Severity::kLow);
  EXPECT_EQ(r.findings[3].steps[0].outcome, "");  // the stuck run's steps all ran
}

TEST(CampaignReport, CarriesTheCampaignsFiguresAndHowItEnded) {
  Campaign c = four_buckets();
  RunReport r = campaign_report(c);
  EXPECT_EQ(r.model, "journal");
  EXPECT_EQ(r.strategy, "fuzz");
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.restore_mode, RestoreMode::kReset);
  EXPECT_EQ(r.termination, Termination::kMaxSteps);
  EXPECT_EQ(r.stats.states, 2u);
  EXPECT_EQ(r.stats.steps, 1500u);
  EXPECT_EQ(r.stats.transitions, 1491u);  // the 9 runs that failed in a call: no transition
  EXPECT_EQ(r.stats.restores, 100u);      // a fresh target per run
  EXPECT_EQ(r.stats.seconds, 1.25);
  EXPECT_EQ(r.settings.max_steps, 100u);
  EXPECT_TRUE(r.invariants.empty());
  c.summary.interrupted = true;
  EXPECT_EQ(campaign_report(c).termination, Termination::kInterrupted);
  c.summary.interrupted = false;
  c.options.runs = 0;
  c.options.time_limit = 5;
  EXPECT_EQ(campaign_report(c).termination, Termination::kTimeLimit);
}

TEST(CampaignReport, ReadsTheKeptTracesAndNamesOneThatIsMissing) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("prowl-campaign-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "001-finding");
  ASSERT_TRUE(trace::write_trace_file((dir / "001-finding" / "trace").string(),
                                      trace_of({step(7, "open", {}, {"j1"})})));
  Campaign c;
  c.summary.buckets = {bucket(1, RunKind::kFinding, "x", "open", "x", 1),
                       bucket(2, RunKind::kCrash, "y", "open", "y", 1)};
  c.summary.buckets[0].dir = (dir / "001-finding").string();
  c.summary.buckets[1].dir = (dir / "002-crash").string();
  read_bucket_traces(c);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(c.traces.size(), 2u);
  ASSERT_EQ(c.traces[0].steps.size(), 1u);
  EXPECT_EQ(c.traces[0].steps[0].seed, 7u);
  EXPECT_TRUE(c.traces[1].steps.empty());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0].rfind("bucket 002: its trace cannot be read: ", 0), 0u) << c.warnings[0];
}

#ifdef PROWL_HAVE_JOURNAL
// 600 runs of the journal at seed 1 (3 buckets), in this process, into a fresh directory `name`.
FuzzOptions journal_campaign(const std::string& name) {
  FuzzOptions options;
  options.seed = 1;
  options.runs = 600;
  options.fork = false;
  options.quiet = true;
  options.out_dir = ::testing::TempDir() + name + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(options.out_dir);
  return options;
}

// A bucket that cannot be kept (a file where its directory goes) ends the campaign, but what it
// found until then is its summary, and its report says why it ended.
TEST(CampaignReport, ACampaignTheEnvironmentEndsKeepsWhatItFound) {
  auto machine = journal::make_machine();
  ASSERT_TRUE(machine.check());
  const MachineCore& core = machine.core();
  const FuzzOptions options = journal_campaign("prowl-campaign-broken");
  std::filesystem::create_directories(options.out_dir);
  std::ofstream(std::filesystem::path(options.out_dir) / "002-finding") << "in the way";
  std::ostringstream log;
  auto summary = fuzz(core, {"journal", {}}, options, nullptr, log);
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  EXPECT_EQ(summary->error.rfind(options.out_dir + "/002-finding: cannot keep the run's trace", 0),
            0u)
      << summary->error;
  EXPECT_LT(summary->runs, 600u);
  ASSERT_EQ(summary->buckets.size(), 2u);
  Campaign c{.model = core.name(), .options = options, .summary = *summary};
  read_bucket_traces(c);
  std::filesystem::remove_all(options.out_dir);
  const RunReport r = campaign_report(c);
  EXPECT_EQ(r.termination, Termination::kError);
  EXPECT_EQ(r.error, summary->error);
  EXPECT_EQ(r.findings.size(), 2u);
  EXPECT_FALSE(r.findings[0].steps.empty());
}

// A real campaign, in this process: its report has a JUnit failure and a SARIF result per bucket,
// and its coverage adds up to the counters.
TEST(CampaignReport, AJournalCampaignHasOneFailureAndOneResultPerBucket) {
  auto machine = journal::make_machine();
  ASSERT_TRUE(machine.check());
  const MachineCore& core = machine.core();
  const FuzzOptions options = journal_campaign("prowl-campaign-journal");
  Stats stats(core.states().size(), core.actions().size());
  std::ostringstream log;
  auto summary = fuzz(core, {"journal", {}}, options, &stats, log);
  ASSERT_TRUE(summary.is_ok()) << summary.status().message();
  ASSERT_FALSE(summary->buckets.empty());
  Campaign c{.model = core.name(), .options = options, .summary = *summary};
  c.coverage = campaign_coverage(core, stats, *summary);
  c.states_entered = states_entered(core, stats);
  read_bucket_traces(c);
  std::filesystem::remove_all(options.out_dir);
  EXPECT_TRUE(c.warnings.empty());
  const RunReport r = campaign_report(c);

  const std::size_t buckets = summary->buckets.size();
  ASSERT_EQ(r.findings.size(), buckets);
  EXPECT_EQ(r.findings[0].steps.size(), summary->buckets[0].steps);
  EXPECT_EQ(r.findings[0].steps.back().action, "get");
  const std::string junit = to_junit(r);
  std::size_t failures = 0;
  for (std::size_t at = junit.find("<error type=\"action_error\""); at != std::string::npos;
       at = junit.find("<error type=\"action_error\"", at + 1)) {
    ++failures;
  }
  EXPECT_EQ(failures, buckets);
  const auto sarif = nlohmann::json::parse(to_sarif(r));
  EXPECT_EQ(sarif["runs"][0]["results"].size(), buckets);
  EXPECT_EQ(sarif["runs"][0]["results"][0]["ruleId"], "action_error/get");

  std::uint64_t executed = 0, errors = 0;
  for (const ActionCoverage& a : r.coverage) {
    executed += a.executed;
    errors += a.errors;
    EXPECT_EQ(a.executed, a.ok + a.rejected + a.errors) << a.name;
  }
  EXPECT_EQ(r.coverage.size(), core.actions().size());
  EXPECT_EQ(executed, summary->steps);
  EXPECT_EQ(errors, summary->findings + summary->crashes + summary->timeouts);
  EXPECT_EQ(r.stats.states, 3u);  // empty, open and closed
}
#endif

}  // namespace
}  // namespace prowl::fsm
