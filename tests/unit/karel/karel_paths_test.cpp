// The symbolic-execution baseline for Karel (examples/karel/karel_paths.hpp): the paths counted by
// hand, their ranking and the step limit, what Z3 can and cannot satisfy, and inputs that run()
// follows to the coverage the search promised.
#ifdef PROWL_HAVE_KAREL

#include "karel_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "karel.hpp"

namespace {

using karel::Action;
using karel::Cond;
using karel::Stmt;

Stmt kp_act(Action a) {
  Stmt s;
  s.action = a;
  return s;
}

Stmt kp_conditional(Stmt::Kind kind, Cond c, int id, std::vector<Stmt> body,
                    std::vector<Stmt> orelse = {}, bool negated = false) {
  Stmt s;
  s.kind = kind;
  s.cond = c;
  s.id = id;
  s.negated = negated;
  s.body = std::move(body);
  s.orelse = std::move(orelse);
  return s;
}

Stmt kp_if(Cond c, int id, std::vector<Stmt> body) {
  return kp_conditional(Stmt::Kind::kIf, c, id, std::move(body));
}

Stmt kp_ifelse(Cond c, int id, std::vector<Stmt> body, std::vector<Stmt> orelse) {
  return kp_conditional(Stmt::Kind::kIfElse, c, id, std::move(body), std::move(orelse));
}

Stmt kp_while(Cond c, int id, std::vector<Stmt> body, bool negated = false) {
  return kp_conditional(Stmt::Kind::kWhile, c, id, std::move(body), {}, negated);
}

Stmt kp_repeat(int times, std::vector<Stmt> body) {
  Stmt s;
  s.kind = Stmt::Kind::kRepeat;
  s.times = times;
  s.body = std::move(body);
  return s;
}

karel::Program kp_program(std::vector<Stmt> body, int conditionals) {
  karel::Program p;
  p.body = std::move(body);
  p.conditionals = conditionals;
  return p;
}

// Runs the search's input: it must run to the end and cover what the search said.
karel::RunResult kp_run_input(const karel::Program& p, const karel::PathSearchResult& r) {
  karel::RunResult none;
  EXPECT_TRUE(r.input.has_value());
  if (!r.input) return none;
  EXPECT_NE(r.input->at(r.input->x, r.input->y), karel::Cell::kWall);
  const karel::RunResult run = karel::run(p, *r.input);
  EXPECT_EQ(run.end, karel::RunResult::End::kFinished) << karel::to_string(p);
  EXPECT_DOUBLE_EQ(run.coverage.fraction(), r.coverage) << karel::to_string(p);
  return run;
}

TEST(KarelPaths, SplitsAtEachIfAndIfElse) {
  const karel::Program p = kp_program(
      {kp_if(Cond::kMarkersPresent, 0, {kp_act(Action::kPickMarker)}),
       kp_ifelse(Cond::kFrontIsClear, 1, {kp_act(Action::kMove)}, {kp_act(Action::kTurnRight)})},
      2);
  const karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 4);
  EXPECT_FALSE(r.truncated);
  // Every path has two outcomes; the first enumerated (both true) is satisfiable.
  EXPECT_EQ(r.checked, 1);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  const karel::RunResult run = kp_run_input(p, r);
  EXPECT_EQ(run.coverage.seen_true, (std::vector<char>{1, 1}));
  EXPECT_EQ(run.steps, 4);
}

TEST(KarelPaths, UnrollsAWhileAtMostMaxUnrollTimes) {
  const karel::Program p =
      kp_program({kp_while(Cond::kFrontIsClear, 0, {kp_act(Action::kMove)})}, 1);
  // 0, 1, 2 or 3 iterations; the most first, and satisfiable: three moves, then a wall.
  karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 4);
  EXPECT_EQ(r.checked, 1);
  EXPECT_DOUBLE_EQ(r.coverage, 1.0);
  EXPECT_EQ(kp_run_input(p, r).steps, 7);  // four tests, three moves
  karel::PathSearchOptions once;
  once.max_unroll = 1;
  r = karel::search_paths(p, once);
  EXPECT_EQ(r.paths, 2);
  EXPECT_EQ(kp_run_input(p, r).steps, 3);
  karel::PathSearchOptions never;
  never.max_unroll = 0;
  r = karel::search_paths(p, never);
  EXPECT_EQ(r.paths, 1);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  EXPECT_EQ(kp_run_input(p, r).steps, 1);
}

TEST(KarelPaths, CoversHalfOfAnIfElseAlone) {
  const karel::Program p = kp_program(
      {kp_ifelse(Cond::kFrontIsClear, 0, {kp_act(Action::kMove)}, {kp_act(Action::kTurnLeft)})}, 1);
  const karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 2);
  EXPECT_EQ(r.checked, 1);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  kp_run_input(p, r);
}

TEST(KarelPaths, SkipsAnOutcomeThatALoopsExitRulesOut) {
  // The while ends facing a blocked cell, so the if right after it cannot be true: the best path
  // with three outcomes (3 iterations, the if true) is unsatisfiable, the next (the if false) is.
  const karel::Program p = kp_program({kp_while(Cond::kFrontIsClear, 0, {kp_act(Action::kMove)}),
                                       kp_if(Cond::kFrontIsClear, 1, {kp_act(Action::kTurnLeft)})},
                                      2);
  const karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 8);
  EXPECT_EQ(r.checked, 2);
  EXPECT_DOUBLE_EQ(r.coverage, 0.75);
  const karel::RunResult run = kp_run_input(p, r);
  EXPECT_EQ(run.coverage.seen_true, (std::vector<char>{1, 0}));
  EXPECT_EQ(run.coverage.seen_false, (std::vector<char>{1, 1}));
  EXPECT_EQ(run.steps, 8);
}

TEST(KarelPaths, ACellStartsWithOneMarkerAtMost) {
  // Picking 3 or 2 times is unsatisfiable; once, from a cell with its one marker, is not.
  const karel::Program p =
      kp_program({kp_while(Cond::kMarkersPresent, 0, {kp_act(Action::kPickMarker)})}, 1);
  const karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 4);
  EXPECT_EQ(r.checked, 3);
  EXPECT_DOUBLE_EQ(r.coverage, 1.0);
  ASSERT_TRUE(r.input.has_value());
  EXPECT_EQ(r.input->at(r.input->x, r.input->y), karel::Cell::kMarker);
  EXPECT_EQ(kp_run_input(p, r).steps, 3);
}

TEST(KarelPaths, FindsNothingWhenALoopNeedsMoreIterationsThanMaxUnroll) {
  // Four markers put, and perhaps one there: the loop picks 4 or 5 times.
  const karel::Program p =
      kp_program({kp_repeat(4, {kp_act(Action::kPutMarker)}),
                  kp_while(Cond::kMarkersPresent, 0, {kp_act(Action::kPickMarker)})},
                 1);
  karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 4);
  EXPECT_EQ(r.checked, 4);
  EXPECT_FALSE(r.input.has_value());
  EXPECT_DOUBLE_EQ(r.coverage, 0.0);
  karel::PathSearchOptions five;
  five.max_unroll = 5;
  r = karel::search_paths(p, five);
  EXPECT_EQ(r.paths, 6);
  EXPECT_EQ(r.checked, 1);
  ASSERT_TRUE(r.input.has_value());
  EXPECT_EQ(r.input->at(r.input->x, r.input->y), karel::Cell::kMarker);
  EXPECT_EQ(kp_run_input(p, r).steps, 16);  // the repeat, 4 puts, 6 tests, 5 picks
}

TEST(KarelPaths, NoInputMovesFurtherThanTheGridIsWide) {
  // Whatever the if did, eight moves in one direction leave an 8 × 8 grid.
  karel::Program p = kp_program({kp_if(Cond::kFrontIsClear, 0, {kp_act(Action::kTurnLeft)}),
                                 kp_repeat(8, {kp_act(Action::kMove)})},
                                1);
  karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 2);
  EXPECT_EQ(r.checked, 2);
  EXPECT_FALSE(r.input.has_value());
  // On a 4 × 3 grid three moves fit only across, so the hero, who turns left after the if,
  // starts facing north or south.
  p.body[1].times = 3;
  karel::PathSearchOptions small;
  small.width = 4;
  small.height = 3;
  r = karel::search_paths(p, small);
  EXPECT_EQ(r.checked, 1);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  ASSERT_TRUE(r.input.has_value());
  EXPECT_EQ(r.input->width, 4);
  EXPECT_EQ(r.input->height, 3);
  EXPECT_EQ(r.input->cells.size(), 12u);
  EXPECT_EQ(r.input->facing % 2, 0);
  EXPECT_EQ(kp_run_input(p, r).steps, 6);
}

// Six tests of one cell's marker, picked when there: 64 paths, in the order of a binary count
// with true as 0, the first test the highest bit. Only "true, then false five times" (path 31)
// covers both outcomes and is satisfiable, as nothing puts the marker back.
karel::Program kp_pick_six_times() {
  return kp_program(
      {kp_repeat(6, {kp_if(Cond::kMarkersPresent, 0, {kp_act(Action::kPickMarker)})})}, 1);
}

TEST(KarelPaths, ChecksTheTopPathsByOutcomesThenByEnumerationOrder) {
  const karel::Program p = kp_pick_six_times();
  karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 64);
  // Paths 1 to 62 have both outcomes, path 31 is the 31st of them.
  EXPECT_EQ(r.checked, 31);
  EXPECT_DOUBLE_EQ(r.coverage, 1.0);
  EXPECT_EQ(kp_run_input(p, r).steps, 1 + 6 + 1);
  karel::PathSearchOptions thirty;
  thirty.top_paths = 30;
  r = karel::search_paths(p, thirty);
  EXPECT_EQ(r.checked, 30);
  EXPECT_FALSE(r.input.has_value());
}

TEST(KarelPaths, StopsEnumeratingAtMaxPaths) {
  const karel::Program p = kp_pick_six_times();
  karel::PathSearchOptions options;
  options.max_paths = 64;
  karel::PathSearchResult r = karel::search_paths(p, options);
  EXPECT_EQ(r.paths, 64);
  EXPECT_FALSE(r.truncated);
  options.max_paths = 63;
  r = karel::search_paths(p, options);
  EXPECT_EQ(r.paths, 63);
  EXPECT_TRUE(r.truncated);
  options.max_paths = 40;
  r = karel::search_paths(p, options);
  EXPECT_EQ(r.paths, 40);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.checked, 31);
  EXPECT_DOUBLE_EQ(r.coverage, 1.0);
}

TEST(KarelPaths, DropsPathsBeyondTheStepLimitCountedAsRunCountsThem) {
  // 911 steps of nested repeats (1 + 10 × (1 + 10 × 9)), 88 turns, then the if's test: 1000 steps
  // when the if is false, 1001 when its body runs too.
  std::vector<Stmt> body = {
      kp_repeat(10, {kp_repeat(10, std::vector<Stmt>(9, kp_act(Action::kTurnLeft)))})};
  body.insert(body.end(), 88, kp_act(Action::kTurnRight));
  body.push_back(kp_if(Cond::kFrontIsClear, 0, {kp_act(Action::kTurnLeft)}));
  karel::Program p = kp_program(body, 1);
  karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 1);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  karel::RunResult run = kp_run_input(p, r);
  EXPECT_EQ(run.steps, karel::kMaxSteps);
  EXPECT_EQ(run.coverage.seen_false, (std::vector<char>{1}));
  // The same with the if first.
  std::rotate(p.body.begin(), p.body.end() - 1, p.body.end());
  r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 1);
  run = kp_run_input(p, r);
  EXPECT_EQ(run.steps, karel::kMaxSteps);
  EXPECT_EQ(run.coverage.seen_false, (std::vector<char>{1}));
  // One turn more, and neither path fits.
  p.body.push_back(kp_act(Action::kTurnRight));
  r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 0);
  EXPECT_EQ(r.checked, 0);
  EXPECT_FALSE(r.input.has_value());
}

TEST(KarelPaths, AMarkerPutIsThereWhenTheHeroComesBack) {
  const karel::Program p =
      kp_program({kp_act(Action::kPutMarker), kp_act(Action::kMove), kp_act(Action::kTurnLeft),
                  kp_act(Action::kTurnLeft), kp_act(Action::kMove),
                  kp_if(Cond::kNoMarkersPresent, 0, {kp_act(Action::kTurnLeft)})},
                 1);
  const karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 2);
  EXPECT_EQ(r.checked, 2);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  EXPECT_EQ(kp_run_input(p, r).coverage.seen_false, (std::vector<char>{1}));
}

TEST(KarelPaths, PutsTenMarkersAtMostOnACell) {
  // Ten markers put on a cell that had one would be eleven: only the if's false path is followed.
  karel::Program p = kp_program(
      {kp_if(Cond::kMarkersPresent, 0, {kp_repeat(10, {kp_act(Action::kPutMarker)})})}, 1);
  karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_EQ(r.paths, 2);
  EXPECT_EQ(r.checked, 2);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  ASSERT_TRUE(r.input.has_value());
  EXPECT_EQ(r.input->at(r.input->x, r.input->y), karel::Cell::kEmpty);
  kp_run_input(p, r);
  // Nine fit.
  p.body[0].body[0].times = 9;
  r = karel::search_paths(p);
  EXPECT_EQ(r.checked, 1);
  ASSERT_TRUE(r.input.has_value());
  EXPECT_EQ(r.input->at(r.input->x, r.input->y), karel::Cell::kMarker);
  EXPECT_EQ(kp_run_input(p, r).steps, 11);
}

TEST(KarelPaths, FollowsNestedLoopsNegationsAndBothArms) {
  // WHILE not frontIsClear (turnRight) covers both outcomes in 1 to 3 iterations. The else arm's
  // if sees no marker, then the one put: both outcomes, on the start cell, which must be empty.
  // The then arm has no conditional, and the last if has one outcome: 6 of 8.
  const karel::Program p = kp_program(
      {kp_while(Cond::kFrontIsClear, 0, {kp_act(Action::kTurnRight)}, true),
       kp_ifelse(Cond::kLeftIsClear, 1, {kp_act(Action::kTurnLeft), kp_act(Action::kMove)},
                 {kp_repeat(2, {kp_if(Cond::kMarkersPresent, 2, {kp_act(Action::kPickMarker)}),
                                kp_act(Action::kPutMarker)})}),
       kp_if(Cond::kRightIsClear, 3, {kp_act(Action::kMove)})},
      4);
  const karel::PathSearchResult r = karel::search_paths(p);
  EXPECT_DOUBLE_EQ(r.coverage, 0.75);
  ASSERT_TRUE(r.input.has_value());
  const karel::RunResult run = kp_run_input(p, r);
  EXPECT_EQ(run.coverage.seen_true[2] + run.coverage.seen_false[2], 2);
  EXPECT_EQ(r.input->at(r.input->x, r.input->y), karel::Cell::kEmpty);
}

TEST(KarelPaths, RandomProgramsRunTheirChosenPath) {
  karel::GeneratorOptions options;
  options.max_statements = 8;
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const karel::Program p = karel::random_program(seed, options);
    const karel::PathSearchResult r = karel::search_paths(p);
    if (!r.input) continue;
    kp_run_input(p, r);
    ++found;
  }
  EXPECT_GT(found, 0);
}

}  // namespace

#endif  // PROWL_HAVE_KAREL
