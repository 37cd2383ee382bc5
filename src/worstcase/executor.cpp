#include "executor.hpp"

#include <set>
#include <string_view>

#include "prowl/core/status.hpp"

namespace prowl::wc::detail {

namespace {

// Unwinds the program when its path ends before it returns.
struct PathStop {
  PathEnd end;
};

std::string value_text(const z3::expr& value) {
  if (value.is_numeral()) return value.get_decimal_string(0);
  return value.to_string();
}

}  // namespace

class PathRun {
 public:
  PathRun(Executor& executor, const std::vector<Decision>& prefix, Chooser* chooser,
          std::vector<Feasible>* alternatives)
      : executor_(executor), prefix_(prefix), chooser_(chooser), alternatives_(alternatives) {}

  // Decides every branch by the condition's value on `values` instead of by search.
  void set_concrete(const std::vector<std::pair<std::string, std::string>>& values) {
    for (const auto& [name, value] : values) {
      concrete_names_.push_back(executor_.context_.int_const(name.c_str()));
      concrete_values_.push_back(executor_.context_.int_val(value.c_str()));
    }
    concrete_ = true;
  }

  PathRecord run() {
    SymExec ex(*this, executor_.n_);
    try {
      executor_.program_.run(ex, executor_.n_);
      record_.end = PathEnd::kComplete;
    } catch (const PathStop& stop) {
      record_.end = stop.end;
    } catch (const z3::exception& e) {
      throw ProgramError(std::string("Z3 failed while the program ran: ") + e.msg());
    }
    if (record_.end == PathEnd::kComplete && !concrete_) {
      if (record_.decisions.size() < prefix_.size()) {
        throw ProgramError("the program returned after " +
                           std::to_string(record_.decisions.size()) +
                           " decisions, where the same decisions before took it to decision " +
                           std::to_string(prefix_.size() + 1) + " (at " +
                           prefix_[record_.decisions.size()].site.name() +
                           "): it must do the same under the same decisions");
      }
      witness();
    }
    return std::move(record_);
  }

  z3::expr int_input(const std::string& name) {
    if (!names_.insert(name).second) {
      throw ProgramError("the input '" + name + "' is declared twice in one run");
    }
    inputs_.push_back(executor_.context_.int_const(name.c_str()));
    return inputs_.back();
  }

  bool branch(const Site& site, const z3::expr& condition) {
    if (!condition.is_bool()) {
      throw ProgramError(site.name() + ": the condition of a branch must be Bool, but is " +
                         condition.get_sort().to_string());
    }
    const z3::expr c = condition.simplify();
    if (c.is_true()) return true;
    if (c.is_false()) return false;
    const std::size_t t = record_.decisions.size();
    if (t >= executor_.max_depth_) throw PathStop{PathEnd::kDepth};
    bool action;
    if (concrete_) {
      record_.decisions.push_back({site, on_values(site, c)});
      return record_.decisions.back().taken;
    }
    if (t < prefix_.size()) {
      if (!(prefix_[t].site == site)) {
        throw ProgramError(site.name() + ": decision " + std::to_string(t + 1) +
                           " was at this site, where the same decisions before took the program "
                           "to " +
                           prefix_[t].site.name() +
                           ": the program must do the same under the same decisions");
      }
      action = prefix_[t].taken;
    } else {
      action = choose(t, site, c);
    }
    record_.decisions.push_back({site, action});
    executor_.assert_decision(t, action ? c : !c);
    return action;
  }

  void cost(std::uint64_t amount) { record_.cost += amount; }
  z3::context& executor_context() { return executor_.context_; }

 private:
  bool on_values(const Site& site, const z3::expr& c) {
    z3::expr copy = c;
    const z3::expr value = copy.substitute(concrete_names_, concrete_values_).simplify();
    if (!value.is_true() && !value.is_false()) {
      std::set<std::string> missing;
      unknown_inputs(value, missing);
      std::string names;
      for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
      throw ProgramError(site.name() + ": the condition reads " + names +
                         ", which the trace gives no value");
    }
    return value.is_true();
  }

  // The input constants in `e`.
  static void unknown_inputs(const z3::expr& e, std::set<std::string>& out) {
    if (e.is_const() && !e.is_numeral() && !e.is_true() && !e.is_false()) {
      out.insert(e.decl().name().str());
      return;
    }
    for (unsigned i = 0; e.is_app() && i < e.num_args(); ++i) unknown_inputs(e.arg(i), out);
  }

  bool choose(std::size_t t, const Site& site, const z3::expr& c) {
    executor_.keep_scopes(t);
    if (!chooser_->checks_both()) {
      const bool action =
          chooser_->choose(record_.decisions, site, Feasible::kUnchecked, Feasible::kUnchecked);
      if (alternatives_ != nullptr) alternatives_->push_back(Feasible::kUnchecked);
      const Feasible f = executor_.check(action ? c : !c);
      if (f == Feasible::kNo) {
        record_.decisions.push_back({site, action});
        throw PathStop{PathEnd::kInfeasible};
      }
      if (f == Feasible::kUnknown) throw PathStop{PathEnd::kUnknown};
      return action;
    }
    const Feasible if_true = executor_.check(c);
    const Feasible if_false = executor_.check(!c);
    if (if_true != Feasible::kYes && if_false != Feasible::kYes) throw PathStop{PathEnd::kUnknown};
    const bool action = chooser_->choose(record_.decisions, site, if_true, if_false);
    PROWL_CHECK((action ? if_true : if_false) == Feasible::kYes,
                "Chooser: a chooser that checks both sides must pick a feasible one");
    if (alternatives_ != nullptr) alternatives_->push_back(action ? if_false : if_true);
    return action;
  }

  void witness() {
    executor_.keep_scopes(record_.decisions.size());
    ++executor_.checks_;
    const z3::check_result r = executor_.solver_.check();
    if (r != z3::sat) {
      if (r == z3::unknown) ++executor_.unknowns_;
      return;
    }
    const z3::model model = executor_.solver_.get_model();
    for (const z3::expr& input : inputs_) {
      record_.input.emplace_back(input.decl().name().str(), value_text(model.eval(input, true)));
    }
  }

  Executor& executor_;
  const std::vector<Decision>& prefix_;
  Chooser* chooser_;
  std::vector<Feasible>* alternatives_;
  bool concrete_ = false;
  z3::expr_vector concrete_names_{executor_.context_};
  z3::expr_vector concrete_values_{executor_.context_};
  PathRecord record_;
  std::vector<z3::expr> inputs_;
  std::set<std::string> names_;
};

}  // namespace prowl::wc::detail

namespace prowl::wc {

std::string Site::name() const {
  std::string_view path(file);
  const std::size_t slash = path.find_last_of('/');
  std::string out(slash == std::string_view::npos ? path : path.substr(slash + 1));
  out += ":" + std::to_string(line);
  return out;
}

std::uint32_t Site::id() const {
  // FNV-1a over the name and the counter: the same in every run of every build of the source.
  std::uint32_t h = 2166136261u;
  for (const char c : name() + "#" + std::to_string(counter)) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

z3::context& SymExec::context() const { return run_->executor_context(); }

z3::expr SymExec::int_input(const std::string& name) { return run_->int_input(name); }

std::vector<z3::expr> SymExec::array(const std::string& name, int size) {
  std::vector<z3::expr> out;
  for (int i = 0; i < size; ++i) out.push_back(int_input(name + "[" + std::to_string(i) + "]"));
  return out;
}

bool SymExec::branch(const Site& site, const z3::expr& condition) {
  return run_->branch(site, condition);
}

void SymExec::cost(std::uint64_t amount) { run_->cost(amount); }

}  // namespace prowl::wc

namespace prowl::wc::detail {

Executor::Executor(const Program& program, int n, std::uint32_t max_depth)
    : program_(program), n_(n), max_depth_(max_depth), solver_(context_) {
  // Leave SIGINT to prowl: Z3's own Ctrl-C handler would take it during a check, cancel only that
  // check, and keep the search from ever seeing the signal.
  z3::params params(context_);
  params.set("ctrl_c", false);
  solver_.set(params);
}

Executor::~Executor() = default;

PathRecord Executor::run(const std::vector<Decision>& prefix, Chooser& chooser,
                         std::vector<Feasible>* alternatives) {
  PathRun run(*this, prefix, &chooser, alternatives);
  return run.run();
}

PathRecord Executor::replay(const std::vector<std::pair<std::string, std::string>>& input) {
  const std::vector<Decision> none;
  PathRun run(*this, none, nullptr, nullptr);
  run.set_concrete(input);
  PathRecord r = run.run();
  r.input = input;
  return r;
}

Feasible Executor::check(const z3::expr& literal) {
  ++checks_;
  z3::expr_vector assume(context_);
  assume.push_back(literal);
  switch (solver_.check(assume)) {
    case z3::sat:
      return Feasible::kYes;
    case z3::unsat:
      return Feasible::kNo;
    case z3::unknown:
      break;
  }
  ++unknowns_;
  return Feasible::kUnknown;
}

void Executor::keep_scopes(std::size_t depth) {
  if (asserted_.size() <= depth) return;
  solver_.pop(static_cast<unsigned>(asserted_.size() - depth));
  asserted_.erase(asserted_.begin() + static_cast<std::ptrdiff_t>(depth), asserted_.end());
}

void Executor::assert_decision(std::size_t index, const z3::expr& literal) {
  // The same literal at the same place as in the last run: already asserted.
  if (index < asserted_.size() && z3::eq(asserted_[index], literal)) return;
  keep_scopes(index);
  solver_.push();
  solver_.add(literal);
  asserted_.push_back(literal);
}

}  // namespace prowl::wc::detail
