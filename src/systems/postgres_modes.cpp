// PostgresSystem's two ways of bringing the database back: savepoints on prowl's transaction, and
// snapshots of the declared tables; begin(), reset() and end() for both, with the recovery record.
#include <libpq-fe.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "db_guard_detail.hpp"
#include "postgres_detail.hpp"
#include "prowl/systems/postgres.hpp"

namespace prowl {

using detail::ok;
using detail::PgResult;
using detail::result_message;
using detail::run_script;
using detail::ScriptResult;
using detail::sqlstate;

// ---- Savepoint mode.

Status PostgresSystem::begin_transaction() {
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
    return Status::environment(fmt::format(
        "postgres '{}': cannot begin: prowl's connection already has a transaction open", dsn_));
  }
  const std::string sql = "BEGIN; SAVEPOINT prowl_sp_0; " + state_sql_;
  ScriptResult r = run_script(conn_, sql);
  if (r.error) {
    std::string message = result_message(r.error.get(), conn_);
    PQclear(PQexec(conn_, "ROLLBACK"));
    return Status::environment(
        fmt::format("postgres '{}': cannot begin a transaction: {}", dsn_, message));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  savepoint_setval_.assign(1, state->setval);
  depth_ = 0;
  return Status::ok();
}

Status PostgresSystem::push() {
  PROWL_CHECK(options_.mode == PostgresMode::kSavepoint && begun_,
              "postgres '" + dsn_ + "': push() needs savepoint mode, after begin()");
  if (Status st = usable_transaction(); !st) return st;
  ScriptResult r =
      run_script(conn_, fmt::format("SAVEPOINT prowl_sp_{}; {}", depth_ + 1, state_sql_));
  if (r.error) {
    return Status::environment(fmt::format("postgres '{}': cannot set a savepoint: {}", dsn_,
                                           result_message(r.error.get(), conn_)));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  ++depth_;
  savepoint_setval_.push_back(std::move(state->setval));
  return Status::ok();
}

Status PostgresSystem::rollback(std::size_t depth) {
  PROWL_CHECK(options_.mode == PostgresMode::kSavepoint && begun_,
              "postgres '" + dsn_ + "': rollback() needs savepoint mode, after begin()");
  PROWL_CHECK(depth <= depth_, "postgres '" + dsn_ + "': rollback above the current savepoint");
  return roll_back_to(depth);
}

Status PostgresSystem::roll_back_to(std::size_t depth) {
  // An aborted transaction can still roll back to a savepoint; an ended one cannot.
  const auto status = PQtransactionStatus(conn_);
  if (status != PQTRANS_INTRANS && status != PQTRANS_INERROR) return usable_transaction();
  // Sequences do not roll back with the transaction: set them back too.
  std::string sql = fmt::format("ROLLBACK TO SAVEPOINT prowl_sp_{}", depth);
  if (!savepoint_setval_[depth].empty()) sql += "; " + savepoint_setval_[depth];
  ScriptResult r = run_script(conn_, sql);
  if (r.error) {
    return Status::environment(fmt::format("postgres '{}': cannot roll back to savepoint {}: {}",
                                           dsn_, depth, result_message(r.error.get(), conn_)));
  }
  depth_ = depth;
  savepoint_setval_.resize(depth + 1);
  return Status::ok();
}

Result<bool> PostgresSystem::guarded(const std::function<void()>& fn) {
  PROWL_CHECK(options_.mode == PostgresMode::kSavepoint && begun_,
              "postgres '" + dsn_ + "': guarded() needs savepoint mode, after begin()");
  if (Status st = usable_transaction(); !st) return st;
  PgResult set(PQexec(conn_, "SAVEPOINT prowl_guard"));
  if (!ok(set.get())) return error("cannot set a savepoint for an action");
  fn();
  const bool aborted = PQtransactionStatus(conn_) == PQTRANS_INERROR;
  if (!aborted) {
    if (Status st = usable_transaction(); !st) return st;
  }
  PgResult end(PQexec(conn_, aborted ? "ROLLBACK TO SAVEPOINT prowl_guard; "
                                       "RELEASE SAVEPOINT prowl_guard"
                                     : "RELEASE SAVEPOINT prowl_guard"));
  if (!ok(end.get())) return error("cannot release the savepoint of an action");
  return !aborted;
}

// ---- Snapshot mode.

Result<std::shared_ptr<const PostgresSystem::Image>> PostgresSystem::read_image() {
  // One read-only transaction sees every table at one point in time; the state (WAL position,
  // sequences) is read last, so that whatever the reads themselves wrote (pruned pages) is
  // behind it.
  std::string sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;";
  for (const Table& t : tables_) {
    sql += fmt::format(" COPY (SELECT {} FROM {}{}) TO STDOUT (FORMAT binary);", t.columns,
                       t.partitioned ? "" : "ONLY ", t.qualified);
  }
  sql += " " + state_sql_ + "; COMMIT";
  auto image = std::make_shared<Image>();
  image->data.resize(tables_.size());
  image->rows.resize(tables_.size());
  ScriptResult r = run_script(conn_, sql, {}, &image->data, &image->rows);
  if (r.error) {
    std::string message = result_message(r.error.get(), conn_);
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
    return Status::environment(
        fmt::format("postgres '{}': cannot save the tables: {}", dsn_, message));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  image->setval = state->setval;
  std::shared_ptr<const Image> result = std::move(image);
  current_ = result;
  current_state_ = std::move(*state);
  return result;
}

Status PostgresSystem::write_image(const std::shared_ptr<const Image>& image) {
  // Skip the write when the database holds this image and nothing was written since: any write
  // in the cluster moves the WAL insert position, except nextval(), which logs only every few
  // values, so the sequences are compared too. Unlogged tables write no WAL: never skipped.
  if (current_ == image && !unlogged_) {
    auto now = state_now();
    if (!now) return now.status();
    if (now->wal == current_state_.wal && now->setval == current_state_.setval) {
      ++skipped_restores_;
      return Status::ok();
    }
  }
  current_.reset();
  // READ WRITE: the session is read-only by default between begin() and end().
  std::string sql =
      fmt::format("BEGIN READ WRITE; SET LOCAL lock_timeout = {};", options_.lock_timeout_ms);
  // Restoring rows must not fire the tables' triggers (an audit trigger would log the restore)
  // nor check foreign keys row by row: the replica role skips both, for a superuser.
  if (superuser_) sql += " SET LOCAL session_replication_role = replica;";
  sql += " TRUNCATE";
  for (std::size_t i = 0; i < tables_.size(); ++i) {
    sql += fmt::format("{} {}{}", i > 0 ? "," : "", tables_[i].partitioned ? "" : "ONLY ",
                       tables_[i].qualified);
  }
  sql += ";";
  std::vector<const std::string*> data;
  for (std::size_t i : copy_order_) {
    if (image->rows[i] == 0) continue;
    sql += fmt::format(" COPY {} ({}) FROM STDIN (FORMAT binary);", tables_[i].qualified,
                       tables_[i].columns);
    data.push_back(&image->data[i]);
  }
  if (!image->setval.empty()) sql += " " + image->setval + ";";
  sql += " COMMIT; " + state_sql_;
  ScriptResult r = run_script(conn_, sql, data);
  if (r.error) {
    std::string message = result_message(r.error.get(), conn_);
    const bool locked = sqlstate(r.error.get()) == "55P03";
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
    if (locked) {
      return Status::environment(fmt::format(
          "postgres '{}': cannot restore a snapshot: the declared tables stayed locked for {} ms "
          "(the service must be idle, with no open transaction, between requests): {}",
          dsn_, options_.lock_timeout_ms, message));
    }
    return Status::environment(
        fmt::format("postgres '{}': cannot restore a snapshot: {}", dsn_, message));
  }
  auto state = read_state(r.rows.get());
  if (!state) return state.status();
  current_ = image;
  current_state_ = std::move(*state);
  return Status::ok();
}

Result<SnapshotHandle> PostgresSystem::save() {
  PROWL_CHECK(options_.mode == PostgresMode::kSnapshot,
              "postgres '" + dsn_ + "': save() needs snapshot mode");
  std::shared_ptr<const Image> image;
  if (current_ && !unlogged_) {
    // Unchanged since prowl wrote or read an image: share it.
    auto now = state_now();
    if (!now) return now.status();
    if (now->wal == current_state_.wal && now->setval == current_state_.setval) image = current_;
  }
  if (!image) {
    auto read = read_image();
    if (!read) return read.status();
    image = std::move(*read);
  }
  SnapshotHandle h;
  if (!free_.empty()) {
    h = free_.back();
    free_.pop_back();
    images_[h] = std::move(image);
  } else {
    h = static_cast<SnapshotHandle>(images_.size());
    images_.push_back(std::move(image));
  }
  return h;
}

Status PostgresSystem::restore(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle] != nullptr,
              "postgres '" + dsn_ + "': restore of an unknown snapshot");
  return write_image(images_[handle]);
}

void PostgresSystem::release(SnapshotHandle handle) {
  PROWL_CHECK(handle < images_.size() && images_[handle] != nullptr,
              "postgres '" + dsn_ + "': release of an unknown snapshot");
  images_[handle].reset();
  free_.push_back(handle);
}

std::size_t PostgresSystem::live_snapshots() const { return images_.size() - free_.size(); }

// ---- Both modes.

Status PostgresSystem::begin() {
  PROWL_CHECK(!begun_, "postgres '" + dsn_ + "': begin() called twice");
  std::vector<detail::RecordTable> record;
  std::string setval;
  if (options_.mode == PostgresMode::kSavepoint) {
    if (Status st = begin_transaction(); !st) return st;
    setval = savepoint_setval_[0];
  } else {
    // The schema may have changed since open().
    if (Status st = check_foreign_keys(); !st) return st;
    auto image = read_image();
    if (!image) return image.status();
    initial_ = std::move(*image);
    // From here on prowl's connection only reads, except in restores (BEGIN READ WRITE): the
    // declared queries and query() run read-only at no cost per step.
    PgResult r(PQexec(conn_, "SET default_transaction_read_only = on"));
    if (!ok(r.get())) {
      return Status::environment(fmt::format("postgres '{}': cannot make the session read-only: {}",
                                             dsn_, result_message(r.get(), conn_)));
    }
    read_only_session_ = true;
    for (std::size_t i : copy_order_) {
      const Table& t = tables_[i];
      record.push_back(
          {t.qualified, t.columns, t.partitioned, &initial_->data[i], initial_->rows[i]});
    }
    setval = initial_->setval;
  }
  begun_ = true;
  // Before anything changes the database: what to put back if this run does not end. Savepoint
  // mode needs only the sequences (the server rolls back a dead connection's transaction).
  if (!record.empty() || !setval.empty()) {
    Status st = detail::begin_record(*guard_,
                                     [&] { return detail::write_record(*guard_, record, setval); });
    if (!st) {
      static_cast<void>(end());
      return st;
    }
    recording_ = true;
  }
  return Status::ok();
}

Status PostgresSystem::reset() {
  PROWL_CHECK(begun_, "postgres '" + dsn_ + "': reset before begin()");
  if (options_.mode == PostgresMode::kSavepoint) return roll_back_to(0);
  return write_image(initial_);
}

Status PostgresSystem::end() {
  if (!begun_) return Status::ok();
  Status result;
  if (options_.mode == PostgresMode::kSavepoint) {
    // An aborted transaction still rolls back; one the code under test ended cannot.
    const auto status = PQtransactionStatus(conn_);
    const bool open = status == PQTRANS_INTRANS || status == PQTRANS_INERROR;
    result = open ? Status::ok() : usable_transaction();
    // The sequences go back after the transaction: setval() is not rolled back.
    std::string sql = open ? "ROLLBACK; " : "";
    sql += savepoint_setval_.empty() || savepoint_setval_[0].empty() ? "SELECT 1"
                                                                     : savepoint_setval_[0];
    ScriptResult r = run_script(conn_, sql);
    if (r.error && result) {
      result = Status::environment(fmt::format("postgres '{}': cannot end the transaction: {}",
                                               dsn_, result_message(r.error.get(), conn_)));
    }
    depth_ = 0;
    savepoint_setval_.clear();
  } else {
    result = write_image(initial_);
    images_.clear();
    free_.clear();
    initial_.reset();
    current_.reset();
    PgResult r(PQexec(conn_, "RESET default_transaction_read_only"));
    read_only_session_ = false;
    if (!ok(r.get()) && result) {
      result = Status::environment(fmt::format("postgres '{}': cannot reset the session: {}", dsn_,
                                               result_message(r.get(), conn_)));
    }
  }
  begun_ = false;
  if (recording_) {
    recording_ = false;
    if (!result) {
      // The initial content is not back: the record stays for the next guard.
      detail::abandon_record(*guard_);
      return result;
    }
    result = detail::end_record(*guard_, [this] { return detail::drop_record(*guard_); });
  }
  return result;
}

}  // namespace prowl
