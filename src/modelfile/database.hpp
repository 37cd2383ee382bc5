// Database: a database system declared in a model file (sqlite, postgres). It opens the real
// System in begin(), not when the world is built: the World begins its systems in declaration
// order, so a service declared before it has started (and created its database file) by then.
// Everything else is forwarded to the opened system; query() runs the SQL of invariants.
//
// Each database type is one Driver: the capabilities of the system it opens, how to open it, and
// how to run an ad-hoc query on it. Adding a type is one more driver function in database.cpp.
// Owned by the World like any System; driven from one thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "prowl/modelfile/spec.hpp"
#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/sql.hpp"
#include "prowl/world/system.hpp"

namespace prowl::modelfile::detail {

class Database final : public System {
 public:
  struct Driver {
    Capabilities capabilities;
    std::function<Result<std::unique_ptr<System>>()> open;
    std::function<Result<SqlRows>(System&, const std::string& sql)> query;
  };

  Database(std::string name, std::string type, Driver driver);

  const std::string& type() const { return type_; }
  // Runs one read-only statement. REQUIRES: begun.
  Result<SqlRows> query(const std::string& sql) const;

  Capabilities capabilities() const override { return driver_.capabilities; }
  Status observe(Hasher& hasher) const override;
  std::string describe() const override;
  Status begin() override;
  Status end() override;
  Result<SnapshotHandle> save() override;
  Status restore(SnapshotHandle handle) override;
  void release(SnapshotHandle handle) override;
  Result<SystemImagePtr> capture() override;
  Status load(const SystemImagePtr& image) override;
  Status push() override;
  Status rollback(std::size_t depth) override;
  Status reset() override;

 private:
  std::string type_;
  Driver driver_;
  std::unique_ptr<System> inner_;
};

// How one copy of the world opens a database.
struct DriverSetup {
  std::string file;  // the model file, for messages
  // The run's hold on the database (taken before any service started), or null: open() takes it.
  std::shared_ptr<DatabaseGuard> guard;
  // False for a copy of a database in a temporary directory (another worker's): nothing to
  // recover if the run is killed.
  bool recovery_record = true;
};

// The driver for spec.type. Status::invalid for a type this build cannot open. A declared table
// the database does not have is, when the driver opens it, Status::invalid naming the table's
// FILE:LINE:COL and the closest of the tables the database has.
Result<Database::Driver> driver_for(const DatabaseSpec& spec, DriverSetup setup);

}  // namespace prowl::modelfile::detail
