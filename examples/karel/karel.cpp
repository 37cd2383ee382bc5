#include "karel.hpp"

#include <algorithm>
#include <random>
#include <utility>

namespace karel {

namespace {

constexpr std::string_view kCondNames[] = {"frontIsClear", "leftIsClear", "rightIsClear",
                                           "markersPresent", "noMarkersPresent"};
constexpr std::string_view kActionNames[] = {"move", "turnLeft", "turnRight", "pickMarker",
                                             "putMarker"};

std::vector<std::string_view> tokens_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n' && text[i] != '\t' &&
           text[i] != '\r') {
      ++i;
    }
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

// A recursive-descent reader of the token list; the first error stops it.
class Parser {
 public:
  explicit Parser(std::vector<std::string_view> tokens) : tokens_(std::move(tokens)) {}

  std::optional<Program> program(std::string* error) {
    Program p;
    if (expect("DEF") && expect("run") && expect("m(")) p.body = block("m)");
    if (ok_ && at_ < tokens_.size()) fail("the end of the program");
    if (!ok_) {
      if (error != nullptr) *error = error_;
      return std::nullopt;
    }
    p.conditionals = conditionals_;
    return p;
  }

 private:
  bool expect(std::string_view token) {
    if (!ok_) return false;
    if (at_ < tokens_.size() && tokens_[at_] == token) {
      ++at_;
      return true;
    }
    fail(std::string("\"") + std::string(token) + "\"");
    return false;
  }
  void fail(const std::string& wanted) {
    if (!ok_) return;
    ok_ = false;
    error_ = at_ < tokens_.size() ? "token " + std::to_string(at_ + 1) + " (\"" +
                                        std::string(tokens_[at_]) + "\"): expected " + wanted
                                  : "the end of the text: expected " + wanted;
  }

  std::vector<Stmt> block(std::string_view close) {
    std::vector<Stmt> body;
    while (ok_ && at_ < tokens_.size() && tokens_[at_] != close) body.push_back(statement());
    expect(close);
    return body;
  }

  // c( C c), with any number of not c( ... c) around it.
  void condition(Stmt& s) {
    if (!expect("c(")) return;
    if (at_ < tokens_.size() && tokens_[at_] == "not") {
      ++at_;
      condition(s);
      s.negated = !s.negated;
      expect("c)");
      return;
    }
    const auto* found = at_ < tokens_.size()
                            ? std::find(std::begin(kCondNames), std::end(kCondNames), tokens_[at_])
                            : std::end(kCondNames);
    if (found == std::end(kCondNames)) {
      fail(
          "a condition (frontIsClear, leftIsClear, rightIsClear, markersPresent, "
          "noMarkersPresent or not)");
      return;
    }
    s.cond = static_cast<Cond>(found - std::begin(kCondNames));
    ++at_;
    expect("c)");
  }

  Stmt statement() {
    Stmt s;
    const std::string_view t = tokens_[at_];
    const auto* action = std::find(std::begin(kActionNames), std::end(kActionNames), t);
    if (action != std::end(kActionNames)) {
      ++at_;
      s.action = static_cast<Action>(action - std::begin(kActionNames));
      return s;
    }
    if (t != "IF" && t != "IFELSE" && t != "WHILE" && t != "REPEAT") {
      fail("a statement (an action, IF, IFELSE, WHILE or REPEAT)");
      return s;
    }
    ++at_;
    if (t != "REPEAT") {
      s.kind = t == "IF"       ? Stmt::Kind::kIf
               : t == "IFELSE" ? Stmt::Kind::kIfElse
                               : Stmt::Kind::kWhile;
      s.id = conditionals_++;
      condition(s);
      const bool loop = s.kind == Stmt::Kind::kWhile;
      if (expect(loop ? "w(" : "i(")) s.body = block(loop ? "w)" : "i)");
      if (s.kind == Stmt::Kind::kIfElse && expect("ELSE") && expect("e(")) s.orelse = block("e)");
      return s;
    }
    s.kind = Stmt::Kind::kRepeat;
    const std::string_view r = at_ < tokens_.size() ? tokens_[at_] : std::string_view();
    if (r.size() >= 3 && r.size() <= 4 && r.substr(0, 2) == "R=" &&
        std::all_of(r.begin() + 2, r.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      s.times = std::stoi(std::string(r.substr(2)));
    }
    if (s.times < 2 || s.times > 10) {
      fail("R=K with K from 2 to 10");
      return s;
    }
    ++at_;
    if (expect("r(")) s.body = block("r)");
    return s;
  }

  std::vector<std::string_view> tokens_;
  std::size_t at_ = 0;
  int conditionals_ = 0;
  bool ok_ = true;
  std::string error_;
};

void write_cond(const Stmt& s, std::string& out) {
  out += "c( ";
  if (s.negated) out += "not c( ";
  out += kCondNames[static_cast<int>(s.cond)];
  out += s.negated ? " c) c) " : " c) ";
}

void write_block(const std::vector<Stmt>& body, std::string& out) {
  for (const Stmt& s : body) {
    switch (s.kind) {
      case Stmt::Kind::kAction:
        out += kActionNames[static_cast<int>(s.action)];
        out += ' ';
        break;
      case Stmt::Kind::kIf:
      case Stmt::Kind::kIfElse:
        out += s.kind == Stmt::Kind::kIf ? "IF " : "IFELSE ";
        write_cond(s, out);
        out += "i( ";
        write_block(s.body, out);
        out += "i) ";
        if (s.kind == Stmt::Kind::kIfElse) {
          out += "ELSE e( ";
          write_block(s.orelse, out);
          out += "e) ";
        }
        break;
      case Stmt::Kind::kWhile:
        out += "WHILE ";
        write_cond(s, out);
        out += "w( ";
        write_block(s.body, out);
        out += "w) ";
        break;
      case Stmt::Kind::kRepeat:
        out += "REPEAT R=" + std::to_string(s.times) + " r( ";
        write_block(s.body, out);
        out += "r) ";
        break;
    }
  }
}

// The cells of a given world, as a run changes them: markers per cell, walls as -1.
class FixedGrid {
 public:
  explicit FixedGrid(const World& world) : width_(world.width), height_(world.height) {
    markers_.reserve(world.cells.size());
    for (Cell c : world.cells) markers_.push_back(static_cast<int>(c));
  }
  std::optional<bool> clear(int x, int y) const {
    return inside(x, y) && markers_[index(x, y)] >= 0;
  }
  std::optional<int> markers(int x, int y) const { return markers_[index(x, y)]; }
  void set_clear(int, int, bool) {}
  void set_markers(int, int, int) {}
  bool enter(int x, int y) { return *clear(x, y); }
  bool pick(int x, int y) { return markers_[index(x, y)] > 0 && (--markers_[index(x, y)], true); }
  bool put(int x, int y) {
    return markers_[index(x, y)] < kMaxMarkers && (++markers_[index(x, y)], true);
  }

 private:
  bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }
  std::size_t index(int x, int y) const { return static_cast<std::size_t>(y * width_ + x); }

  int width_, height_;
  std::vector<int> markers_;
};

// One run of a program over a grid (FixedGrid, or LazyRun's LazyGrid). Where the grid cannot
// say what a condition reads (nullopt), the run takes the next of `choices`, the condition's
// outcome, and tells the grid; when none is left it stops there (suspended()).
template <typename Grid>
class Machine {
 public:
  Machine(Grid& grid, int conditionals, int x, int y, int facing,
          const std::vector<bool>* choices = nullptr)
      : grid_(grid), choices_(choices), x_(x), y_(y), facing_(facing) {
    result_.coverage = Coverage(conditionals);
  }

  RunResult run(const Program& program) {
    block(program.body);
    result_.steps = steps_;
    return std::move(result_);
  }
  // The conditional the run stopped at for want of a choice (else nullptr).
  const Stmt* suspended() const { return suspended_; }

 private:
  bool running() const { return result_.end == RunResult::End::kFinished && !suspended_; }
  // Counts one step; false (and the run ends) when the limit is spent.
  bool tick() {
    if (!running()) return false;
    if (steps_ == kMaxSteps) {
      result_.end = RunResult::End::kStepLimit;
      return false;
    }
    ++steps_;
    return true;
  }
  // The next choice, or nullopt (and the run is suspended at s) when there is none.
  std::optional<bool> choice(const Stmt& s) {
    if (choices_ == nullptr || used_ == choices_->size()) {
      suspended_ = &s;
      return std::nullopt;
    }
    return (*choices_)[used_++];
  }

  // The condition's value before negation, choosing it where the grid cannot say.
  std::optional<bool> read(const Stmt& s) {
    const bool markers = s.cond == Cond::kMarkersPresent || s.cond == Cond::kNoMarkersPresent;
    if (markers) {
      std::optional<int> count = grid_.markers(x_, y_);
      if (!count) {
        const std::optional<bool> outcome = choice(s);
        if (!outcome) return std::nullopt;
        // The outcome with negation undone, as markersPresent.
        const bool present = (*outcome != s.negated) == (s.cond == Cond::kMarkersPresent);
        grid_.set_markers(x_, y_, present ? 1 : 0);
        count = grid_.markers(x_, y_);
      }
      return s.cond == Cond::kMarkersPresent ? *count > 0 : *count == 0;
    }
    const int direction = looked_at(s.cond, facing_);
    const int nx = x_ + kDx[direction], ny = y_ + kDy[direction];
    std::optional<bool> clear = grid_.clear(nx, ny);
    if (!clear) {
      clear = choice(s);
      if (!clear) return std::nullopt;
      clear = *clear != s.negated;
      grid_.set_clear(nx, ny, *clear);
    }
    return clear;
  }

  // Evaluates the statement's condition as one step and records its outcome; nullopt when the
  // run ended or stopped for a choice.
  std::optional<bool> test(const Stmt& s) {
    if (!tick()) return std::nullopt;
    std::optional<bool> value = read(s);
    if (!value) return std::nullopt;
    if (s.negated) value = !*value;
    auto& seen = *value ? result_.coverage.seen_true : result_.coverage.seen_false;
    seen[static_cast<std::size_t>(s.id)] = 1;
    return value;
  }

  void act(Action a) {
    if (!tick()) return;
    bool ok = true;
    switch (a) {
      case Action::kMove:
        ok = grid_.enter(x_ + kDx[facing_], y_ + kDy[facing_]);
        if (ok) {
          x_ += kDx[facing_];
          y_ += kDy[facing_];
        }
        break;
      case Action::kTurnLeft:
      case Action::kTurnRight:
        facing_ = turned(a, facing_);
        break;
      case Action::kPickMarker:
        ok = grid_.pick(x_, y_);
        break;
      case Action::kPutMarker:
        ok = grid_.put(x_, y_);
        break;
    }
    if (!ok) result_.end = RunResult::End::kError;
  }

  void block(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) {
      if (!running()) return;
      statement(s);
    }
  }

  void statement(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::kAction:
        act(s.action);
        return;
      case Stmt::Kind::kIf:
      case Stmt::Kind::kIfElse: {
        const std::optional<bool> value = test(s);
        if (!value) return;
        if (*value) {
          block(s.body);
        } else {
          block(s.orelse);  // empty for kIf
        }
        return;
      }
      case Stmt::Kind::kWhile:
        for (std::optional<bool> value = test(s); value && *value && running(); value = test(s)) {
          block(s.body);
          if (!running()) return;
        }
        return;
      case Stmt::Kind::kRepeat:
        if (!tick()) return;
        for (int i = 0; i < s.times && running(); ++i) block(s.body);
        return;
    }
  }

  Grid& grid_;
  const std::vector<bool>* choices_;
  std::size_t used_ = 0;
  const Stmt* suspended_ = nullptr;
  RunResult result_;
  int x_, y_, facing_;
  int steps_ = 0;
};

// The generator's state: the seeded engine and the conditionals numbered so far.
class Generator {
 public:
  Generator(std::uint64_t seed, const GeneratorOptions& options) : rng_(seed), options_(options) {}

  Program program() {
    Program p;
    const int n = uniform(1, std::max(1, options_.max_statements));
    for (int i = 0; i < n; ++i) p.body.push_back(statement(1));
    if (conditionals_ == 0) {
      // At least one conditional: the last statement becomes one wrapping what it was.
      Stmt wrap = conditional();
      wrap.body = {std::move(p.body.back())};
      p.body.back() = std::move(wrap);
    }
    p.conditionals = conditionals_;
    renumber(p.body);
    return p;
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  std::vector<Stmt> body(int depth) {
    std::vector<Stmt> out;
    const int n = uniform(1, 3);
    for (int i = 0; i < n; ++i) out.push_back(statement(depth + 1));
    return out;
  }

  Stmt conditional() {
    Stmt s;
    const int kind = uniform(0, 2);
    s.kind = kind == 0 ? Stmt::Kind::kIf : kind == 1 ? Stmt::Kind::kIfElse : Stmt::Kind::kWhile;
    s.cond = static_cast<Cond>(uniform(0, 4));
    s.negated = chance(0.2);
    s.id = conditionals_++;
    return s;
  }

  Stmt statement(int depth) {
    if (depth <= options_.max_depth && chance(options_.control)) {
      if (chance(0.25)) {
        Stmt s;
        s.kind = Stmt::Kind::kRepeat;
        s.times = uniform(2, 10);
        s.body = body(depth);
        return s;
      }
      Stmt s = conditional();
      s.body = body(depth);
      if (s.kind == Stmt::Kind::kIfElse) s.orelse = body(depth);
      return s;
    }
    Stmt s;
    s.action = static_cast<Action>(uniform(0, 4));
    return s;
  }

  // Ids in the order of the text (the wrap above took its id last).
  void renumber(std::vector<Stmt>& body) {
    for (Stmt& s : body) {
      if (s.kind == Stmt::Kind::kIf || s.kind == Stmt::Kind::kIfElse ||
          s.kind == Stmt::Kind::kWhile) {
        s.id = next_id_++;
      }
      renumber(s.body);
      renumber(s.orelse);
    }
  }

  std::mt19937_64 rng_;
  GeneratorOptions options_;
  int conditionals_ = 0;
  int next_id_ = 0;
};

}  // namespace

// A LazyRun's cells, by position relative to the hero's start: undecided, a wall, or open with
// a first marker count (-1 while undecided) and what the run put and picked there since.
struct LazyRun::Grid {
  enum class State : std::int8_t { kUndecided, kWall, kOpen };
  struct Square {
    State state = State::kUndecided;
    int initial = -1;
    int delta = 0;
  };

  Grid(int grid_width, int grid_height)
      : width(grid_width),
        height(grid_height),
        squares(static_cast<std::size_t>((2 * width + 1) * (2 * height + 1))) {
    set_clear(0, 0, true);
  }

  // Off the array is farther than any grid reaches from the start.
  Square* at(int x, int y) {
    if (x < -width || x > width || y < -height || y > height) return nullptr;
    return &squares[static_cast<std::size_t>((y + height) * (2 * width + 1) + x + width)];
  }
  bool fits(int x, int y) const {
    return std::max(max_x, x) - std::min(min_x, x) < width &&
           std::max(max_y, y) - std::min(min_y, y) < height;
  }

  std::optional<bool> clear(int x, int y) {
    Square* sq = at(x, y);
    if (sq != nullptr && sq->state != State::kUndecided) return sq->state == State::kOpen;
    if (sq == nullptr || !fits(x, y)) {
      if (sq != nullptr) sq->state = State::kWall;
      return false;
    }
    return std::nullopt;
  }
  void set_clear(int x, int y, bool open) {
    Square* sq = at(x, y);
    sq->state = open ? State::kOpen : State::kWall;
    if (!open) return;
    min_x = std::min(min_x, x);
    max_x = std::max(max_x, x);
    min_y = std::min(min_y, y);
    max_y = std::max(max_y, y);
  }
  // The hero's square is open. While its first count is undecided, what was put there since (the
  // tests read > 0 and == 0 alike for a first count of 0 or 1 once something was put).
  std::optional<int> markers(int x, int y) {
    const Square& sq = *at(x, y);
    if (sq.initial < 0) return sq.delta == 0 ? std::nullopt : std::optional<int>(sq.delta);
    return sq.initial + sq.delta;
  }
  void set_markers(int x, int y, int initial) { at(x, y)->initial = initial; }
  bool enter(int x, int y) {
    const std::optional<bool> open = clear(x, y);
    if (open) return *open;
    set_clear(x, y, true);
    return true;
  }
  bool pick(int x, int y) {
    Square& sq = *at(x, y);
    if (sq.initial < 0 && sq.delta == 0) sq.initial = 1;
    if (sq.initial >= 0 && sq.initial + sq.delta == 0) return false;
    --sq.delta;
    return true;
  }
  bool put(int x, int y) {
    Square& sq = *at(x, y);
    if (sq.initial < 0 && sq.delta == kMaxMarkers - 1) sq.initial = 0;
    if (sq.initial >= 0 && sq.initial + sq.delta == kMaxMarkers) return false;
    if (sq.initial < 0 && sq.delta == kMaxMarkers) return false;
    ++sq.delta;
    return true;
  }

  int width, height;
  std::vector<Square> squares;
  int min_x = 0, max_x = 0, min_y = 0, max_y = 0;  // the open squares' box
};

LazyRun::LazyRun(const Program& program, int width, int height)
    : program_(program), width_(width), height_(height) {
  advance();
}

LazyRun::~LazyRun() = default;

void LazyRun::choose(bool outcome) {
  choices_.push_back(outcome);
  advance();
}

void LazyRun::advance() {
  grid_ = std::make_unique<Grid>(width_, height_);
  Machine<Grid> machine(*grid_, program_.conditionals, 0, 0, 0, &choices_);
  result_ = machine.run(program_);
  decision_ = machine.suspended();
}

World LazyRun::world() const {
  World w;
  w.width = width_;
  w.height = height_;
  w.cells.assign(static_cast<std::size_t>(width_ * height_), Cell::kEmpty);
  w.x = -grid_->min_x;
  w.y = -grid_->min_y;
  w.facing = 0;
  for (int y = 0; y < height_; ++y) {
    for (int x = 0; x < width_; ++x) {
      const Grid::Square* sq = grid_->at(x - w.x, y - w.y);
      if (sq == nullptr) continue;
      Cell& cell = w.cells[static_cast<std::size_t>(y * width_ + x)];
      if (sq->state == Grid::State::kWall) cell = Cell::kWall;
      if (sq->state == Grid::State::kOpen && sq->initial == 1) cell = Cell::kMarker;
    }
  }
  return w;
}

std::optional<Program> parse(std::string_view text, std::string* error) {
  return Parser(tokens_of(text)).program(error);
}

std::string to_string(const Program& program) {
  std::string out = "DEF run m( ";
  write_block(program.body, out);
  out += "m)";
  return out;
}

double Coverage::fraction() const {
  if (seen_true.empty()) return 1.0;
  return static_cast<double>(outcomes()) / static_cast<double>(2 * seen_true.size());
}

int Coverage::outcomes() const {
  return static_cast<int>(std::count(seen_true.begin(), seen_true.end(), 1) +
                          std::count(seen_false.begin(), seen_false.end(), 1));
}

void Coverage::merge(const Coverage& other) {
  for (std::size_t i = 0; i < seen_true.size() && i < other.seen_true.size(); ++i) {
    seen_true[i] = static_cast<char>(seen_true[i] | other.seen_true[i]);
    seen_false[i] = static_cast<char>(seen_false[i] | other.seen_false[i]);
  }
}

RunResult run(const Program& program, const World& world) {
  FixedGrid grid(world);
  return Machine<FixedGrid>(grid, program.conditionals, world.x, world.y, world.facing)
      .run(program);
}

Program random_program(std::uint64_t seed, const GeneratorOptions& options, World* runs_on) {
  std::mt19937_64 draws(seed);
  for (;;) {
    Program p = Generator(draws(), options).program();
    for (int w = 0; w < options.worlds; ++w) {
      World world = random_world(draws());
      if (run(p, world).end != RunResult::End::kFinished) continue;
      if (runs_on != nullptr) *runs_on = std::move(world);
      return p;
    }
  }
}

World random_world(std::uint64_t seed, int width, int height) {
  std::mt19937_64 rng(seed);
  World w;
  w.width = width;
  w.height = height;
  w.cells.resize(static_cast<std::size_t>(width * height));
  std::uniform_int_distribution<int> cell(-1, 1);
  for (Cell& c : w.cells) c = static_cast<Cell>(cell(rng));
  std::vector<int> open;
  for (int i = 0; i < width * height; ++i) {
    if (w.cells[static_cast<std::size_t>(i)] != Cell::kWall) open.push_back(i);
  }
  int start = 0;
  if (open.empty()) {
    start = std::uniform_int_distribution<int>(0, width * height - 1)(rng);
    w.cells[static_cast<std::size_t>(start)] = Cell::kEmpty;
  } else {
    start = open[std::uniform_int_distribution<std::size_t>(0, open.size() - 1)(rng)];
  }
  w.x = start % width;
  w.y = start / width;
  w.facing = std::uniform_int_distribution<int>(0, 3)(rng);
  return w;
}

}  // namespace karel
