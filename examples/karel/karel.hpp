// Karel (docs/learned.md, "Karel program testing"; seed 002, §4.2 and App. B.2-B.3): the
// educational language of the Karel benchmark, an interpreter for it, a generator of random
// programs, and branch coverage: the share of the programs' conditionals (if, ifelse, while)
// whose condition an input made both true and false. A test input is a world: a grid of cells,
// each a wall, empty or holding one marker (the paper's s_ij in {-1, 0, 1}), and the hero's cell
// and facing.
//
// The language, in the benchmark's tokens:
//   DEF run m( S m)
//   S: a sequence of move, turnLeft, turnRight, pickMarker, putMarker,
//      IF c( C c) i( S i), IFELSE c( C c) i( S i) ELSE e( S e), WHILE c( C c) w( S w),
//      REPEAT R=K r( S r)  (K from 2 to 10)
//   C: frontIsClear, leftIsClear, rightIsClear, markersPresent, noMarkersPresent, not c( C c)
// Semantics: move steps to the cell in front (an error when it is a wall or off the grid);
// pickMarker takes a marker (an error when there is none); putMarker adds one (an error at
// kMaxMarkers). An error ends the run; so does the step limit (kMaxSteps statements executed,
// the benchmark's guard against endless loops). Outcomes reached before the end count.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace karel {

inline constexpr int kMaxMarkers = 10;
inline constexpr int kMaxSteps = 1000;

enum class Cond { kFrontIsClear, kLeftIsClear, kRightIsClear, kMarkersPresent, kNoMarkersPresent };
enum class Action { kMove, kTurnLeft, kTurnRight, kPickMarker, kPutMarker };

// Directions: 0 north, 1 east, 2 south, 3 west; a step toward d moves by (kDx[d], kDy[d]), y
// growing southward. The interpreter and the Z3 path search both turn and look by these.
inline constexpr int kDx[] = {0, 1, 0, -1};
inline constexpr int kDy[] = {-1, 0, 1, 0};
// The direction after turning left (kTurnLeft) or right (any other action) from `facing`.
inline constexpr int turned(Action turn, int facing) {
  return (facing + (turn == Action::kTurnLeft ? 3 : 1)) % 4;
}
// The direction a wall condition (front, left or right is clear) looks in, facing `facing`.
inline constexpr int looked_at(Cond wall, int facing) {
  return wall == Cond::kFrontIsClear  ? facing
         : wall == Cond::kLeftIsClear ? turned(Action::kTurnLeft, facing)
                                      : turned(Action::kTurnRight, facing);
}

// A program as a tree of statements. A conditional's `id` numbers it among the program's
// conditionals (0, 1, ... in the order of the text), the index of its two outcomes in a Coverage.
struct Stmt {
  enum class Kind { kAction, kIf, kIfElse, kWhile, kRepeat };
  Kind kind = Kind::kAction;
  Action action = Action::kMove;  // kAction
  Cond cond = Cond::kFrontIsClear;
  bool negated = false;  // not c( cond c)
  int times = 0;         // kRepeat
  int id = -1;           // kIf, kIfElse, kWhile
  std::vector<Stmt> body;
  std::vector<Stmt> orelse;  // kIfElse
};

struct Program {
  std::vector<Stmt> body;
  int conditionals = 0;
};

// Parses the benchmark's tokens (whitespace-separated); on an error, nullopt and *error says
// which token and what was expected.
std::optional<Program> parse(std::string_view text, std::string* error);
std::string to_string(const Program& program);

// A cell of the input world.
enum class Cell : std::int8_t { kWall = -1, kEmpty = 0, kMarker = 1 };
// Facing: 0 north (y - 1), 1 east (x + 1), 2 south (y + 1), 3 west (x - 1); turnLeft is -1.
struct World {
  int width = 8;
  int height = 8;
  std::vector<Cell> cells;  // row by row: cells[y * width + x]
  int x = 0, y = 0, facing = 0;

  Cell at(int cx, int cy) const { return cells[static_cast<std::size_t>(cy * width + cx)]; }
};

// What one run covered: by conditional, whether its condition was seen true and seen false.
struct Coverage {
  std::vector<char> seen_true, seen_false;
  explicit Coverage(int conditionals = 0)
      : seen_true(static_cast<std::size_t>(conditionals), 0),
        seen_false(static_cast<std::size_t>(conditionals), 0) {}
  // Outcomes seen over 2 × conditionals (1 for a program without conditionals).
  double fraction() const;
  int outcomes() const;
  void merge(const Coverage& other);
};

struct RunResult {
  enum class End { kFinished, kError, kStepLimit };
  End end = End::kFinished;
  Coverage coverage;
  int steps = 0;
};

// Runs `program` on `world` (the hero's cell must not be a wall).
RunResult run(const Program& program, const World& world);

// A random program, seeded, of the benchmark's shape: a body of 1 to `max_statements`
// statements at the top level, control statements nested at most `max_depth` deep, and at least
// one conditional (so that coverage means something). As the benchmark's programs come with
// worlds they run on without an error, a program is kept only when one of `worlds` random worlds
// runs it to its end (else another is drawn); `runs_on` gets that world.
struct GeneratorOptions {
  int max_statements = 6;
  int max_depth = 3;
  double control = 0.4;  // the chance a statement is a control statement (depth permitting)
  int worlds = 16;
};
Program random_program(std::uint64_t seed, const GeneratorOptions& options = {},
                       World* runs_on = nullptr);

// A run whose world is made as the program reads it: the cells start undecided, the hero's open
// (at the grid's place the run's cells end up needing, facing north: the conditions are relative
// to the facing, so a world turned is the same test). Where a condition reads an undecided cell
// and either outcome is possible, the run stops and asks for the outcome (decision(), choose());
// what only one outcome allows is made without asking: a move into an undecided cell opens it, a
// pick from one puts a marker there first (an error ends a run, which never covers more), and a
// cell that would not fit the grid with the run's open cells is a wall. Each choice runs the
// program again from its start, with the choices so far.
class LazyRun {
 public:
  LazyRun(const Program& program, int width = 8, int height = 8);
  LazyRun(const LazyRun&) = delete;
  LazyRun& operator=(const LazyRun&) = delete;
  ~LazyRun();

  // The conditional whose outcome is to be chosen; nullptr when the run has ended.
  const Stmt* decision() const { return decision_; }
  // REQUIRES: decision() != nullptr.
  void choose(bool outcome);
  // The run so far (all of it once ended): its coverage, steps and how it ended.
  const RunResult& result() const { return result_; }
  const std::vector<bool>& choices() const { return choices_; }
  // The world the run made: its cells in the grid, the undecided ones empty; run() on it makes
  // the same run (an ended one's coverage, steps and end).
  World world() const;

 private:
  struct Grid;
  void advance();

  const Program& program_;
  int width_, height_;
  std::vector<bool> choices_;
  std::unique_ptr<Grid> grid_;
  RunResult result_;
  const Stmt* decision_ = nullptr;
};

// A random world: each cell uniformly a wall, empty or a marker, the hero on a random non-wall
// cell (one is made empty when all are walls), facing at random.
World random_world(std::uint64_t seed, int width = 8, int height = 8);

}  // namespace karel
