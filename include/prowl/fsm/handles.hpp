// Handles: the objects a fuzz run creates (terms, sorts, statements, ...), each named in the trace
// so later steps can refer to it. A name is its kind (lower-case letters) and a number: t12.
// While fuzzing, add() hands out fresh names; while replaying, the names come from the step's
// `return` line, so a shortened trace still binds each reference to the object it meant.
// Owned by one run; not thread-safe.
#pragma once

#include <any>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prowl/core/rng.hpp"

namespace prowl::fsm {

// A trace that cannot be replayed as written: an unknown handle, a missing or malformed argument,
// a step that returns other handles than its return line names. Thrown by Args and Handles while
// replaying; the replayer reports it with the trace's file and line.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Handles {
 public:
  // Stores `value` and returns its name. REQUIRES: `kind` is lower-case letters.
  template <class V>
  std::string add(std::string_view kind, V value) {
    std::string name = next_name(kind);
    Entry& e = entries_[name];
    e.kind = std::string(kind);
    e.value = std::move(value);
    by_kind_[e.kind].push_back(name);
    produced_.push_back(name);
    return name;
  }

  // The value named `name`. Throws TraceError when there is none or it holds another type.
  template <class V>
  V& get(std::string_view name) {
    auto it = entries_.find(std::string(name));
    if (it == entries_.end()) throw TraceError("unknown handle '" + std::string(name) + "'");
    V* v = std::any_cast<V>(&it->second.value);
    if (v == nullptr) {
      throw TraceError("handle '" + std::string(name) + "' is not of the expected type");
    }
    return *v;
  }

  bool contains(std::string_view name) const { return entries_.count(std::string(name)) != 0; }
  // The live handles of a kind, oldest first.
  const std::vector<std::string>& of_kind(std::string_view kind) const;
  // A uniformly chosen live handle of the kind, or nullopt when there is none.
  std::optional<std::string> pick(std::string_view kind, Rng& rng) const;
  // Forgets every handle of a kind (terms after a solver reset, say). Names are never reused.
  void drop_kind(std::string_view kind);
  void clear();
  std::size_t size() const { return entries_.size(); }

  // For the runner: the names a step must give its handles, from its return line (replay), or
  // none (fuzzing: fresh names). begin_step also clears produced().
  void begin_step(const std::vector<std::string>* replay_names);
  // The names added since begin_step, in order.
  const std::vector<std::string>& produced() const { return produced_; }
  // Throws TraceError when a replayed step returned fewer handles than its return line names.
  void end_step() const;

 private:
  struct Entry {
    std::string kind;
    std::any value;
  };
  std::string next_name(std::string_view kind);

  std::unordered_map<std::string, Entry> entries_;
  std::unordered_map<std::string, std::vector<std::string>> by_kind_;
  std::unordered_map<std::string, std::uint64_t> counters_;
  const std::vector<std::string>* replay_names_ = nullptr;
  std::vector<std::string> produced_;
};

}  // namespace prowl::fsm
