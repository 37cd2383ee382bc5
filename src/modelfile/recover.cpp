#include "prowl/modelfile/recover.hpp"

#include <filesystem>
#include <system_error>
#include <variant>

#include <fmt/format.h>

#include "file_copies.hpp"
#include "prowl/systems/db_guard.hpp"

namespace prowl::modelfile {

Result<std::vector<std::string>> recover(const ModelSpec& spec, bool force) {
  PROWL_CHECK(
      !spec.list_only,
      fmt::format("model file {} was read for listing only: it cannot be recovered", spec.file));
  std::vector<std::string> done;
  for (const SystemSpec& system : spec.systems) {
    const auto* d = std::get_if<DatabaseSpec>(&system);
    if (d == nullptr) continue;
    const GuardOptions options{.force_recovery = force};
    auto guard =
        d->type == "sqlite" ? guard_sqlite(d->path, options) : guard_postgres(d->dsn, options);
    if (!guard) return guard.status();
    if (!(*guard)->recovered().empty()) done.push_back((*guard)->recovered());
  }
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (!ec) {
    for (const std::string& name : detail::remove_stale_copies(tmp)) {
      done.push_back(fmt::format("removed {}, a worker copy of a run that did not end",
                                 (tmp / name).string()));
    }
  }
  return done;
}

}  // namespace prowl::modelfile
