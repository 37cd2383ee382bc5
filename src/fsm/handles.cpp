#include "prowl/fsm/handles.hpp"

#include <algorithm>

#include "prowl/trace/trace.hpp"

namespace prowl::fsm {

const std::vector<std::string>& Handles::of_kind(std::string_view kind) const {
  static const std::vector<std::string> kNone;
  auto it = by_kind_.find(std::string(kind));
  return it == by_kind_.end() ? kNone : it->second;
}

std::optional<std::string> Handles::pick(std::string_view kind, Rng& rng) const {
  const std::vector<std::string>& names = of_kind(kind);
  if (names.empty()) return std::nullopt;
  return names[rng.below(names.size())];
}

void Handles::drop_kind(std::string_view kind) {
  auto it = by_kind_.find(std::string(kind));
  if (it == by_kind_.end()) return;
  for (const std::string& name : it->second) entries_.erase(name);
  by_kind_.erase(it);
}

void Handles::clear() {
  entries_.clear();
  by_kind_.clear();
}

void Handles::begin_step(const std::vector<std::string>* replay_names) {
  replay_names_ = replay_names;
  produced_.clear();
}

void Handles::end_step() const {
  if (replay_names_ != nullptr && produced_.size() < replay_names_->size()) {
    throw TraceError("the step returned " + std::to_string(produced_.size()) +
                     " handle(s), its return line names " + std::to_string(replay_names_->size()));
  }
}

std::string Handles::next_name(std::string_view kind) {
  if (replay_names_ != nullptr) {
    if (produced_.size() >= replay_names_->size()) {
      throw TraceError("the step returned more handles than its return line names (" +
                       std::to_string(replay_names_->size()) + ")");
    }
    const std::string& name = (*replay_names_)[produced_.size()];
    if (trace::handle_kind(name) != kind) {
      throw TraceError("the step returned a handle of kind '" + std::string(kind) +
                       "', its return line names '" + name + "'");
    }
    if (entries_.count(name) != 0) throw TraceError("handle '" + name + "' is already bound");
    return name;
  }
  std::string name;
  do {
    name = std::string(kind) + std::to_string(++counters_[std::string(kind)]);
  } while (entries_.count(name) != 0);
  return name;
}

}  // namespace prowl::fsm
