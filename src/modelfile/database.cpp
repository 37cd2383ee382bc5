#include "database.hpp"

#include <strings.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "prowl/modelfile/loader.hpp"

#include "prowl/systems/postgres.hpp"
#include "prowl/systems/sqlite.hpp"

namespace prowl::modelfile::detail {

namespace {

// A failure to open the database: when it is a declared table the database does not have (a bad
// model, Status::invalid), the table's place in the model file and the closest table there is.
Status explain_open_failure(const Status& st, const DatabaseSpec& spec, const std::string& file,
                            const std::function<Result<std::vector<std::string>>()>& list) {
  if (st.code() != StatusCode::kInvalid ||
      st.message().find("does not exist") == std::string::npos) {
    return st;
  }
  auto existing = list();
  if (!existing) return st;
  auto has = [&](const std::string& table) {
    for (const std::string& e : *existing) {
      if (strcasecmp(e.c_str(), table.c_str()) == 0) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < spec.tables.size(); ++i) {
    if (has(spec.tables[i])) continue;
    const SourcePos at = i < spec.table_pos.size() ? spec.table_pos[i] : spec.pos;
    const std::string near = closest_word(spec.tables[i], *existing);
    const std::string hint = !near.empty() ? fmt::format("did you mean '{}'?", near)
                             : existing->empty()
                                 ? std::string("the database has no tables yet")
                                 : fmt::format("the tables are: {}", fmt::join(*existing, ", "));
    return Status::invalid(fmt::format("{}:{}:{}: system '{}': {}\n  hint: {}", file, at.line,
                                       at.column, spec.name, st.message(), hint));
  }
  return st;
}

Result<Database::Driver> sqlite_driver(const DatabaseSpec& spec, DriverSetup setup) {
  SqliteOptions o;
  o.path = spec.path;
  o.tables = spec.tables;
  for (const auto& [name, sql] : spec.queries) o.queries.push_back({name, sql});
  o.busy_timeout_ms = static_cast<int>(spec.busy_timeout.count());
  o.recovery_record = setup.recovery_record;
  Database::Driver d;
  d.capabilities = {
      .snapshot = true, .stack = false, .reset = true, .cheap = false, .portable = true};
  d.open = [spec, o, setup]() -> Result<std::unique_ptr<System>> {
    auto db = SqliteSystem::open(spec.name, o, setup.guard);
    if (!db) {
      return explain_open_failure(db.status(), spec, setup.file,
                                  [&] { return SqliteSystem::table_names(o.path); });
    }
    return std::unique_ptr<System>(std::move(*db));
  };
  d.query = [](System& s, const std::string& sql) {
    return static_cast<SqliteSystem&>(s).query(sql);
  };
  return d;
}

// Snapshot mode only: the service has connections of its own, which prowl's savepoints could not
// roll back (the loader refuses mode: savepoint).
Result<Database::Driver> postgres_driver(const DatabaseSpec& spec, DriverSetup setup) {
  PostgresOptions o;
  o.dsn = spec.dsn;
  o.mode = PostgresMode::kSnapshot;
  o.tables = spec.tables;
  for (const auto& [name, sql] : spec.queries) o.queries.push_back({name, sql});
  o.lock_timeout_ms = static_cast<int>(spec.busy_timeout.count());
  Database::Driver d;
  d.capabilities = {.snapshot = true, .stack = false, .reset = true, .cheap = false};
  d.open = [spec, o, setup]() -> Result<std::unique_ptr<System>> {
    auto db = PostgresSystem::open(spec.name, o, setup.guard);
    if (!db) {
      return explain_open_failure(db.status(), spec, setup.file,
                                  [&] { return PostgresSystem::table_names(o.dsn); });
    }
    return std::unique_ptr<System>(std::move(*db));
  };
  d.query = [](System& s, const std::string& sql) {
    return static_cast<PostgresSystem&>(s).query(sql);
  };
  return d;
}

}  // namespace

Result<Database::Driver> driver_for(const DatabaseSpec& spec, DriverSetup setup) {
  if (spec.type == "sqlite") return sqlite_driver(spec, std::move(setup));
  if (spec.type == "postgres") return postgres_driver(spec, std::move(setup));
  return Status::invalid(fmt::format("system '{}': this build of prowl cannot open {} databases",
                                     spec.name, spec.type));
}

Database::Database(std::string name, std::string type, Driver driver)
    : System(std::move(name)), type_(std::move(type)), driver_(std::move(driver)) {}

Result<SqlRows> Database::query(const std::string& sql) const {
  PROWL_CHECK(inner_ != nullptr, "Database::query before begin()");
  return driver_.query(*inner_, sql);
}

Status Database::observe(Hasher& hasher) const {
  PROWL_CHECK(inner_ != nullptr, "Database::observe before begin()");
  return inner_->observe(hasher);
}

std::string Database::describe() const { return inner_ ? inner_->describe() : std::string(); }

Status Database::begin() {
  PROWL_CHECK(inner_ == nullptr, "Database::begin called twice");
  auto opened = driver_.open();
  if (!opened) return opened.status();
  inner_ = std::move(*opened);
  return inner_->begin();
}

Status Database::end() { return inner_ ? inner_->end() : Status::ok(); }

Result<SnapshotHandle> Database::save() { return inner_->save(); }
Status Database::restore(SnapshotHandle handle) { return inner_->restore(handle); }
void Database::release(SnapshotHandle handle) { inner_->release(handle); }
Result<SystemImagePtr> Database::capture() { return inner_->capture(); }
Status Database::load(const SystemImagePtr& image) { return inner_->load(image); }
Status Database::push() { return inner_->push(); }
Status Database::rollback(std::size_t depth) { return inner_->rollback(depth); }
Status Database::reset() { return inner_->reset(); }

}  // namespace prowl::modelfile::detail
