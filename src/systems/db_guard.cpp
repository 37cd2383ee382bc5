#include "prowl/systems/db_guard.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>

#include <fmt/format.h>

#include "db_guard_detail.hpp"

namespace prowl {
namespace detail {

std::string local_time_text(std::time_t t) {
  std::tm tm{};
  localtime_r(&t, &tm);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  return std::string(text, n);
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

Holder current_holder() {
  return {static_cast<long>(getpid()), local_time_text(std::time(nullptr))};
}

std::string holder_text(const Holder& holder) {
  return fmt::format("prowl pid {} since {}", holder.pid, holder.since);
}

std::optional<Holder> parse_holder_text(std::string_view text) {
  constexpr std::string_view kPid = "prowl pid ";
  constexpr std::string_view kSince = " since ";
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  if (!text.starts_with(kPid)) return std::nullopt;
  text.remove_prefix(kPid.size());
  Holder holder;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), holder.pid);
  if (error != std::errc() || holder.pid <= 0) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  if (!text.starts_with(kSince)) return std::nullopt;
  text.remove_prefix(kSince.size());
  // Exactly local_time_text()'s form: what a message shows of it is only digits and separators.
  constexpr std::string_view kForm = "dddd-dd-dd dd:dd:dd";
  if (text.size() != kForm.size()) return std::nullopt;
  for (std::size_t i = 0; i < kForm.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (kForm[i] == 'd' ? !digit : text[i] != kForm[i]) return std::nullopt;
  }
  holder.since = std::string(text);
  return holder;
}

// Never destroyed: a guard that a static object holds may be destroyed after them at exit.
std::mutex& guard_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}

std::vector<std::unique_ptr<GuardEntry>>& guard_entries() {
  static auto* entries = new std::vector<std::unique_ptr<GuardEntry>>;
  return *entries;
}

std::shared_ptr<DatabaseGuard> GuardAccess::make(GuardEntry* entry, std::string recovered) {
  ++entry->holders;
  return std::shared_ptr<DatabaseGuard>(
      new DatabaseGuard(entry, entry->database, std::move(recovered)));
}

std::shared_ptr<DatabaseGuard> add_entry(std::unique_ptr<GuardEntry> entry, std::string recovered) {
  GuardEntry* raw = entry.get();
  guard_entries().push_back(std::move(entry));
  return GuardAccess::make(raw, std::move(recovered));
}

Status begin_record(const DatabaseGuard& guard, const std::function<Status()>& write) {
  std::lock_guard<std::mutex> lock(guard_mutex());
  GuardEntry& entry = GuardAccess::entry(guard);
  // A record left by a run of this process that did not end holds the content from before that
  // run: it stays as it is (the next guard puts that content back).
  if (entry.record_users == 0 && !entry.record_abandoned) {
    if (Status st = write(); !st) return st;
  }
  ++entry.record_users;
  return Status::ok();
}

Status end_record(const DatabaseGuard& guard, const std::function<Status()>& remove) {
  std::lock_guard<std::mutex> lock(guard_mutex());
  GuardEntry& entry = GuardAccess::entry(guard);
  PROWL_CHECK(entry.record_users > 0, entry.database + ": end_record without begin_record");
  --entry.record_users;
  if (entry.record_users > 0 || entry.record_abandoned) return Status::ok();
  return remove();
}

void abandon_record(const DatabaseGuard& guard) {
  std::lock_guard<std::mutex> lock(guard_mutex());
  GuardEntry& entry = GuardAccess::entry(guard);
  PROWL_CHECK(entry.record_users > 0, entry.database + ": abandon_record without begin_record");
  --entry.record_users;
  entry.record_abandoned = true;
}

}  // namespace detail

DatabaseGuard::DatabaseGuard(detail::GuardEntry* entry, std::string database, std::string recovered)
    : entry_(entry), database_(std::move(database)), recovered_(std::move(recovered)) {}

DatabaseGuard::~DatabaseGuard() {
  std::lock_guard<std::mutex> lock(detail::guard_mutex());
  if (--entry_->holders > 0) return;
  auto& entries = detail::guard_entries();
  // Destroying the entry releases the lock.
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [this](const auto& e) { return e.get() == entry_; }),
                entries.end());
}

}  // namespace prowl
