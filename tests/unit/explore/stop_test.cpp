// How a run ends when it cannot simply run to its end: a signal (prowl/core/interrupt.hpp), a
// service that dies during a step, an environment that fails half-way; and what a run that
// exhausted its graph may claim when actions draw their values at random.
#include <signal.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/core/interrupt.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/explore/replay.hpp"
#include "prowl/strategy/bfs.hpp"

namespace prowl {
namespace {

// A fake service holding a counter, which an action can make die as a segfault would: from then
// on it reports died() and cannot be observed, until a restore or a reset restarts it. Portable,
// and not cheap, like a live service on a SQLite file.
class MortalService final : public System {
 public:
  explicit MortalService(std::string name, Capabilities caps = {.snapshot = true,
                                                                .stack = false,
                                                                .reset = true,
                                                                .cheap = false,
                                                                .portable = true})
      : System(std::move(name)), caps_(caps) {}

  int value = 0;
  bool dead = false;
  bool broken = false;  // observing fails, but nothing died: an environment failure
  bool dying = false;   // dies once idle after the step: nothing notices until a restore

  Capabilities capabilities() const override { return caps_; }
  Status observe(Hasher& h) const override {
    if (dead) return Status::environment("service '" + name() + "' is not running");
    if (broken) return Status::environment("the database went away");
    h.add_u64(static_cast<std::uint64_t>(value));
    return Status::ok();
  }
  std::string died() const override {
    return dead ? "was killed by signal 11 (Segmentation fault)\nlast lines of its stderr:\n  boom"
                : std::string();
  }
  Status begin() override {
    initial_ = value;
    return Status::ok();
  }
  Result<SnapshotHandle> save() override {
    snaps_.push_back(value);
    return static_cast<SnapshotHandle>(snaps_.size() - 1);
  }
  std::string take_unreported_death() override { return std::exchange(unreported_, {}); }
  Status restore(SnapshotHandle h) override {
    value = snaps_[h];
    restart();
    return Status::ok();
  }
  void release(SnapshotHandle) override {}
  Result<SystemImagePtr> capture() override {
    auto image = std::make_shared<Image>();
    image->value = value;
    return SystemImagePtr(std::move(image));
  }
  Status load(const SystemImagePtr& image) override {
    value = dynamic_cast<const Image&>(*image).value;
    restart();
    return Status::ok();
  }
  Status reset() override {
    value = initial_;
    restart();
    return Status::ok();
  }

 private:
  struct Image final : SystemImage {
    int value = 0;
  };
  // As a ProcessSystem's restore does: a service that died while idle is restarted, and what
  // ended it is kept for take_unreported_death().
  void restart() {
    if (dying) unreported_ = "was killed by signal 9 (Killed)";
    dying = false;
    dead = false;
  }
  Capabilities caps_;
  int initial_ = 0;
  std::vector<int> snaps_;
  std::string unreported_;
};

MortalService& service(World& w) { return static_cast<MortalService&>(w.system(0)); }
const MortalService& service(const World& w) {
  return static_cast<const MortalService&>(w.system(0));
}

// "svc" counts 0..3 with inc; with crash_at_2 it dies when at 2, as a request that segfaults it
// would (the action sees no answer: an error). `breaks` adds an invariant that fails at 3.
Model mortal_model(std::function<Outcome(Step&)> crash_at_2) {
  Model model("mortal");
  auto world = []() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    w->emplace<MortalService>("svc");
    return w;
  };
  model.set_world(world);
  model.set_world_copies([world](std::size_t) { return world(); });
  model.action("inc")
      .when([](const World& w, const Context&) { return service(w).value < 3; })
      .run([](Step& s) {
        ++service(s.world).value;
        return Outcome::ok("POST /inc -> 200");
      });
  model.action("crash_at_2")
      .when([](const World& w, const Context&) { return service(w).value == 2; })
      .run(std::move(crash_at_2));
  // Checked over HTTP in a real model: it cannot hold against a dead service.
  model.invariant("reachable").check([](const World& w, const Context&) {
    return service(w).dead ? Check::fail("connection refused") : Check::pass();
  });
  return model;
}

Outcome segfault(Step& s) {
  service(s.world).dead = true;
  Outcome out = Outcome::error("POST /crash: connection reset by peer");
  out.detail = "POST /crash -> no response";
  return out;
}

class ServiceCrash : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(ServiceCrash, IsOneConfirmedFindingOfItsStepAndTheRunGoesOn) {
  Model model = mortal_model(segfault);
  Bfs bfs;
  Options options;
  options.workers = GetParam();
  auto r = explore(model, bfs, options);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  const Finding& f = r->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kServiceCrashed);
  EXPECT_EQ(f.name, "svc");
  EXPECT_EQ(f.action, "crash_at_2");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_TRUE(f.confirmed) << f.unconfirmed;
  EXPECT_EQ(f.message,
            "service 'svc' died during 'crash_at_2': was killed by signal 11 (Segmentation "
            "fault)\nlast lines of its stderr:\n  boom");
  ASSERT_EQ(f.steps.size(), 3u);
  EXPECT_EQ(f.steps[0].detail, "POST /inc -> 200");
  EXPECT_EQ(f.steps[2].action, "crash_at_2");
  EXPECT_EQ(f.steps[2].outcome, "error");
  EXPECT_EQ(f.steps[2].detail, "POST /crash -> no response");
  // The service was restarted and exploration went on past it: every counter value was reached.
  EXPECT_EQ(r->stats.states, 4u);
  EXPECT_EQ(r->termination, Termination::kExhausted);
}

INSTANTIATE_TEST_SUITE_P(Workers, ServiceCrash, ::testing::Values(1u, 2u));

// A service that dies while idle after a step (it answered, then crashed, or something killed
// it) and is found dead by the next restore, which restarts it: one finding, for the last step
// that ran on it before the restore — which cannot know the culprit, so it is never confirmed.
Model dying_model() {
  Model model = mortal_model([](Step& s) {
    service(s.world).dying = true;
    return Outcome::ok("POST /crash -> 200");
  });
  model.action("dec")
      .when([](const World& w, const Context&) { return service(w).value > 0; })
      .run([](Step& s) {
        --service(s.world).value;
        return Outcome::ok("POST /dec -> 200");
      });
  return model;
}

TEST(IdleServiceDeath, IsOneFindingForTheLastStepBeforeTheRestoreThatFoundIt) {
  Model model = dying_model();
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  const Finding& f = r->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kServiceCrashed);
  EXPECT_EQ(f.name, "svc");
  // BFS runs state 2's actions back to back (inc, crash_at_2, dec) on the same service; the
  // restore to state 3 finds it dead.
  EXPECT_EQ(f.message,
            "service 'svc' died after 'dec', between steps: was killed by signal 9 (Killed)");
  EXPECT_FALSE(f.confirmed);
  ASSERT_EQ(f.steps.size(), 3u);
  EXPECT_EQ(f.steps[2].action, "dec");
  EXPECT_EQ(f.steps[2].outcome, "ok");
  EXPECT_EQ(f.steps[2].detail, "POST /dec -> 200");
  EXPECT_EQ(r->stats.states, 4u);
}

TEST(IdleServiceDeath, IsOneFindingWithTwoWorkersToo) {
  Model model = dying_model();
  Bfs bfs;
  Options options;
  options.workers = 2;
  auto r = explore(model, bfs, options);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kServiceCrashed);
  EXPECT_NE(r->findings[0].message.find(", between steps: was killed by signal 9 (Killed)"),
            std::string::npos)
      << r->findings[0].message;
}

// A service that answers and then dies: the step succeeded, but the state after it cannot be
// observed. That is the step's crash, not a failure of the run, nor an invariant's.
TEST(ServiceCrash, AfterAnsweringIsTheStepsCrash) {
  Model model = mortal_model([](Step& s) {
    service(s.world).dead = true;
    return Outcome::ok("POST /crash -> 200");
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kServiceCrashed);
  EXPECT_TRUE(r->findings[0].confirmed);
  EXPECT_EQ(r->findings[0].steps.back().outcome, "ok");
  EXPECT_EQ(r->findings[0].steps.back().detail, "POST /crash -> 200");
}

// Killed from outside during the first run of the step only: the replay cannot reproduce it. The
// failing step then shows what the exploration saw, never the replay's answer.
TEST(ServiceCrash, ThatDoesNotReproduceKeepsItsOwnFailingStep) {
  auto calls = std::make_shared<int>(0);
  Model model = mortal_model([calls](Step& s) {
    if ((*calls)++ == 0) return segfault(s);
    return Outcome::ok("POST /crash -> 201");
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  const Finding& f = r->findings[0];
  EXPECT_EQ(f.kind, FindingKind::kServiceCrashed);
  EXPECT_FALSE(f.confirmed);
  EXPECT_EQ(f.unconfirmed, "it did not happen when replayed from the initial state");
  EXPECT_EQ(f.steps[2].outcome, "error");
  EXPECT_EQ(f.steps[2].detail, "POST /crash -> no response");
  EXPECT_EQ(f.steps[0].detail, "POST /inc -> 200");  // earlier steps: from the replay
  EXPECT_EQ(f.state, "");                            // the replay did not end in the failing state
}

class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override { clear_interrupts(); }
  void TearDown() override { clear_interrupts(); }
};

struct Counter {
  int v = 0;
};

// Counts up to 100; "too_far" fails at 3; at 5, `signal` runs as if Ctrl-C was pressed there.
ObjectModel<Counter> counting_model(std::function<void(Counter&)> signal) {
  ObjectModel<Counter> model("counting", Counter{});
  model.action("inc").when([](const Counter& c) { return c.v < 100; }).run([](Counter& c) {
    ++c.v;
  });
  model.action("signal")
      .when([](const Counter& c) { return c.v == 5; })
      .run([signal](Counter& c, Context&) { signal(c); });
  model.invariant("too_far").check([](const Counter& c) { return c.v != 3; });
  return model;
}

TEST_F(Interrupt, StopsTheRunWhichStillConfirmsAndReportsWhatItFound) {
  auto model = counting_model([](Counter&) { request_interrupt(SIGINT); });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kInterrupted);
  EXPECT_LT(r->stats.states, 101u);
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].name, "too_far");
  EXPECT_TRUE(r->findings[0].confirmed);  // within the grace period
  EXPECT_EQ(r->findings[0].steps.size(), 3u);
}

TEST_F(Interrupt, ASecondOneSkipsConfirmation) {
  auto model = counting_model([](Counter&) {
    request_interrupt(SIGTERM);
    request_interrupt(SIGINT);
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kInterrupted);
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_FALSE(r->findings[0].confirmed);
  EXPECT_EQ(r->findings[0].unconfirmed, "interrupted before it could be replayed");
  EXPECT_EQ(r->findings[0].steps.size(), 3u);
  EXPECT_EQ(interrupt_signal(), SIGTERM);
}

TEST_F(Interrupt, AfterTheGracePeriodFindingsAreReportedUnconfirmed) {
  auto model = counting_model([](Counter&) { request_interrupt(SIGINT); });
  Bfs bfs;
  Options options;
  options.confirm_grace = 0;
  auto r = explore(model, bfs, options);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].unconfirmed, "interrupted before it could be replayed");
}

// A step that fails because the interrupt cut it short (an aborted request) is not a finding.
TEST_F(Interrupt, AStepItCutShortIsNeitherAFindingNorCounted) {
  ObjectModel<Counter> model("cut", Counter{});
  model.action("inc").when([](const Counter& c) { return c.v < 10; }).run([](Counter& c) {
    ++c.v;
  });
  model.action("request")
      .when([](const Counter& c) { return c.v == 1; })
      .run([](Counter&, Context&) {
        request_interrupt(SIGINT);
        return Outcome::error("the request was aborted");
      });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kInterrupted);
  EXPECT_TRUE(r->findings.empty());
  EXPECT_EQ(r->coverage[1].name, "request");
  EXPECT_EQ(r->coverage[1].executed, 0u);
  EXPECT_EQ(r->coverage[1].errors, 0u);
}

struct Cache {
  int entries = 0;
};

// An action that draws its argument from the step's Rng tries one value per (state, action):
// exhausting the graph is not exhausting the values.
TEST(Sampled, ActionsThatDrawValuesMakeAnExhaustedRunSampled) {
  ObjectModel<Cache> model("cache", Cache{});
  model.action("put")
      .when([](const Cache& c) { return c.entries < 2; })
      .run([](Cache& c, Context&, Rng& rng) { c.entries += 1 + static_cast<int>(rng.below(1)); });
  model.action("get").run([](Cache&, Context&, Rng&) {});  // takes the Rng, draws nothing
  model.action("clear").run([](Cache& c) { c.entries = 0; });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kSampled);
  EXPECT_EQ(r->sampled, std::vector<std::string>{"put"});
}

TEST(Sampled, ARunWhoseActionsDrawNothingIsExhausted) {
  ObjectModel<Cache> model("cache", Cache{});
  model.action("put").when([](const Cache& c) { return c.entries < 2; }).run([](Cache& c) {
    ++c.entries;
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->termination, Termination::kExhausted);
  EXPECT_TRUE(r->sampled.empty());
}

// The environment fails half-way (a database that went away): the run fails, and its partial
// report keeps what was found until then, unconfirmed, with the error.
TEST(PartialReport, KeepsTheFindingsOfARunThatFailed) {
  Model model("breaking");
  model.set_world([]() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    w->emplace<MortalService>("svc");
    return w;
  });
  model.action("inc")
      .when([](const World& w, const Context&) { return service(w).value < 3; })
      .run([](Step& s) {
        if (++service(s.world).value == 3) service(s.world).broken = true;
        return Outcome::ok();
      });
  model.invariant("below_two").check([](const World& w, const Context&) {
    return service(w).value < 2 ? Check::pass() : Check::fail("at 2");
  });
  Bfs bfs;
  Explorer explorer(model, bfs);
  auto r = explorer.run();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), StatusCode::kEnvironment);
  const RunReport* partial = explorer.partial_report();
  ASSERT_NE(partial, nullptr);
  EXPECT_EQ(partial->termination, Termination::kError);
  EXPECT_EQ(partial->error, "the database went away");
  EXPECT_EQ(partial->stats.states, 3u);
  ASSERT_EQ(partial->findings.size(), 1u);
  EXPECT_EQ(partial->findings[0].name, "below_two");
  EXPECT_FALSE(partial->findings[0].confirmed);
  EXPECT_EQ(partial->findings[0].unconfirmed, "the run failed before it could be replayed");
  EXPECT_EQ(partial->findings[0].steps.size(), 2u);
}

TEST(PartialReport, IsNullAfterARunThatDidNotFail) {
  ObjectModel<Cache> model("cache", Cache{});
  model.action("put").when([](const Cache& c) { return c.entries < 2; }).run([](Cache& c) {
    ++c.entries;
  });
  Bfs bfs;
  Explorer explorer(model, bfs);
  ASSERT_TRUE(explorer.run());
  EXPECT_EQ(explorer.partial_report(), nullptr);
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

class ReplayInterrupt : public ::testing::Test {
 protected:
  void SetUp() override { clear_interrupts(); }
  void TearDown() override { clear_interrupts(); }
};

// `replay TRACE` stops after the step under way when a signal arrives.
TEST_F(ReplayInterrupt, StopsBeforeTheNextStep) {
  ObjectModel<Counter> model("counting", Counter{});
  model.action("inc").run([](Counter& c) { ++c.v; });
  model.action("signal").run([](Counter&, Context&) { request_interrupt(SIGINT); });
  auto world = model.make_world();
  ASSERT_TRUE(world);
  ASSERT_TRUE((*world)->begin());
  Replayer replayer(model, **world);
  const std::vector<TraceStep> steps = {
      {"inc", 1, {}, {}}, {"signal", 2, {}, {}}, {"inc", 3, {}, {}}, {"inc", 4, {}, {}}};
  auto r = replayer.run(steps, /*keep_going=*/true);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_TRUE(r->interrupted);
  ASSERT_EQ(r->executed.size(), 2u);
  EXPECT_EQ(r->executed[1].action, "signal");
  EXPECT_FALSE(r->failed());
  // A replay begun after the signal is not stopped by it.
  auto again = replayer.run(std::vector<TraceStep>{{"inc", 1, {}, {}}, {"inc", 2, {}, {}}});
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->interrupted);
  EXPECT_EQ(again->executed.size(), 2u);
  ASSERT_TRUE((*world)->end());
}

// `shrink` stops at a signal and keeps the shortest sequence found until then.
TEST_F(ReplayInterrupt, ShrinkKeepsTheBestSoFar) {
  ObjectModel<Counter> model("counting", Counter{});
  model.action("inc").run([](Counter& c) { ++c.v; });
  model.action("noise").run([](Counter&, Context&) { request_interrupt(SIGINT); });
  model.invariant("below_two").check([](const Counter& c) { return c.v < 2; });
  auto world = model.make_world();
  ASSERT_TRUE(world);
  ASSERT_TRUE((*world)->begin());
  Finding f;
  f.kind = FindingKind::kInvariant;
  f.name = "below_two";
  f.steps = {{"noise", 1, {}, {}}, {"inc", 2, {}, {}}, {"inc", 3, {}, {}}};
  auto shrunk = shrink(model, **world, f);
  ASSERT_TRUE(shrunk) << shrunk.status().message();
  // The first candidate, [inc], passes; the second, [noise, inc], raises the signal, which ends
  // its replay and the search: the best so far is the trace as it was. (Without the signal,
  // shrinking goes on to [inc, inc].)
  ASSERT_EQ(shrunk->size(), 3u);
  EXPECT_EQ((*shrunk)[0].action, "noise");
  EXPECT_EQ(interrupts(), 1);
  ASSERT_TRUE((*world)->end());
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

// A live system whose restore, observation or reset a test can make fail as a request that a
// signal cut short does: the hook raises the signal and returns an environment failure.
class Hooked final : public System {
 public:
  explicit Hooked(Capabilities caps) : System("svc"), caps_(caps) {}
  int value = 0;
  std::function<Status()> on_restore, on_observe, on_reset;

  Capabilities capabilities() const override { return caps_; }
  Status observe(Hasher& h) const override {
    if (on_observe) {
      if (Status st = on_observe(); !st) return st;
    }
    h.add_u64(static_cast<std::uint64_t>(value));
    return Status::ok();
  }
  Status begin() override {
    initial_ = value;
    return Status::ok();
  }
  Result<SnapshotHandle> save() override {
    snaps_.push_back(value);
    return static_cast<SnapshotHandle>(snaps_.size() - 1);
  }
  Status restore(SnapshotHandle h) override {
    if (on_restore) {
      if (Status st = on_restore(); !st) return st;
    }
    value = snaps_[h];
    return Status::ok();
  }
  void release(SnapshotHandle) override {}
  Status reset() override {
    if (on_reset) {
      if (Status st = on_reset(); !st) return st;
    }
    value = initial_;
    return Status::ok();
  }
  Status end() override {
    value = initial_;
    return Status::ok();
  }

 private:
  Capabilities caps_;
  int initial_ = 0;
  std::vector<int> snaps_;
};

Hooked& hooked(World& w) { return static_cast<Hooked&>(w.system(0)); }
const Hooked& hooked(const World& w) { return static_cast<const Hooked&>(w.system(0)); }

// Counts 0..9; "odd" fails on odd values. `setup` installs the hooks on the world's system.
Model hooked_model(Capabilities caps, std::function<void(Hooked&)> setup) {
  Model model("hooked");
  model.set_world([caps, setup]() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    setup(w->emplace<Hooked>(caps));
    return w;
  });
  model.action("inc")
      .when([](const World& w, const Context&) { return hooked(w).value < 9; })
      .run([](Step& s) {
        ++hooked(s.world).value;
        return Outcome::ok();
      });
  model.action("add2")
      .when([](const World& w, const Context&) { return hooked(w).value < 8; })
      .run([](Step& s) {
        hooked(s.world).value += 2;
        return Outcome::ok();
      });
  model.invariant("even").check([](const World& w, const Context&) {
    return hooked(w).value % 2 == 0 ? Check::pass() : Check::fail("odd");
  });
  return model;
}

Capabilities live_snapshot() { return {.snapshot = true, .stack = false, .reset = true}; }

class AbortedBySignal : public ::testing::Test {
 protected:
  void SetUp() override { clear_interrupts(); }
  void TearDown() override { clear_interrupts(); }
};

// A restore a signal cut short (a service restart interrupted) stops the run as interrupted, not
// as an environment failure: the findings so far are confirmed and reported.
TEST_F(AbortedBySignal, ARestoreIsAnInterruptedRun) {
  auto restores = std::make_shared<int>(0);
  Model model = hooked_model(live_snapshot(), [restores](Hooked& h) {
    h.on_restore = [restores] {
      if (++*restores != 3 || interrupts() > 0) return Status::ok();
      request_interrupt(SIGINT);
      return Status::environment("service 'svc' interrupted by SIGINT while restarting");
    };
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kInterrupted);
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].name, "even");
  EXPECT_TRUE(r->findings[0].confirmed) << r->findings[0].unconfirmed;
}

// An observation a signal cut short is neither a failure of the run nor of the system.
TEST_F(AbortedBySignal, AnObservationIsAnInterruptedRun) {
  auto observes = std::make_shared<int>(0);
  Model model = hooked_model(live_snapshot(), [observes](Hooked& h) {
    h.on_observe = [observes] {
      if (++*observes != 6 || interrupts() > 0) return Status::ok();
      request_interrupt(SIGTERM);
      return Status::environment("observation 'n' failed: interrupted by SIGTERM");
    };
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kInterrupted);
}

// A check a signal cut short (an HTTP GET invariant aborted) is not a violation.
TEST_F(AbortedBySignal, AnInvariantCheckIsNoFinding) {
  Model model("checked");
  model.set_world([]() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    w->emplace<Hooked>(live_snapshot());
    return w;
  });
  model.action("inc")
      .when([](const World& w, const Context&) { return hooked(w).value < 5; })
      .run([](Step& s) {
        ++hooked(s.world).value;
        return Outcome::ok();
      });
  model.invariant("reachable").check([](const World& w, const Context&) {
    if (hooked(w).value != 2) return Check::pass();
    request_interrupt(SIGINT);
    return Check::fail("GET /state: interrupted by SIGINT during the request");
  });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kInterrupted);
  EXPECT_TRUE(r->findings.empty()) << r->findings[0].message;
}

// A second signal that cuts a confirming replay short (its reset request aborted): the finding is
// reported, unconfirmed, and the run does not fail.
TEST_F(AbortedBySignal, AConfirmingReplayLeavesTheFindingUnconfirmed) {
  Model model = hooked_model(live_snapshot(), [](Hooked& h) {
    // The first restore after the first signal is the confirming replay's.
    h.on_restore = [] {
      if (interrupts() != 1) return Status::ok();
      request_interrupt(SIGTERM);
      return Status::environment("the service's restart failed: interrupted by SIGTERM");
    };
  });
  model.action("stop")
      .when([](const World& w, const Context&) { return hooked(w).value == 4; })
      .run([](Step&) {
        request_interrupt(SIGINT);
        return Outcome::ok();
      });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(r->termination, Termination::kInterrupted);
  ASSERT_FALSE(r->findings.empty());
  EXPECT_EQ(r->findings[0].unconfirmed, "interrupted while it was replayed");
}

// In reset mode a step on the path to a state is replayed; a service that dies then is that
// step's crash, not a nondeterminism finding nor a failed run.
TEST(ServiceCrash, WhileReplayingAPathIsThatStepsCrash) {
  Model model("mortal_reset");
  model.set_world([]() -> Result<std::unique_ptr<World>> {
    auto w = std::make_unique<World>();
    w->emplace<MortalService>("svc", Capabilities{.reset = true});  // a service that keeps state
    return w;
  });
  auto runs = std::make_shared<int>(0);
  model.action("inc")
      .when([](const World& w, const Context&) { return service(w).value < 3; })
      .run([runs](Step& s) {
        // The 7th run of inc, whenever it comes, kills the service (as an outside kill would).
        if (++*runs == 7) {
          service(s.world).dead = true;
          Outcome out = Outcome::error("connection reset");
          out.detail = "POST /inc -> no response";
          return out;
        }
        ++service(s.world).value;
        return Outcome::ok("POST /inc -> 200");
      });
  model.action("dec")
      .when([](const World& w, const Context&) { return service(w).value > 0; })
      .run([](Step& s) {
        --service(s.world).value;
        return Outcome::ok("POST /dec -> 200");
      });
  Bfs bfs;
  auto r = explore(model, bfs);
  ASSERT_TRUE(r) << r.status().message();
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].kind, FindingKind::kServiceCrashed);
  EXPECT_EQ(r->findings[0].action, "inc");
}

}  // namespace
}  // namespace prowl
