// Journal: a tiny append-only key-value log with transactions and compaction — the planted-bug
// library of prowl's FSM fuzzing tests and example. It has one seeded bug that needs a specific
// sequence of calls:
//
//   put(k, a); begin(); put(k, b); compact(); rollback(); get(k)  ->  b, though b was rolled back
//
// compact() inside a transaction drops the entry that `put(k, b)` superseded and moves b below
// the position where the transaction began, which rollback() keeps. Single-threaded.
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <vector>

namespace journal {

class Journal {
 public:
  void put(int key, int value);
  std::optional<int> get(int key) const;
  // Starts a transaction; false when one is open already.
  bool begin();
  // Ends the transaction keeping its puts; false when none is open.
  bool commit();
  // Ends the transaction undoing its puts; false when none is open.
  bool rollback();
  // Drops entries superseded by a later put of the same key.
  void compact();
  bool in_transaction() const { return tx_start_.has_value(); }
  std::size_t entries() const { return log_.size(); }

 private:
  struct Entry {
    int key;
    int value;
  };
  void reindex();
  std::vector<Entry> log_;
  std::unordered_map<int, std::size_t> index_;  // key -> position of its latest entry
  std::optional<std::size_t> tx_start_;         // log position where the transaction began
};

}  // namespace journal
