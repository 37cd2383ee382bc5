// Karel's interpreter (examples/karel/karel.hpp): the benchmark's tokens read and written back,
// each statement's semantics and errors on hand-made worlds, branch coverage, and the seeded
// generators of programs and worlds.
#ifdef PROWL_HAVE_KAREL

#include "karel.hpp"
#include "karel_testkit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

// A width × height world of `row`s ('#' wall, '.' empty, 'o' a marker), the hero at (x, y).
karel::World karel_world(const std::vector<std::string>& rows, int x, int y, int facing) {
  karel::World w;
  w.height = static_cast<int>(rows.size());
  w.width = static_cast<int>(rows.front().size());
  for (const std::string& row : rows) {
    for (char c : row) {
      w.cells.push_back(c == '#'   ? karel::Cell::kWall
                        : c == 'o' ? karel::Cell::kMarker
                                   : karel::Cell::kEmpty);
    }
  }
  w.x = x;
  w.y = y;
  w.facing = facing;
  return w;
}

TEST(Karel, ReadsAndWritesTheBenchmarksTokens) {
  const std::string text =
      "DEF run m( WHILE c( frontIsClear c) w( move IF c( markersPresent c) i( pickMarker i) w) "
      "IFELSE c( not c( leftIsClear c) c) i( turnLeft i) ELSE e( turnRight putMarker e) "
      "REPEAT R=3 r( IF c( noMarkersPresent c) i( putMarker i) r) m)";
  const karel::Program p = karel_testkit::program(text);
  EXPECT_EQ(p.conditionals, 4);
  EXPECT_EQ(karel::to_string(p), text);
  ASSERT_EQ(p.body.size(), 3u);
  EXPECT_EQ(p.body[0].id, 0);
  EXPECT_EQ(p.body[0].body[1].id, 1);
  EXPECT_EQ(p.body[1].id, 2);
  EXPECT_TRUE(p.body[1].negated);
  EXPECT_EQ(p.body[1].cond, karel::Cond::kLeftIsClear);
  EXPECT_EQ(p.body[2].times, 3);
  EXPECT_EQ(p.body[2].body[0].id, 3);
  // A double negation reads as none.
  const karel::Program twice =
      karel_testkit::program("DEF run m( IF c( not c( not c( frontIsClear c) c) c) i( move i) m)");
  EXPECT_FALSE(twice.body[0].negated);
}

TEST(Karel, NamesTheTokenAndWhatWasExpected) {
  const auto error_of = [](const std::string& text) {
    std::string error;
    EXPECT_FALSE(karel::parse(text, &error).has_value()) << text;
    return error;
  };
  EXPECT_EQ(error_of("DEF run m( jump m)"),
            "token 4 (\"jump\"): expected a statement (an action, IF, IFELSE, WHILE or REPEAT)");
  EXPECT_EQ(error_of("DEF run m( move"), "the end of the text: expected \"m)\"");
  EXPECT_EQ(error_of("DEF run m( REPEAT R=11 r( move r) m)"),
            "token 5 (\"R=11\"): expected R=K with K from 2 to 10");
  EXPECT_EQ(error_of("DEF run m( IF c( wallAhead c) i( move i) m)"),
            "token 6 (\"wallAhead\"): expected a condition (frontIsClear, leftIsClear, "
            "rightIsClear, markersPresent, noMarkersPresent or not)");
  EXPECT_EQ(error_of("DEF run m( move m) move"),
            "token 6 (\"move\"): expected the end of the program");
  EXPECT_EQ(error_of("DEF run m( IFELSE c( frontIsClear c) i( move i) m)"),
            "token 11 (\"m)\"): expected \"ELSE\"");
}

TEST(Karel, MovesTurnsAndCountsOutcomes) {
  // Facing east in the top row: one move reaches the cell before the wall, where frontIsClear is
  // false; the while's both outcomes and the if's false one are seen.
  const karel::World w = karel_world({"..#.", "...."}, 0, 0, 1);
  const karel::Program p = karel_testkit::program(
      "DEF run m( WHILE c( frontIsClear c) w( move w) IF c( frontIsClear c) i( move i) m)");
  const karel::RunResult r = karel::run(p, w);
  EXPECT_EQ(r.end, karel::RunResult::End::kFinished);
  EXPECT_EQ(r.coverage.seen_true, (std::vector<char>{1, 0}));
  EXPECT_EQ(r.coverage.seen_false, (std::vector<char>{1, 1}));
  EXPECT_DOUBLE_EQ(r.coverage.fraction(), 0.75);
  // Two tests of the while, one move, one test of the if.
  EXPECT_EQ(r.steps, 4);
  // Left of east is north, off the grid; right is south, open.
  const karel::Program sides = karel_testkit::program(
      "DEF run m( IF c( leftIsClear c) i( move i) IF c( rightIsClear c) i( turnRight move i) "
      "IF c( markersPresent c) i( move i) m)");
  const karel::RunResult s = karel::run(sides, w);
  EXPECT_EQ(s.end, karel::RunResult::End::kFinished);
  EXPECT_EQ(s.coverage.seen_true, (std::vector<char>{0, 1, 0}));
  EXPECT_EQ(s.coverage.seen_false, (std::vector<char>{1, 0, 1}));
}

TEST(Karel, AnErrorEndsTheRunAndKeepsWhatWasCovered) {
  const karel::World w = karel_world({".#", ".o"}, 0, 0, 1);
  // Into the wall.
  karel::RunResult r =
      karel::run(karel_testkit::program(
                     "DEF run m( IF c( noMarkersPresent c) i( move i) IF c( frontIsClear c) i( "
                     "move i) m)"),
                 w);
  EXPECT_EQ(r.end, karel::RunResult::End::kError);
  EXPECT_EQ(r.coverage.outcomes(), 1);
  // Off the grid (north of the top row).
  r = karel::run(karel_testkit::program("DEF run m( turnLeft move m)"), w);
  EXPECT_EQ(r.end, karel::RunResult::End::kError);
  // No marker to pick here; the one south-east is picked once, not twice.
  r = karel::run(karel_testkit::program("DEF run m( pickMarker m)"), w);
  EXPECT_EQ(r.end, karel::RunResult::End::kError);
  const karel::World at_marker = karel_world({".#", ".o"}, 1, 1, 0);
  r = karel::run(karel_testkit::program("DEF run m( pickMarker m)"), at_marker);
  EXPECT_EQ(r.end, karel::RunResult::End::kFinished);
  r = karel::run(karel_testkit::program("DEF run m( pickMarker pickMarker m)"), at_marker);
  EXPECT_EQ(r.end, karel::RunResult::End::kError);
  // Nine more markers fill the cell to kMaxMarkers; the tenth put is an error.
  r = karel::run(karel_testkit::program("DEF run m( REPEAT R=9 r( putMarker r) m)"), at_marker);
  EXPECT_EQ(r.end, karel::RunResult::End::kFinished);
  r = karel::run(karel_testkit::program("DEF run m( REPEAT R=10 r( putMarker r) m)"), at_marker);
  EXPECT_EQ(r.end, karel::RunResult::End::kError);
  // Markers put are seen by later tests.
  r = karel::run(
      karel_testkit::program("DEF run m( putMarker IF c( markersPresent c) i( turnLeft i) m)"), w);
  EXPECT_EQ(r.coverage.seen_true, (std::vector<char>{1}));
}

TEST(Karel, AnEndlessLoopStopsAtTheStepLimit) {
  const karel::World w = karel_world({"..", ".."}, 0, 0, 1);
  const karel::RunResult r = karel::run(
      karel_testkit::program("DEF run m( WHILE c( noMarkersPresent c) w( turnLeft w) m)"), w);
  EXPECT_EQ(r.end, karel::RunResult::End::kStepLimit);
  EXPECT_EQ(r.steps, karel::kMaxSteps);
  EXPECT_EQ(r.coverage.seen_true, (std::vector<char>{1}));
  EXPECT_EQ(r.coverage.seen_false, (std::vector<char>{0}));
}

TEST(Karel, CoverageMergesRunsAndCountsAProgramWithoutConditionalsCovered) {
  karel::Coverage a(2), b(2);
  a.seen_true = {1, 0};
  b.seen_false = {1, 1};
  a.merge(b);
  EXPECT_EQ(a.outcomes(), 3);
  EXPECT_DOUBLE_EQ(a.fraction(), 0.75);
  EXPECT_DOUBLE_EQ(karel::Coverage(0).fraction(), 1.0);
}

// The deepest nesting of control statements in `body`.
int karel_depth(const std::vector<karel::Stmt>& body) {
  int deepest = 0;
  for (const karel::Stmt& s : body) {
    if (s.kind != karel::Stmt::Kind::kAction) {
      deepest = std::max(deepest, 1 + std::max(karel_depth(s.body), karel_depth(s.orelse)));
    }
  }
  return deepest;
}

TEST(Karel, RandomProgramsAreSeededAndReadBack) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    karel::World runs_on;
    const karel::Program p = karel::random_program(seed, {}, &runs_on);
    const std::string text = karel::to_string(p);
    // The benchmark's filter: a random world it runs on to its end.
    EXPECT_EQ(karel::run(p, runs_on).end, karel::RunResult::End::kFinished) << text;
    EXPECT_EQ(karel::to_string(karel::random_program(seed)), text);
    EXPECT_GE(p.conditionals, 1) << text;
    EXPECT_LE(karel_depth(p.body), 4) << text;  // 3, and the wrap of a program without one
    // Reading the text back numbers the conditionals as the generator did.
    std::string error;
    const std::optional<karel::Program> back = karel::parse(text, &error);
    ASSERT_TRUE(back.has_value()) << error << ": " << text;
    EXPECT_EQ(back->conditionals, p.conditionals);
    EXPECT_EQ(karel::to_string(*back), text);
    std::function<void(const std::vector<karel::Stmt>&, const std::vector<karel::Stmt>&)> same =
        [&](const std::vector<karel::Stmt>& x, const std::vector<karel::Stmt>& y) {
          ASSERT_EQ(x.size(), y.size());
          for (std::size_t i = 0; i < x.size(); ++i) {
            EXPECT_EQ(x[i].id, y[i].id) << text;
            same(x[i].body, y[i].body);
            same(x[i].orelse, y[i].orelse);
          }
        };
    same(p.body, back->body);
  }
  EXPECT_NE(karel::to_string(karel::random_program(1)), karel::to_string(karel::random_program(2)));
}

TEST(Karel, RandomWorldsPutTheHeroOnAnOpenCell) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const karel::World w = karel::random_world(seed);
    ASSERT_EQ(w.cells.size(), 64u);
    EXPECT_NE(w.at(w.x, w.y), karel::Cell::kWall);
    EXPECT_GE(w.facing, 0);
    EXPECT_LE(w.facing, 3);
    EXPECT_EQ(karel::random_world(seed).cells, w.cells);
  }
  // A 1 × 1 world whose only cell was drawn a wall is made empty for the hero.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const karel::World one = karel::random_world(seed, 1, 1);
    EXPECT_NE(one.cells[0], karel::Cell::kWall);
  }
}

TEST(KarelLazy, AsksWhereEitherOutcomeIsPossibleAndTheGridBoundsTheRest) {
  const karel::Program p =
      karel_testkit::program("DEF run m( WHILE c( frontIsClear c) w( move w) m)");
  // Always clear: seven moves north fill the 8-high grid's column; the eighth cell would not fit,
  // so it is a wall and the loop ends without an eighth question.
  karel::LazyRun run(p);
  int asked = 0;
  while (run.decision() != nullptr) {
    EXPECT_EQ(run.decision()->id, 0);
    run.choose(true);
    ++asked;
  }
  EXPECT_EQ(asked, 7);
  EXPECT_EQ(run.result().end, karel::RunResult::End::kFinished);
  EXPECT_EQ(run.result().coverage.outcomes(), 2);
  const karel::World w = run.world();
  EXPECT_EQ(w.x, 0);
  EXPECT_EQ(w.y, 7);
  EXPECT_EQ(w.facing, 0);
  const karel::RunResult again = karel::run(p, w);
  EXPECT_EQ(again.steps, run.result().steps);
  EXPECT_EQ(again.coverage.seen_true, run.result().coverage.seen_true);
  // A pick from an undecided cell puts a marker there first: no question, no error, and the
  // world has the marker.
  const karel::Program pick = karel_testkit::program(
      "DEF run m( pickMarker IF c( markersPresent c) i( move i) putMarker putMarker IF c( "
      "markersPresent c) i( turnLeft i) m)");
  karel::LazyRun picked(pick);
  EXPECT_EQ(picked.decision(), nullptr);
  EXPECT_EQ(picked.result().end, karel::RunResult::End::kFinished);
  EXPECT_EQ(picked.result().coverage.seen_false, (std::vector<char>{1, 0}));
  EXPECT_EQ(picked.result().coverage.seen_true, (std::vector<char>{0, 1}));
  const karel::World pw = picked.world();
  EXPECT_EQ(pw.at(pw.x, pw.y), karel::Cell::kMarker);
  // A marker test on an undecided cell asks, and the answer decides the cell.
  const karel::Program test =
      karel_testkit::program("DEF run m( IF c( not c( noMarkersPresent c) c) i( pickMarker i) m)");
  karel::LazyRun asks(test);
  ASSERT_NE(asks.decision(), nullptr);
  asks.choose(true);
  EXPECT_EQ(asks.decision(), nullptr);
  EXPECT_EQ(asks.world().at(asks.world().x, asks.world().y), karel::Cell::kMarker);
  EXPECT_EQ(karel::run(test, asks.world()).end, karel::RunResult::End::kFinished);
}

TEST(KarelLazy, TheWorldItMadeRunsTheSameRun) {
  std::mt19937_64 rng(7);
  int ended_with_questions = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const karel::Program p = karel::random_program(seed);
    karel::LazyRun run(p);
    while (run.decision() != nullptr) run.choose(std::bernoulli_distribution(0.5)(rng));
    if (!run.choices().empty()) ++ended_with_questions;
    const karel::RunResult again = karel::run(p, run.world());
    const std::string text = karel::to_string(p);
    EXPECT_EQ(again.end, run.result().end) << text;
    EXPECT_EQ(again.steps, run.result().steps) << text;
    EXPECT_EQ(again.coverage.seen_true, run.result().coverage.seen_true) << text;
    EXPECT_EQ(again.coverage.seen_false, run.result().coverage.seen_false) << text;
  }
  EXPECT_GT(ended_with_questions, 200);
}

}  // namespace

#endif  // PROWL_HAVE_KAREL
