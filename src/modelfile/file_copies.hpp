// The files a model file's world works on when they are not the ones the file names: a byte copy
// of each process's {db} file for copy k >= 1 of the world (another worker's), and for copy 0
// when the process says `db_copy: true` (the service then never writes the user's file). Each
// copy lives in a directory of its own, $TMPDIR/prowl-copyK-XXXXXX (mkdtemp: mode 0700), removed
// when the world is destroyed.
//
// A run that is killed cannot remove its directories, so each holds an owner file naming the
// process that made it, and making a directory first removes the stale ones: those in the same
// temporary directory that belong to this user and whose owner is gone. A pid alone would not
// do: a recycled pid would keep a stale directory for ever, or worse, a live run's owner could
// look gone. The owner file holds the pid, the process's start time (field 22 of /proc/PID/stat,
// clock ticks after boot), the boot id and the pid namespace: a different boot means the owner is
// gone; a pid namespace other than this process's means its pids cannot be checked from here, and
// the directory is kept. A directory without an owner file (being made right now, or by an older
// prowl) is kept for an hour after it last changed.
//
// Stateless functions, except PrivateCopies (thread-safe); they touch only the temporary
// directory and the files they copy, which they open for reading.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/modelfile/spec.hpp"
#include "prowl/world/world.hpp"

namespace prowl::modelfile::detail {

// Who made a copy directory.
struct ProcessIdentity {
  long pid = 0;
  std::uint64_t start_time = 0;  // field 22 of /proc/PID/stat
  std::string boot_id;           // /proc/sys/kernel/random/boot_id ("" when unknown)
  std::string pid_namespace;     // the target of /proc/self/ns/pid ("" when unknown)
  friend bool operator==(const ProcessIdentity&, const ProcessIdentity&) = default;
};

// This process.
ProcessIdentity this_process();
// The start time of process `pid` as this process sees it, or nullopt when there is none.
std::optional<std::uint64_t> start_time_of(long pid);

inline constexpr std::string_view kOwnerFile = "owner";
// The age after which a copy directory without an owner file counts as stale.
inline constexpr std::chrono::seconds kOwnerlessGrace = std::chrono::hours(1);

// Writes dir/owner for `owner`, under another name first and then renamed: a reader sees all of
// it or none.
Status write_owner(const std::filesystem::path& dir, const ProcessIdentity& owner);

// Removes every directory prowl-copy<digits>-<anything> directly in `tmp` that this user owns
// and whose owner process is gone (see the file comment); an ownerless one only when it last
// changed more than `grace` ago. Never follows a symbolic link, never touches another user's
// directory or a file. Returns the names removed, sorted. Failures are ignored: another run may
// be removing the same directory.
std::vector<std::string> remove_stale_copies(const std::filesystem::path& tmp,
                                             std::chrono::seconds grace = kOwnerlessGrace);

// Copy 0's private copies (db_copy), by the file they copy: the copies for other workers take
// theirs from there, as copy 0's service has left it at the initial state, and not from the
// user's file. One per HttpModel, shared by the worlds it builds. Thread-safe.
class PrivateCopies {
 public:
  void add(std::string original, std::string copy);
  void remove(const std::string& copy);
  // The newest copy of `original` that still exists, or "".
  std::string find(const std::string& original) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> copies_;  // original, copy
};

// The files copy `copy` of the world works on instead of those the spec names, as (original,
// copy) pairs, made in a fresh copy directory that `world` removes when it is destroyed. Copy 0:
// the {db} files of the processes with db_copy (none: nothing is made); a file that does not
// exist yet is left for the service to create in the directory. Copy k >= 1: every process's
// {db} file, which must exist; a fixed port, a {dsn} or a database that is not a process's {db}
// cannot be copied and is Status::invalid naming the model file's line.
Result<std::vector<std::pair<std::string, std::string>>> place_files(
    const ModelSpec& spec, std::size_t copy, World& world,
    const std::shared_ptr<PrivateCopies>& privates);

}  // namespace prowl::modelfile::detail
