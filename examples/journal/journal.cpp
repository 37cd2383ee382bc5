#include "journal.hpp"

namespace journal {

void Journal::put(int key, int value) {
  log_.push_back({key, value});
  index_[key] = log_.size() - 1;
}

std::optional<int> Journal::get(int key) const {
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  return log_[it->second].value;
}

bool Journal::begin() {
  if (tx_start_) return false;
  tx_start_ = log_.size();
  return true;
}

bool Journal::commit() {
  if (!tx_start_) return false;
  tx_start_.reset();
  return true;
}

bool Journal::rollback() {
  if (!tx_start_) return false;
  if (*tx_start_ < log_.size()) log_.resize(*tx_start_);
  tx_start_.reset();
  reindex();
  return true;
}

void Journal::compact() {
  std::vector<Entry> kept;
  for (std::size_t i = 0; i < log_.size(); ++i) {
    if (index_.at(log_[i].key) == i) kept.push_back(log_[i]);
  }
  // The seeded bug: an open transaction's start position is not moved with the entries.
  log_ = std::move(kept);
  reindex();
}

void Journal::reindex() {
  index_.clear();
  for (std::size_t i = 0; i < log_.size(); ++i) index_[log_[i].key] = i;
}

}  // namespace journal
