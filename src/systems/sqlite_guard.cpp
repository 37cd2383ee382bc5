// guard_sqlite(): the lock file beside a SQLite database, and its recovery record
// (PATH.prowl-recovery): written before a run changes the file, written back by the next guard
// when the run did not end.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "db_guard_detail.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/systems/db_guard.hpp"
#include "sqlite_detail.hpp"

namespace prowl {
namespace detail {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRecordMagic = "PROWL-SQLITE-RECOVERY 1\n";
// How long a recovery waits for another connection's lock on the file.
constexpr int kRecoveryBusyMs = 5000;

struct SqliteEntry final : GuardEntry {
  std::string path;       // as the first guard was given it (messages)
  std::string canonical;  // the database's canonical path
  std::string lock_path;
  std::string record_path;
  int fd = -1;  // the locked lock file
  // The database file's identity, once it exists.
  bool has_inode = false;
  dev_t dev = 0;
  ino_t ino = 0;

  ~SqliteEntry() override {
    if (fd < 0) return;
    // Removed while still locked: a process that opened the file before it was removed finds, once
    // it has the lock, that the path names another file (or none), and starts again.
    if (getpid() == owner) ::unlink(lock_path.c_str());
    ::close(fd);
  }

  // Fills in the database file's identity if it exists by now.
  void learn_inode() {
    struct stat st {};
    if (has_inode || ::stat(canonical.c_str(), &st) != 0) return;
    has_inode = true;
    dev = st.st_dev;
    ino = st.st_ino;
  }
};

std::string errno_text(int error) { return std::strerror(error); }

// Writes all of data to fd; false (errno set) on failure.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Makes a rename or removal in path's directory durable.
void sync_directory(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().string();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The lock file's text, read from the file another process holds: it may not have written it
// yet, so an empty file is read again for a little while.
std::optional<Holder> read_holder(int fd) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    char buffer[256];
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    if (n > 0) return parse_holder_text(std::string_view(buffer, static_cast<std::size_t>(n)));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

// Opens and locks the lock file; an environment Status when another process holds it.
Result<int> lock_file(const std::string& path, const std::string& lock_path) {
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return Status::environment(fmt::format("sqlite '{}': cannot create the lock file {}: {}",
                                             path, lock_path, errno_text(errno)));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      if (error != EWOULDBLOCK) {
        ::close(fd);
        return Status::environment(fmt::format("sqlite '{}': cannot lock the lock file {}: {}",
                                               path, lock_path, errno_text(error)));
      }
      const auto holder = read_holder(fd);
      ::close(fd);
      if (!holder) {
        return Status::environment(fmt::format(
            "sqlite '{}' is in use by another prowl run (its lock file {} does not say which); "
            "wait for it to end, or stop it",
            path, lock_path));
      }
      return Status::environment(fmt::format(
          "sqlite '{}' is in use by another prowl run (pid {}, since {}); wait for it to end, or "
          "stop it",
          path, holder->pid, holder->since));
    }
    // The holder that just let go may have removed the file: the lock must be on the file the
    // path names now.
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      return fd;
    }
    ::close(fd);
    if (attempt >= 100) {
      return Status::environment(fmt::format(
          "sqlite '{}': cannot lock the lock file {}: it keeps being replaced", path, lock_path));
    }
  }
}

// A parsed recovery record.
struct Record {
  Holder holder;
  std::string host;
  std::string image;
  bool has_file = false;  // the database file's identity when the record was written
  unsigned long long dev = 0;
  unsigned long long ino = 0;
  std::time_t heartbeat = 0;  // the record's modification time: the run's last sign of life
};

// The record at entry.record_path; a Status naming the file when it cannot be read.
Result<Record> read_record(const SqliteEntry& entry) {
  auto unreadable = [&](const std::string& why) {
    return Status::environment(fmt::format(
        "sqlite '{}': the recovery record {} of a run that did not end cannot be read ({}); the "
        "file may still hold that run's changes: check it, then remove the record by hand (rm "
        "'{}')",
        entry.path, entry.record_path, why, entry.record_path));
  };
  std::string data;
  std::time_t heartbeat = 0;
  {
    const int fd = ::open(entry.record_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return unreadable(errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) == 0) heartbeat = st.st_mtime;
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int error = errno;
        ::close(fd);
        return unreadable(errno_text(error));
      }
      data.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
  }
  if (!std::string_view(data).starts_with(kRecordMagic)) return unreadable("wrong magic");
  // "name value" lines up to an empty line, then the image.
  Record record;
  std::size_t size = 0;
  bool has_size = false;
  std::string hash;
  std::size_t pos = kRecordMagic.size();
  for (;;) {
    const std::size_t end = data.find('\n', pos);
    if (end == std::string::npos) return unreadable("truncated header");
    const std::string line = data.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) break;
    const std::size_t space = line.find(' ');
    const std::string name = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (name == "holder") {
      auto holder = parse_holder_text(value);
      if (!holder) return unreadable("bad holder line");
      record.holder = *holder;
    } else if (name == "host") {
      record.host = value;
    } else if (name == "size") {
      const auto [p, error] = std::from_chars(value.data(), value.data() + value.size(), size);
      if (error != std::errc() || p != value.data() + value.size()) {
        return unreadable("bad size line");
      }
      has_size = true;
    } else if (name == "hash") {
      hash = value;
    } else if (name == "file") {
      unsigned long long dev = 0, ino = 0;
      if (std::sscanf(value.c_str(), "%llu:%llu", &dev, &ino) != 2) {
        return unreadable("bad file line");
      }
      record.dev = dev;
      record.ino = ino;
      record.has_file = true;
    }
  }
  if (record.holder.pid == 0 || !has_size || hash.empty()) return unreadable("incomplete header");
  if (data.size() - pos != size) {
    return unreadable(
        fmt::format("truncated: {} bytes of a {} byte image", data.size() - pos, size));
  }
  record.image = data.substr(pos);
  record.heartbeat = heartbeat;
  Hasher hasher;
  hasher.add_bytes(record.image.data(), record.image.size());
  if (hasher.finish().hex() != hash) return unreadable("its image does not match its hash");
  return record;
}

// Writes the recorded image back into the database file through SQLite (so that a hot journal
// or a WAL the dead run left is dealt with as SQLite does), then truncates the WAL.
Status write_image_back(const SqliteEntry& entry, const std::string& image) {
  auto failed = [&](sqlite3* db, const std::string& what) {
    return Status::environment(fmt::format(
        "sqlite '{}': cannot recover the content from before a run that did not end ({}: {}); "
        "the recovery record {} is kept",
        entry.path, what, db ? sqlite3_errmsg(db) : "out of memory", entry.record_path));
  };
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> mem(nullptr, sqlite3_close_v2);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> file(nullptr, sqlite3_close_v2);
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE, nullptr);
  mem.reset(raw);
  if (rc != SQLITE_OK) return failed(raw, "an in-memory database");
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(image.size()));
  if (copy == nullptr && !image.empty()) return failed(nullptr, "a copy of the image");
  if (!image.empty()) std::memcpy(copy, image.data(), image.size());
  const auto size = static_cast<sqlite3_int64>(image.size());
  rc = sqlite3_deserialize(mem.get(), "main", copy, size, size,
                           SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) return failed(mem.get(), "loading the image");
  raw = nullptr;
  rc = sqlite3_open_v2(entry.canonical.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  file.reset(raw);
  if (rc != SQLITE_OK) return failed(raw, "opening the file");
  sqlite3_busy_timeout(file.get(), kRecoveryBusyMs);
  sqlite3_backup* backup = sqlite3_backup_init(file.get(), "main", mem.get(), "main");
  if (backup == nullptr) return failed(file.get(), "starting the copy");
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kRecoveryBusyMs);
  do {
    rc = sqlite3_backup_step(backup, -1);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(5);
  } while ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) &&
           std::chrono::steady_clock::now() < deadline);
  const int finish = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) return failed(file.get(), "copying the image");
  if (finish != SQLITE_OK) return failed(file.get(), "copying the image");
  sqlite3_exec(file.get(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
  return Status::ok();
}

// The latest modification of the database (the file, or its WAL).
std::time_t last_change(const std::string& path) {
  std::time_t latest = 0;
  for (const std::string& p : {path, path + "-wal"}) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) latest = std::max(latest, st.st_mtime);
  }
  return latest;
}

// Puts back the content a record holds and removes it; the line that says so. Unless `force`,
// refuses when the file is not the one the record was written for, or was changed after the run
// that left it stopped showing signs of life: putting the old content back would undo someone's
// work since.
Result<std::string> recover(const SqliteEntry& entry, bool force) {
  auto record = read_record(entry);
  if (!record) return record.status();
  struct stat st {};
  const bool exists = ::stat(entry.canonical.c_str(), &st) == 0;
  auto refuse = [&](const std::string& why) {
    return Status::environment(fmt::format(
        "sqlite '{}': a run of pid {} (begun {}) did not end and left the recovery record {}, "
        "but {}: putting back the content from before that run would undo those changes. To put "
        "it back anyway: prowl recover --force MODEL; to keep the database as it is: rm '{}'",
        entry.path, record->holder.pid, record->holder.since, entry.record_path, why,
        entry.record_path));
  };
  if (!force && exists && record->has_file &&
      (static_cast<unsigned long long>(st.st_dev) != record->dev ||
       static_cast<unsigned long long>(st.st_ino) != record->ino)) {
    return refuse("the database file was replaced since");
  }
  // The run's service may write a little after its last sign of life (the heartbeat comes with
  // each observation): a few seconds of slack.
  constexpr std::time_t kSlack = 3;
  if (const std::time_t changed = last_change(entry.canonical);
      !force && exists && record->heartbeat > 0 && changed > record->heartbeat + kSlack) {
    return refuse(
        fmt::format("the database was changed at {}, after that run's last sign of life "
                    "at {}",
                    local_time_text(changed), local_time_text(record->heartbeat)));
  }
  if (!exists) {
    return Status::environment(fmt::format(
        "sqlite '{}': a run of pid {} (begun {}) did not end and left the recovery record {}, but "
        "the database file is gone: put it back to have its content recovered, or remove the "
        "record by hand (rm '{}')",
        entry.path, record->holder.pid, record->holder.since, entry.record_path,
        entry.record_path));
  }
  if (Status s = write_image_back(entry, record->image); !s) return s;
  if (::unlink(entry.record_path.c_str()) != 0 && errno != ENOENT) {
    return Status::environment(fmt::format(
        "sqlite '{}': recovered the content from before a run that did not end, but cannot "
        "remove its recovery record {}: {}",
        entry.path, entry.record_path, errno_text(errno)));
  }
  sync_directory(entry.record_path);
  const std::string host =
      record->host.empty() || record->host == host_name() ? "" : " on host " + record->host;
  return fmt::format(
      "recovered {}: put back its content from before the run of pid {}{} (begun {}) that did "
      "not end",
      entry.path, record->holder.pid, host, record->holder.since);
}

}  // namespace

Status write_sqlite_record(const DatabaseGuard& guard, const unsigned char* data,
                           std::int64_t size) {
  const auto& entry = entry_of<SqliteEntry>(guard);
  Hasher hasher;
  hasher.add_bytes(data, static_cast<std::size_t>(size));
  // The file's identity: a record is never put into another file of the same name.
  struct stat db {};
  const std::string file =
      ::stat(entry.canonical.c_str(), &db) == 0
          ? fmt::format("file {}:{}\n", static_cast<unsigned long long>(db.st_dev),
                        static_cast<unsigned long long>(db.st_ino))
          : std::string();
  const std::string header =
      fmt::format("{}holder {}\nhost {}\n{}size {}\nhash {}\n\n", kRecordMagic,
                  holder_text(current_holder()), host_name(), file, size, hasher.finish().hex());
  const std::string tmp = entry.record_path + ".tmp";
  auto failed = [&](int error) {
    ::unlink(tmp.c_str());
    return Status::environment(fmt::format("sqlite '{}': cannot write the recovery record {}: {}",
                                           entry.path, entry.record_path, errno_text(error)));
  };
  // The record holds the database's content: readable by its owner only.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return failed(errno);
  if (!write_all(fd, header.data(), header.size()) ||
      !write_all(fd, reinterpret_cast<const char*>(data), static_cast<std::size_t>(size)) ||
      ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    return failed(error);
  }
  if (::close(fd) != 0) return failed(errno);
  if (::rename(tmp.c_str(), entry.record_path.c_str()) != 0) return failed(errno);
  sync_directory(entry.record_path);
  return Status::ok();
}

void touch_sqlite_record(const DatabaseGuard& guard) {
  const auto& entry = entry_of<SqliteEntry>(guard);
  ::utimensat(AT_FDCWD, entry.record_path.c_str(), nullptr, 0);  // a record may not be kept
}

Status remove_sqlite_record(const DatabaseGuard& guard) {
  const auto& entry = entry_of<SqliteEntry>(guard);
  if (::unlink(entry.record_path.c_str()) != 0 && errno != ENOENT) {
    return Status::environment(fmt::format("sqlite '{}': cannot remove the recovery record {}: {}",
                                           entry.path, entry.record_path, errno_text(errno)));
  }
  sync_directory(entry.record_path);
  return Status::ok();
}

bool sqlite_guard_covers(const DatabaseGuard& guard, const std::string& path) {
  const auto* entry = dynamic_cast<const SqliteEntry*>(&GuardAccess::entry(guard));
  if (entry == nullptr) return false;
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (!ec && canonical.string() == entry->canonical) return true;
  struct stat st {};
  return entry->has_inode && ::stat(path.c_str(), &st) == 0 && st.st_dev == entry->dev &&
         st.st_ino == entry->ino;
}

}  // namespace detail

Result<std::shared_ptr<DatabaseGuard>> guard_sqlite(const std::string& path, GuardOptions options) {
  using detail::SqliteEntry;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  const fs::path canonical = ec ? fs::path() : fs::weakly_canonical(absolute, ec);
  if (ec || path.empty()) {
    return Status::environment(fmt::format("sqlite '{}': cannot resolve the path: {}", path,
                                           ec ? ec.message() : "it is empty"));
  }
  struct stat db {};
  const bool exists = ::stat(canonical.c_str(), &db) == 0;

  std::lock_guard<std::mutex> lock(detail::guard_mutex());
  for (const auto& e : detail::guard_entries()) {
    auto* entry = dynamic_cast<SqliteEntry*>(e.get());
    // An entry a forked child inherited is its parent's lock, not the child's to share.
    if (entry == nullptr || entry->owner != getpid()) continue;
    entry->learn_inode();
    const bool same_inode =
        exists && entry->has_inode && entry->dev == db.st_dev && entry->ino == db.st_ino;
    if (entry->canonical == canonical.string() || same_inode) {
      return detail::GuardAccess::make(entry, std::string());
    }
  }

  auto entry = std::make_unique<SqliteEntry>();
  entry->database = fmt::format("sqlite '{}'", path);
  entry->owner = getpid();
  entry->path = path;
  entry->canonical = canonical.string();
  entry->lock_path = entry->canonical + ".prowl-lock";
  entry->record_path = entry->canonical + ".prowl-recovery";
  auto fd = detail::lock_file(path, entry->lock_path);
  if (!fd) return fd.status();
  entry->fd = *fd;
  // Each holder writes its own name into the file.
  const std::string text = detail::holder_text(detail::current_holder()) + "\n";
  if (::ftruncate(entry->fd, 0) != 0 ||
      ::pwrite(entry->fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return Status::environment(fmt::format("sqlite '{}': cannot write the lock file {}: {}", path,
                                           entry->lock_path, detail::errno_text(errno)));
  }
  entry->learn_inode();
  // What a writer of the record that died halfway left.
  ::unlink((entry->record_path + ".tmp").c_str());
  std::string recovered;
  if (::access(entry->record_path.c_str(), F_OK) == 0) {
    // The entry (and the lock) goes away with the failure.
    auto line = detail::recover(*entry, options.force_recovery);
    if (!line) return line.status();
    recovered = std::move(*line);
  }
  return detail::add_entry(std::move(entry), std::move(recovered));
}

}  // namespace prowl
