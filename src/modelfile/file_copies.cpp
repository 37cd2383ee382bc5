#include "file_copies.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace prowl::modelfile::detail {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// "prowl-copy" digits "-" something.
bool is_copy_name(std::string_view name) {
  constexpr std::string_view kPrefix = "prowl-copy";
  if (!name.starts_with(kPrefix)) return false;
  name.remove_prefix(kPrefix.size());
  std::size_t digits = 0;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  return digits > 0 && digits + 1 < name.size() && name[digits] == '-';
}

std::optional<ProcessIdentity> read_owner(const fs::path& dir) {
  std::ifstream in(dir / kOwnerFile);
  if (!in) return std::nullopt;
  ProcessIdentity owner;
  bool pid = false, start = false;
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t space = line.find(' ');
    if (space == std::string::npos) return std::nullopt;
    const std::string key = line.substr(0, space);
    const std::string value = line.substr(space + 1);
    try {
      if (key == "pid") {
        owner.pid = std::stol(value);
        pid = owner.pid > 0;
      } else if (key == "start") {
        owner.start_time = std::stoull(value);
        start = true;
      } else if (key == "boot") {
        owner.boot_id = value;
      } else if (key == "pidns") {
        owner.pid_namespace = value;
      }
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (!pid || !start) return std::nullopt;
  return owner;
}

// Whether the process that wrote `owner` still runs, as far as this process can tell.
bool owner_lives(const ProcessIdentity& owner, const ProcessIdentity& self) {
  if (!owner.boot_id.empty() && !self.boot_id.empty() && owner.boot_id != self.boot_id) {
    return false;
  }
  // Its pid means another process here: it cannot be checked, so it may live.
  if (!owner.pid_namespace.empty() && !self.pid_namespace.empty() &&
      owner.pid_namespace != self.pid_namespace) {
    return true;
  }
  const std::optional<std::uint64_t> start = start_time_of(owner.pid);
  return start && *start == owner.start_time;
}

bool stale(const fs::path& dir, const ProcessIdentity& self, std::chrono::seconds grace) {
  if (std::optional<ProcessIdentity> owner = read_owner(dir)) return !owner_lives(*owner, self);
  std::error_code ec;
  const auto changed = fs::last_write_time(dir, ec);
  if (ec) return false;
  return fs::file_time_type::clock::now() - changed > grace;
}

// Copies `from` to `to`, with its -wal and -journal when there are any. A missing `from` is
// Status::environment when `must_exist`, and leaves nothing copied otherwise.
Status copy_database(const fs::path& from, const fs::path& to, bool must_exist,
                     std::string_view for_what) {
  for (const char* suffix : {"", "-wal", "-journal"}) {
    std::error_code ec;
    const fs::path source = from.string() + suffix;
    if (!fs::exists(source, ec)) {
      if (*suffix != '\0') continue;  // everything is in the file
      if (!must_exist) return Status::ok();
      return Status::environment(fmt::format(
          "cannot copy {} for {}: the service has not created it", source.string(), for_what));
    }
    fs::copy_file(source, to.string() + suffix, ec);
    if (ec) {
      return Status::environment(
          fmt::format("cannot copy {} for {}: {}", source.string(), for_what, ec.message()));
    }
  }
  return Status::ok();
}

Result<fs::path> make_copy_dir(std::size_t copy, std::string_view for_what, World& world) {
  std::error_code tmp_error;
  const fs::path tmp = fs::temp_directory_path(tmp_error);
  if (tmp_error) {
    return Status::environment(
        fmt::format("no directory for {}: {} (set TMPDIR)", for_what, tmp_error.message()));
  }
  remove_stale_copies(tmp);
  std::string pattern = (tmp / fmt::format("prowl-copy{}-XXXXXX", copy)).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::environment(fmt::format("cannot make a directory for {} in {}: {}", for_what,
                                           tmp.string(), std::strerror(errno)));
  }
  const fs::path dir = pattern;
  world.on_destroyed([dir] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  });
  if (Status st = write_owner(dir, this_process()); !st) return st;
  return dir;
}

}  // namespace

std::optional<std::uint64_t> start_time_of(long pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields are counted
  // after its last ')'. Field 22 is the 20th after it.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> field)) return std::nullopt;
  }
  try {
    return std::stoull(field);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

ProcessIdentity this_process() {
  ProcessIdentity self;
  self.pid = static_cast<long>(::getpid());
  self.start_time = start_time_of(self.pid).value_or(0);
  self.boot_id = first_line("/proc/sys/kernel/random/boot_id");
  std::error_code ec;
  self.pid_namespace = fs::read_symlink("/proc/self/ns/pid", ec).string();
  return self;
}

Status write_owner(const fs::path& dir, const ProcessIdentity& owner) {
  const fs::path temporary = dir / fmt::format("{}.tmp", kOwnerFile);
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << fmt::format("pid {}\nstart {}\nboot {}\npidns {}\n", owner.pid, owner.start_time,
                       owner.boot_id, owner.pid_namespace);
    if (!out.flush()) {
      return Status::environment(
          fmt::format("cannot write {}: {}", temporary.string(), std::strerror(errno)));
    }
  }
  std::error_code ec;
  fs::rename(temporary, dir / kOwnerFile, ec);
  if (ec) {
    return Status::environment(
        fmt::format("cannot write {}: {}", (dir / kOwnerFile).string(), ec.message()));
  }
  return Status::ok();
}

std::vector<std::string> remove_stale_copies(const fs::path& tmp, std::chrono::seconds grace) {
  std::vector<std::string> removed;
  const ProcessIdentity self = this_process();
  // Without /proc no owner can be checked (every one would look gone, live runs' copies too):
  // nothing is removed.
  if (self.start_time == 0) return removed;
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& dir = it->path();
    const std::string name = dir.filename().string();
    if (!is_copy_name(name)) continue;
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
      continue;
    }
    if (!stale(dir, self, grace)) continue;
    std::error_code remove_error;
    fs::remove_all(dir, remove_error);
    if (!remove_error) removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

void PrivateCopies::add(std::string original, std::string copy) {
  std::lock_guard<std::mutex> lock(mu_);
  copies_.emplace_back(std::move(original), std::move(copy));
}

void PrivateCopies::remove(const std::string& copy) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(copies_, [&](const auto& c) { return c.second == copy; });
}

std::string PrivateCopies::find(const std::string& original) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = copies_.rbegin(); it != copies_.rend(); ++it) {
    if (it->first == original) return it->second;
  }
  return {};
}

Result<std::vector<std::pair<std::string, std::string>>> place_files(
    const ModelSpec& spec, std::size_t copy, World& world,
    const std::shared_ptr<PrivateCopies>& privates) {
  std::vector<std::pair<std::string, std::string>> moved;  // original path, copy's path
  auto at = [&](const SourcePos& pos) { return fmt::format("{}:{}", spec.file, pos.line); };
  for (const SystemSpec& system : spec.systems) {
    if (const auto* p = std::get_if<ProcessSpec>(&system)) {
      if (copy == 0) {
        if (p->db_copy) moved.emplace_back(p->options.db, std::string());
        continue;
      }
      if (p->options.port != 0) {
        return Status::invalid(fmt::format(
            "{}: system '{}' listens on the fixed port {}: each worker runs its own copy of the "
            "service, which needs a port of its own (leave port: out and use {{port}}, or run one "
            "worker)",
            at(p->pos), p->name, p->options.port));
      }
      if (!p->options.dsn.empty()) {
        return Status::invalid(fmt::format(
            "{}: system '{}' uses a PostgreSQL database ({{dsn}}): copies of the service for "
            "other workers would share it (run one worker)",
            at(p->pos), p->name));
      }
      if (!p->options.db.empty()) moved.emplace_back(p->options.db, std::string());
      continue;
    }
    if (copy == 0) continue;
    const auto& d = std::get<DatabaseSpec>(system);
    const bool copied =
        std::any_of(moved.begin(), moved.end(), [&](const auto& m) { return m.first == d.path; });
    if (d.type != "sqlite" || !copied) {
      return Status::invalid(fmt::format(
          "{}: database '{}' is not the {{db}} file of a process system declared before it: "
          "copies of the service for other workers would share it (run one worker)",
          at(d.pos), d.name));
    }
  }
  if (moved.empty()) return moved;
  const std::string for_what = copy == 0 ? std::string("the private copy (db_copy)")
                                         : fmt::format("copy {} of the world", copy);
  auto dir = make_copy_dir(copy, for_what, world);
  if (!dir) return dir.status();
  for (std::size_t i = 0; i < moved.size(); ++i) {
    const fs::path from = moved[i].first;
    // Two files of the same name in different directories stay apart.
    const fs::path to = *dir / fmt::format("{}-{}", i, from.filename().string());
    moved[i].second = to.string();
    if (copy == 0) {
      if (Status st = copy_database(from, to, /*must_exist=*/false, for_what); !st) return st;
      privates->add(from.string(), to.string());
      world.on_destroyed([privates, to] { privates->remove(to.string()); });
      continue;
    }
    // Copy 0's service works on its private copy, if it has one.
    const std::string source = privates->find(from.string());
    if (Status st = copy_database(source.empty() ? from : fs::path(source), to,
                                  /*must_exist=*/true, for_what);
        !st) {
      return st;
    }
  }
  return moved;
}

}  // namespace prowl::modelfile::detail
