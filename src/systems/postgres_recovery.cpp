// The recovery record of a PostgreSQL database, kept in the database itself (the schema
// prowl_recovery), so that it is committed, backed up and visible with the data it protects:
//   prowl_recovery.run     one row: format, pid, begun, host, setval (the statement that sets the
//                          owned sequences back; empty without sequences)
//   prowl_recovery.tables  one row per declared table: position, name (as PostgreSQL names it),
//                          partitioned, columns (quoted, comma-separated)
//   prowl_recovery.t<N>    the rows table N held when the run began
#include <libpq-fe.h>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "db_guard_detail.hpp"
#include "postgres_detail.hpp"

namespace prowl::detail {
namespace {

constexpr int kRecordFormat = 1;
// How long a recovery waits for another session's locks on the tables.
constexpr int kRecoveryLockTimeoutMs = 5000;

// A SQL literal of text, quoted by libpq for this connection.
Result<std::string> literal(PGconn* conn, const std::string& text) {
  std::unique_ptr<char, void (*)(void*)> quoted(PQescapeLiteral(conn, text.data(), text.size()),
                                                PQfreemem);
  if (quoted == nullptr) {
    return Status::environment(
        fmt::format("cannot quote a value for PostgreSQL: {}", one_line(PQerrorMessage(conn))));
  }
  return std::string(quoted.get());
}

// "ONLY t", or "t" for a partitioned table (whose rows are in its partitions).
std::string target(const std::string& qualified, bool partitioned) {
  return partitioned ? qualified : "ONLY " + qualified;
}

}  // namespace

namespace {

RecordPlace schema_place() {
  const std::string schema(kRecordSchema);
  return {schema + ".", "schema " + schema, "DROP SCHEMA " + schema + " CASCADE", schema};
}

// Tables prowl_recovery_* in the schema `quoted` (an identifier as quote_ident() gives it), with
// positions 0 .. tables - 1.
RecordPlace table_place(const std::string& quoted, std::size_t tables) {
  RecordPlace place{quoted + ".prowl_recovery_", "tables " + quoted + ".prowl_recovery_*", "",
                    quoted};
  place.drop = fmt::format("DROP TABLE {0}run, {0}tables", place.prefix);
  for (std::size_t i = 0; i < tables; ++i) place.drop += fmt::format(", {}t{}", place.prefix, i);
  return place;
}

// Writes the record at place in one transaction; false in *denied when the role may not create
// it there.
Status write_at(PGconn* conn, const std::string& database, const RecordPlace& place,
                const std::vector<RecordTable>& tables, const std::string& setval, bool* denied) {
  const Holder holder = current_holder();
  auto begun = literal(conn, holder.since);
  auto host = literal(conn, host_name());
  auto sequences = literal(conn, setval);
  if (!begun || !host || !sequences) return Status::environment(database + ": out of memory");
  std::string sql = "BEGIN;";
  if (place.prefix == schema_place().prefix) {
    sql += fmt::format(
        " CREATE SCHEMA {0}; COMMENT ON SCHEMA {0} IS 'prowl: the content of tables from before a "
        "run, put back by the next run if this one does not end';",
        place.schema);
  }
  sql += fmt::format(
      " CREATE TABLE {0}run (format int NOT NULL, pid bigint NOT NULL, begun text NOT NULL, "
      "host text NOT NULL, setval text NOT NULL);"
      " INSERT INTO {0}run VALUES ({1}, {2}, {3}, {4}, {5});"
      " CREATE TABLE {0}tables (position int PRIMARY KEY, name text NOT NULL, "
      "partitioned bool NOT NULL, columns text NOT NULL);",
      place.prefix, kRecordFormat, holder.pid, *begun, *host, *sequences);
  std::vector<const std::string*> data;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const RecordTable& t = tables[i];
    auto name = literal(conn, t.qualified);
    auto columns = literal(conn, t.columns);
    if (!name || !columns) return Status::environment(database + ": out of memory");
    // The name schema-qualified whatever the search path: the recovery may run in a session that
    // has another one.
    sql += fmt::format(
        " INSERT INTO {0}tables SELECT {1}, format('%I.%I', n.nspname, c.relname), {3}, {4} FROM "
        "pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = {2}::regclass;"
        " CREATE TABLE {0}t{1} AS SELECT {5} FROM {6} WITH NO DATA;",
        place.prefix, i, *name, t.partitioned ? "true" : "false", *columns, t.columns,
        target(t.qualified, t.partitioned));
    if (t.rows > 0) {
      sql +=
          fmt::format(" COPY {}t{} ({}) FROM STDIN (FORMAT binary);", place.prefix, i, t.columns);
      data.push_back(t.data);
    }
  }
  sql += " COMMIT";
  ScriptResult r = run_script(conn, sql, data);
  if (!r.error) return Status::ok();
  std::string message = result_message(r.error.get(), conn);
  *denied = sqlstate(r.error.get()) == "42501";  // insufficient_privilege
  if (PQtransactionStatus(conn) != PQTRANS_IDLE) PQclear(PQexec(conn, "ROLLBACK"));
  return Status::environment(
      fmt::format("{}: cannot write the recovery record ({}): {}", database, place.shown, message));
}

}  // namespace

Status write_record(const DatabaseGuard& guard, const std::vector<RecordTable>& tables,
                    const std::string& setval) {
  auto& entry = entry_of<PostgresEntry>(guard);
  bool denied = false;
  const RecordPlace own = schema_place();
  Status st = write_at(entry.conn, guard.database(), own, tables, setval, &denied);
  if (st) {
    entry.place = own;
    return st;
  }
  if (!denied) return st;
  // A role that may not create a schema may still create tables where it works.
  PgResult current(PQexec(entry.conn, "SELECT quote_ident(current_schema())"));
  if (!ok(current.get()) || PQntuples(current.get()) != 1 || PQgetisnull(current.get(), 0, 0)) {
    return Status::environment(fmt::format(
        "{}; and the role has no current schema to keep the record in instead: grant it CREATE "
        "on the database",
        st.message()));
  }
  const RecordPlace tables_place = table_place(PQgetvalue(current.get(), 0, 0), tables.size());
  Status second = write_at(entry.conn, guard.database(), tables_place, tables, setval, &denied);
  if (!second) {
    return Status::environment(fmt::format(
        "{}; nor in {}: {}; grant the role CREATE on the database (or on a schema in its "
        "search_path)",
        st.message(), tables_place.shown, second.message()));
  }
  entry.place = tables_place;
  return Status::ok();
}

Status drop_record(const DatabaseGuard& guard) {
  const auto& entry = entry_of<PostgresEntry>(guard);
  PgResult r(PQexec(entry.conn, entry.place.drop.c_str()));
  if (!ok(r.get())) {
    return Status::environment(fmt::format("{}: cannot drop the recovery record ({}): {}",
                                           guard.database(), entry.place.shown,
                                           result_message(r.get(), entry.conn)));
  }
  return Status::ok();
}

namespace {

// Where a run that did not end left its record: "schema" for the schema prowl_recovery, the
// quoted name of a schema that holds tables prowl_recovery_*, or "" when there is none.
Result<std::string> find_record(PGconn* conn, const std::string& database) {
  // The schema prowl_recovery, or else tables prowl_recovery_run in any schema.
  const std::string sql = fmt::format(
      "SELECT 'schema' WHERE to_regnamespace('{0}') IS NOT NULL UNION ALL "
      "(SELECT quote_ident(n.nspname) FROM pg_class c JOIN pg_namespace n ON n.oid = "
      "c.relnamespace WHERE c.relkind = 'r' AND c.relname = 'prowl_recovery_run' ORDER BY 1) "
      "LIMIT 1",
      kRecordSchema);
  PgResult found(PQexec(conn, sql.c_str()));
  if (!ok(found.get())) {
    return Status::environment(fmt::format("{}: cannot look for a recovery record: {}", database,
                                           result_message(found.get(), conn)));
  }
  if (PQntuples(found.get()) == 0) return std::string();
  return std::string(PQgetvalue(found.get(), 0, 0));
}

// A record that cannot be read is left alone: the user checks the database and removes it.
Status unreadable(const std::string& database, const RecordPlace& place, bool own_schema,
                  const std::string& why) {
  return Status::environment(fmt::format(
      "{}: the recovery record of a run that did not end ({}) cannot be read ({}); the database "
      "may still hold that run's changes: check it, then remove the record by hand ({})",
      database, place.shown, why, own_schema ? place.drop : "DROP TABLE each of " + place.shown));
}

// The run that left a record, as its run table has it.
struct RecordedRun {
  std::string pid;
  std::string begun;
  std::string host;
  std::string setval;
};

Result<RecordedRun> read_run(PGconn* conn, const std::string& database, const RecordPlace& place,
                             bool own_schema) {
  PgResult run(PQexec(
      conn,
      fmt::format("SELECT format, pid, begun, host, setval FROM {}run", place.prefix).c_str()));
  auto fail = [&](const std::string& why) { return unreadable(database, place, own_schema, why); };
  if (!ok(run.get())) return fail(result_message(run.get(), conn));
  if (PQntuples(run.get()) != 1) {
    return fail(fmt::format("{}run has {} rows, not 1", place.prefix, PQntuples(run.get())));
  }
  const std::string format = PQgetvalue(run.get(), 0, 0);
  if (format != std::to_string(kRecordFormat)) {
    return fail(fmt::format("format {}, not {}", format, kRecordFormat));
  }
  return RecordedRun{PQgetvalue(run.get(), 0, 1), PQgetvalue(run.get(), 0, 2),
                     PQgetvalue(run.get(), 0, 3), PQgetvalue(run.get(), 0, 4)};
}

// One transaction: all of it is put back and the record dropped, or nothing changes. `tables` is
// the record's list of tables (position, name, partitioned, columns).
std::string recovery_script(PGconn* conn, const PGresult* tables, const RecordPlace& place,
                            const std::string& setval) {
  const int n = PQntuples(tables);
  std::string script = fmt::format("BEGIN; SET LOCAL lock_timeout = {};", kRecoveryLockTimeoutMs);
  const char* su = PQparameterStatus(conn, "is_superuser");
  if (su != nullptr && std::string(su) == "on") {
    script += " SET LOCAL session_replication_role = replica;";  // as a restore: no triggers
  }
  for (int i = 0; i < n; ++i) {
    const bool partitioned = PQgetvalue(tables, i, 2)[0] == 't';
    script += fmt::format("{} {}", i == 0 ? " TRUNCATE" : ",",
                          target(PQgetvalue(tables, i, 1), partitioned));
  }
  if (n > 0) script += ";";
  for (int i = 0; i < n; ++i) {
    const std::string columns = PQgetvalue(tables, i, 3);
    script += fmt::format(" INSERT INTO {} ({}) SELECT {} FROM {}t{};", PQgetvalue(tables, i, 1),
                          columns, columns, place.prefix, PQgetvalue(tables, i, 0));
  }
  if (!setval.empty()) script += " " + setval + ";";
  script += " " + place.drop + "; COMMIT";
  return script;
}

}  // namespace

Result<std::string> recover(PGconn* conn, const std::string& database) {
  auto where = find_record(conn, database);
  if (!where) return where.status();
  if (where->empty()) return std::string();
  const bool own_schema = *where == "schema";
  RecordPlace place = own_schema ? schema_place() : table_place(*where, 0);
  auto run = read_run(conn, database, place, own_schema);
  if (!run) return run.status();
  PgResult tables(
      PQexec(conn, fmt::format("SELECT position, name, partitioned, columns FROM {}tables ORDER BY "
                               "position",
                               place.prefix)
                       .c_str()));
  if (!ok(tables.get())) {
    return unreadable(database, place, own_schema, result_message(tables.get(), conn));
  }
  if (!own_schema) {
    place.drop = fmt::format("DROP TABLE {0}run, {0}tables", place.prefix);
    for (int i = 0; i < PQntuples(tables.get()); ++i) {
      place.drop += fmt::format(", {}t{}", place.prefix, PQgetvalue(tables.get(), i, 0));
    }
  }

  ScriptResult r = run_script(conn, recovery_script(conn, tables.get(), place, run->setval));
  if (r.error) {
    std::string message = result_message(r.error.get(), conn);
    if (PQtransactionStatus(conn) != PQTRANS_IDLE) PQclear(PQexec(conn, "ROLLBACK"));
    return Status::environment(fmt::format(
        "{}: cannot put back the content from before a run of pid {} (begun {}) that did not end: "
        "{}; the recovery record ({}) is kept",
        database, run->pid, run->begun, message, place.shown));
  }
  const std::string on_host =
      run->host.empty() || run->host == host_name() ? "" : " on host " + run->host;
  return fmt::format(
      "recovered {}: put back its content from before the run of pid {}{} (begun {}) that did "
      "not end",
      database, run->pid, on_host, run->begun);
}

}  // namespace prowl::detail
