#include "smt_fuzz/target.hpp"

#include <utility>

namespace smt_fuzz {

SmtTarget::SmtTarget(SolverFactory factory, Observer observer)
    : factory_(std::move(factory)), observer_(std::move(observer)), frames_(1) {}

void SmtTarget::open() {
  // The old solver goes first: its objects must not outlive it, and a session never has two.
  solver_.reset();
  solver_ = factory_();
  configurable_ = true;
  options_.clear();
  logic_.reset();
  names_.clear();
  counters_.clear();
  declared_sorts_.clear();
  declared_consts_.clear();
  frames_.assign(1, {});
  checks_ = 0;
  answer_ = Answer::kUnknown;
  invalidate_model();
  last_assumptions_.clear();
  solver_->set_option("produce-models", "true");
  set_option("produce-models", "true");
}

void SmtTarget::close() {
  solver_.reset();
  frames_.assign(1, {});
  invalidate_model();
}

void SmtTarget::set_logic(const std::string& logic) {
  logic_ = logic;
  configurable_ = false;
}

Theories SmtTarget::theories() const {
  if (!logic_) return all_theories();
  return theories_of(*logic_).value_or(all_theories());
}

std::string SmtTarget::fresh_name(const std::string& prefix) {
  for (;;) {
    std::string name = prefix + std::to_string(++counters_[prefix]);
    if (!name_taken(name)) return name;
  }
}

void SmtTarget::add_assertion(Assertion assertion) {
  frames_.back().push_back(std::move(assertion));
  invalidate_model();
}

void SmtTarget::push(std::uint32_t levels) {
  for (std::uint32_t i = 0; i < levels; ++i) frames_.emplace_back();
  invalidate_model();
}

void SmtTarget::pop(std::uint32_t levels) {
  frames_.resize(frames_.size() - levels);
  invalidate_model();
}

void SmtTarget::reset_assertions() {
  frames_.assign(1, {});
  invalidate_model();
}

std::vector<Assertion> SmtTarget::assertions() const {
  std::vector<Assertion> out;
  for (const auto& frame : frames_) out.insert(out.end(), frame.begin(), frame.end());
  return out;
}

void SmtTarget::checked(Answer answer, std::vector<Assertion> assumptions) {
  ++checks_;
  answer_ = answer;
  model_available_ = answer == Answer::kSat;
  core_available_ = answer == Answer::kUnsat && !assumptions.empty();
  last_assumptions_ = std::move(assumptions);
}

void SmtTarget::forget_answer() {
  answer_ = Answer::kUnknown;
  invalidate_model();
}

void SmtTarget::note(const std::string& line) const {
  if (observer_) observer_(line);
}

std::string SmtTarget::option(const std::string& name) const {
  auto it = options_.find(name);
  return it == options_.end() ? std::string() : it->second;
}

}  // namespace smt_fuzz
