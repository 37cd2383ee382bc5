#include "karel_paths.hpp"

#include <z3++.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace karel {

namespace {

// One statement executed on a path: an action, or a conditional's test with its outcome.
struct Event {
  const Stmt* stmt;
  bool outcome;  // a test's
};

struct Candidate {
  int score = 0;
  int order = 0;  // among the complete paths, in the order of enumeration
  std::vector<Event> events;
};

// The ranking: the higher score first, then the earlier path.
bool better(const Candidate& a, const Candidate& b) {
  return a.score != b.score ? a.score > b.score : a.order < b.order;
}

bool is_conditional(const Stmt& s) {
  return s.kind == Stmt::Kind::kIf || s.kind == Stmt::Kind::kIfElse || s.kind == Stmt::Kind::kWhile;
}

// Nested REPEATs multiply; any count above kMaxSteps means "too many".
int capped(std::int64_t steps) {
  return static_cast<int>(std::min<std::int64_t>(steps, kMaxSteps + 1));
}

// The depth-first walk over the program's paths, keeping the top_paths best-ranked complete ones.
// A partial path is explored only when its cheapest completion (every condition false, the
// cheaper arm of an IFELSE) fits in kMaxSteps, so every branch taken leads to a complete path and
// the work is bounded by the max_paths complete ones, however many paths the step limit drops.
class Enumerator {
 public:
  Enumerator(const Program& program, const PathSearchOptions& options, PathSearchResult& result)
      : program_(program),
        options_(options),
        result_(result),
        seen_(2 * static_cast<std::size_t>(program.conditionals), 0) {
    fewest(program.body);
  }

  // The kept paths, best first.
  std::vector<Candidate> ranked() {
    const std::vector<Frame> start = {Frame{&program_.body, 0, nullptr, 0}};
    if (rest(start) <= kMaxSteps) walk(start, 0);
    std::sort_heap(kept_.begin(), kept_.end(), better);
    return std::move(kept_);
  }

 private:
  // A block being executed: the next statement, and the loop whose body it is, with for a WHILE
  // the iterations begun and for a REPEAT the repetitions left after this one.
  struct Frame {
    const std::vector<Stmt>* block;
    std::size_t next;
    const Stmt* loop;
    int count;
  };

  // Fills suffix_[&block][i], the fewest steps of block[i..], for `block` and the blocks in it.
  int fewest(const std::vector<Stmt>& block) {
    std::vector<int> suffix(block.size() + 1, 0);
    for (std::size_t i = block.size(); i-- > 0;) {
      const Stmt& s = block[i];
      int own = 1;
      const int body = fewest(s.body);
      const int orelse = fewest(s.orelse);
      if (s.kind == Stmt::Kind::kIfElse) own = capped(1 + std::int64_t{std::min(body, orelse)});
      if (s.kind == Stmt::Kind::kRepeat) own = capped(1 + std::int64_t{s.times} * body);
      suffix[i] = capped(std::int64_t{own} + suffix[i + 1]);
    }
    const int all = suffix[0];
    suffix_[&block] = std::move(suffix);
    return all;
  }

  // The fewest steps to finish from `frames`.
  int rest(const std::vector<Frame>& frames) const {
    std::int64_t steps = 0;
    for (const Frame& f : frames) {
      steps += suffix_.at(f.block)[f.next];
      if (f.loop != nullptr && f.loop->kind == Stmt::Kind::kWhile) steps += 1;  // the last test
      if (f.loop != nullptr && f.loop->kind == Stmt::Kind::kRepeat) {
        steps += std::int64_t{f.count} * suffix_.at(&f.loop->body)[0];
      }
      if (steps > kMaxSteps) break;
    }
    return capped(steps);
  }

  // Follows the path from `frames` (innermost last), `steps` taken, up to its next split.
  void walk(std::vector<Frame> frames, int steps) {
    const std::size_t mark = events_.size();
    for (;;) {
      if (frames.empty()) {
        complete();
        break;
      }
      Frame& top = frames.back();
      if (top.next == top.block->size()) {
        const Stmt* loop = top.loop;
        if (loop != nullptr && loop->kind == Stmt::Kind::kRepeat && top.count > 0) {
          --top.count;
          top.next = 0;
          continue;
        }
        const int done = top.count;
        frames.pop_back();
        if (loop == nullptr || loop->kind != Stmt::Kind::kWhile) continue;
        split(frames, steps, *loop, done < options_.max_unroll,
              Frame{&loop->body, 0, loop, done + 1});
        break;
      }
      const Stmt& s = (*top.block)[top.next++];
      if (s.kind == Stmt::Kind::kAction) {
        ++steps;
        events_.push_back(Event{&s, false});
        continue;
      }
      if (s.kind == Stmt::Kind::kRepeat) {
        ++steps;
        if (s.times > 0) frames.push_back(Frame{&s.body, 0, &s, s.times - 1});
        continue;
      }
      const Stmt* loop = s.kind == Stmt::Kind::kWhile ? &s : nullptr;
      split(frames, steps, s, s.kind != Stmt::Kind::kWhile || options_.max_unroll > 0,
            Frame{&s.body, 0, loop, 1});
      break;
    }
    events_.resize(mark);
  }

  // The test of conditional `s`: the path goes on with its true outcome into `if_true` (when
  // `can_be_true`), then with its false one.
  void split(const std::vector<Frame>& frames, int steps, const Stmt& s, bool can_be_true,
             const Frame& if_true) {
    for (const bool outcome : {true, false}) {
      if (stopped_ || (outcome && !can_be_true)) continue;
      std::vector<Frame> next = frames;
      if (outcome) next.push_back(if_true);
      if (!outcome && s.kind != Stmt::Kind::kWhile) next.push_back(Frame{&s.orelse, 0, nullptr, 0});
      if (steps + 1 + rest(next) > kMaxSteps) continue;
      int& seen = seen_[2 * static_cast<std::size_t>(s.id) + (outcome ? 1 : 0)];
      if (seen++ == 0) ++distinct_;
      events_.push_back(Event{&s, outcome});
      walk(std::move(next), steps + 1);
      events_.pop_back();
      if (--seen == 0) --distinct_;
    }
  }

  void complete() {
    if (static_cast<std::size_t>(result_.paths) == options_.max_paths) {
      result_.truncated = true;
      stopped_ = true;
      return;
    }
    const int order = result_.paths++;
    const std::size_t top = static_cast<std::size_t>(std::max(options_.top_paths, 0));
    if (top == 0) return;
    // A later path displaces a kept one only with a higher score.
    if (kept_.size() == top && distinct_ <= kept_.front().score) return;
    if (kept_.size() == top) {
      std::pop_heap(kept_.begin(), kept_.end(), better);
      kept_.pop_back();
    }
    kept_.push_back(Candidate{distinct_, order, events_});
    std::push_heap(kept_.begin(), kept_.end(), better);
  }

  const Program& program_;
  const PathSearchOptions& options_;
  PathSearchResult& result_;
  std::unordered_map<const std::vector<Stmt>*, std::vector<int>> suffix_;
  std::vector<Event> events_;    // the path so far
  std::vector<int> seen_;        // per outcome (2 × id + true), how often on the path so far
  int distinct_ = 0;             // outcomes on the path so far
  std::vector<Candidate> kept_;  // a heap, the worst-ranked on top
  bool stopped_ = false;
};

// The symbolic input world and the checks of paths against it. A path fixes its actions, so for
// each initial facing the hero's displacement from the start, and the markers it put or picked at
// each cell it displaced to, are known numbers: a value known per facing is a 4-way if-then-else
// on f, and the only symbolic cell index is the start's plus such an offset.
class Checker {
 public:
  explicit Checker(const PathSearchOptions& options)
      : width_(options.width),
        height_(options.height),
        solver_(context_),
        x0_(context_.int_const("hx")),
        y0_(context_.int_const("hy")),
        f0_(context_.int_const("f")),
        cells_(context_),
        grid_(context_.constant("grid",
                                context_.array_sort(context_.int_sort(), context_.int_sort()))) {
    z3::params params(context_);
    params.set("timeout", options.check_timeout_ms);
    solver_.set(params);
    for (int i = 0; i < width_ * height_; ++i) {
      cells_.push_back(context_.int_const(("s" + std::to_string(i)).c_str()));
      solver_.add(cells_.back() >= -1 && cells_.back() <= 1 &&
                  z3::select(grid_, i) == cells_.back());
    }
    solver_.add(x0_ >= 0 && x0_ < width_ && y0_ >= 0 && y0_ < height_ && f0_ >= 0 && f0_ <= 3);
    solver_.add(cell(Offset{}) != -1);
  }

  // An input that follows `path`; nullopt when there is none (or the check timed out).
  std::optional<World> check(const std::vector<Event>& path) {
    solver_.push();
    Offset at;
    int turns = 0;                              // right turns, mod 4, since the start
    std::map<std::pair<int, int>, int> put[4];  // by facing: the markers put less those picked
    const auto markers = [&] {
      PerFacing net{};
      for (int f = 0; f < 4; ++f) net[f] = put[f][{at.x[f], at.y[f]}];
      return cell(at) + by_facing(net);
    };
    for (const Event& e : path) {
      const Stmt& s = *e.stmt;
      if (s.kind != Stmt::Kind::kAction) {
        const bool wall = s.cond == Cond::kFrontIsClear || s.cond == Cond::kLeftIsClear ||
                          s.cond == Cond::kRightIsClear;
        const z3::expr c = wall ? clear(ahead(at, looked_at(s.cond, turns)))
                           : s.cond == Cond::kMarkersPresent ? markers() > 0
                                                             : markers() == 0;
        solver_.add(e.outcome != s.negated ? c : !c);
        continue;
      }
      switch (s.action) {
        case Action::kMove:
          at = ahead(at, turns);
          solver_.add(clear(at));
          break;
        case Action::kTurnLeft:
        case Action::kTurnRight:
          turns = turned(s.action, turns);
          break;
        case Action::kPickMarker:
        case Action::kPutMarker: {
          const bool pick = s.action == Action::kPickMarker;
          solver_.add(pick ? markers() > 0 : markers() < kMaxMarkers);
          for (int f = 0; f < 4; ++f) put[f][{at.x[f], at.y[f]}] += pick ? -1 : 1;
          break;
        }
      }
    }
    std::optional<World> out;
    if (solver_.check() == z3::sat) out = world(solver_.get_model());
    solver_.pop();
    return out;
  }

 private:
  using PerFacing = std::array<int, 4>;
  // The hero's displacement from the start, by initial facing.
  struct Offset {
    PerFacing x{}, y{};
  };

  // The cell next to `at` in the direction `turns` right of the initial facing.
  static Offset ahead(const Offset& at, int turns) {
    Offset out = at;
    for (int f = 0; f < 4; ++f) {
      out.x[f] += kDx[(f + turns) % 4];
      out.y[f] += kDy[(f + turns) % 4];
    }
    return out;
  }

  z3::expr by_facing(const PerFacing& v) {
    if (std::all_of(v.begin(), v.end(), [&](int a) { return a == v[0]; })) {
      return context_.int_val(v[0]);
    }
    z3::expr out = context_.int_val(v[3]);
    for (int f = 2; f >= 0; --f) out = z3::ite(f0_ == f, context_.int_val(v[f]), out);
    return out;
  }

  // The initial cell at `at`. It is said to be in {-1, 0, 1} (sound whatever the index: on the
  // grid the select is one of the s_i, off it the array is free), which spares the solver
  // splitting on the index to find out: a path picking more markers than a cell holds is refuted
  // at once, and checks run 3 times faster than with an if-then-else over the cells.
  z3::expr cell(const Offset& at) {
    PerFacing offset{};
    for (int f = 0; f < 4; ++f) offset[f] = at.y[f] * width_ + at.x[f];
    const z3::expr out = z3::select(grid_, y0_ * width_ + x0_ + by_facing(offset));
    solver_.add(out >= -1 && out <= 1);
    return out;
  }

  // Whether `at` is on the grid and not a wall.
  z3::expr clear(const Offset& at) {
    const z3::expr x = x0_ + by_facing(at.x), y = y0_ + by_facing(at.y);
    return x >= 0 && x < width_ && y >= 0 && y < height_ && cell(at) != -1;
  }

  World world(const z3::model& model) {
    const auto value = [&](const z3::expr& e) { return model.eval(e, true).get_numeral_int(); };
    World w;
    w.width = width_;
    w.height = height_;
    for (const z3::expr& s : cells_) w.cells.push_back(static_cast<Cell>(value(s)));
    w.x = value(x0_);
    w.y = value(y0_);
    w.facing = value(f0_);
    return w;
  }

  int width_, height_;
  z3::context context_;
  z3::solver solver_;
  z3::expr x0_, y0_, f0_;  // the hero at the start
  z3::expr_vector cells_;  // s_i: -1 a wall, 0 empty, 1 a marker
  z3::expr grid_;          // cell index -> s_i
};

}  // namespace

PathSearchResult search_paths(const Program& program, const PathSearchOptions& options) {
  PathSearchResult result;
  const std::vector<Candidate> ranked = Enumerator(program, options, result).ranked();
  if (ranked.empty()) return result;
  Checker checker(options);
  for (const Candidate& c : ranked) {
    ++result.checked;
    std::optional<World> input = checker.check(c.events);
    if (!input) continue;
    Coverage covered(program.conditionals);
    for (const Event& e : c.events) {
      if (!is_conditional(*e.stmt)) continue;
      auto& seen = e.outcome ? covered.seen_true : covered.seen_false;
      seen[static_cast<std::size_t>(e.stmt->id)] = 1;
    }
    result.input = std::move(input);
    result.coverage = covered.fraction();
    break;
  }
  return result;
}

}  // namespace karel
