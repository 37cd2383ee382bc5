// Pieces of PostgresSystem shared by its source files: postgres_open.cpp (connecting, resolving
// the tables, preparing), postgres.cpp (observation, queries), postgres_modes.cpp (savepoints,
// snapshots, begin and end), postgres_dsn.cpp (DSNs shown without their secrets),
// postgres_guard.cpp and postgres_recovery.cpp (the database's lock and recovery record), with the
// libpq helpers they all use (postgres_detail.cpp).
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db_guard_detail.hpp"
#include "prowl/core/status.hpp"
#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/postgres.hpp"

namespace prowl::detail {

struct ClearResult {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ClearResult>;

// libpq's messages end with a newline and continue on indented lines: one line, each run of
// white space one space.
std::string one_line(const char* message);
// The SQLSTATE of a failed result, "" when it has none.
std::string sqlstate(const PGresult* r);
// "relation \"nope\" does not exist (SQLSTATE 42P01)"; libpq's own message when the server sent
// none (a broken connection).
std::string result_message(const PGresult* r, PGconn* conn);
// Whether a result is a success (a command, or rows).
bool ok(const PGresult* r);
// Runs sql with $1 bound to the declared tables' OIDs (an array literal); `failing` names the
// step in the error.
Result<PgResult> exec_with_table_oids(PGconn* conn, const std::string& dsn, const std::string& oids,
                                      const char* sql, std::string_view failing);
void put_be32(std::string& out, std::uint32_t n);

// The outcome of a simple-protocol script: its first error, or the rows of its last statement
// that returned rows.
struct ScriptResult {
  PgResult error;
  PgResult rows;
};
// Runs a script of several statements in one round trip. Each COPY ... FROM STDIN in it is sent
// copy_in[i] (i-th COPY FROM of the script); each COPY ... TO STDOUT appends its data to
// copy_out[i] and its row count to rows_out[i].
ScriptResult run_script(PGconn* conn, const std::string& sql,
                        const std::vector<const std::string*>& copy_in = {},
                        std::vector<std::string>* copy_out = nullptr,
                        std::vector<std::uint64_t>* rows_out = nullptr);

// ---- The lock and the recovery record (postgres_guard.cpp, postgres_recovery.cpp).

// prowl's advisory lock key pair: 'prow', 'lock'.
inline constexpr int kLockKey1 = 0x70726f77;
inline constexpr int kLockKey2 = 0x6c6f636b;
// The schema that holds a recovery record.
inline constexpr std::string_view kRecordSchema = "prowl_recovery";

// Where a database's recovery record is: the schema prowl_recovery, or, for a role that may not
// create schemas, tables named prowl_recovery_* in a schema it may create tables in.
struct RecordPlace {
  std::string prefix;  // of the record's tables: "prowl_recovery." or "app.prowl_recovery_"
  std::string shown;   // in messages: "schema prowl_recovery", "tables app.prowl_recovery_*"
  std::string drop;    // drops the whole record ("" for the tables: they are looked up)
  std::string schema;  // the schema of the tables
};

// A PostgreSQL guard's lock: the connection that holds it, and where its record is.
struct PostgresEntry final : GuardEntry {
  ~PostgresEntry() override;
  std::string key;  // server_key() of conn
  PGconn* conn = nullptr;
  RecordPlace place;  // where write_record() put the record
};

// Which database a connection reached, as libpq reports it: host (or socket directory), port and
// database name. Two guards with the same key are one lock in the process.
std::string server_key(PGconn* conn);
// Whether guard is a PostgreSQL guard on the database conn is connected to.
bool postgres_guard_covers(const DatabaseGuard& guard, PGconn* conn);

// A declared table as the record keeps it: what the run's initial image holds of it.
struct RecordTable {
  std::string qualified;  // as PostgreSQL names it
  std::string columns;    // the columns COPY writes, quoted, comma-separated
  bool partitioned = false;
  const std::string* data = nullptr;  // its rows in COPY's binary format
  std::uint64_t rows = 0;
};
// Writes the record on the guard's connection, in one committed transaction: the schema
// prowl_recovery (or, when the role may not create one, tables prowl_recovery_* in its current
// schema) with the table run (format, pid, begun, host, setval), the table tables (position,
// name, partitioned, columns) and one table t<position> per declared table holding its rows.
// tables are in the order their rows go back in (referenced tables first). REQUIRES:
// guard_mutex() held (begin_record()).
Status write_record(const DatabaseGuard& guard, const std::vector<RecordTable>& tables,
                    const std::string& setval);
// Drops the record. REQUIRES: guard_mutex() held (end_record()).
Status drop_record(const DatabaseGuard& guard);
// On a connection that holds the lock: when the database holds a record, puts its content back
// (TRUNCATE, INSERT from the kept tables, setval), drops it, all in one transaction, and returns
// the line that says so; "" when there is no record. `database` names it in messages.
Result<std::string> recover(PGconn* conn, const std::string& database);

}  // namespace prowl::detail

namespace prowl {

struct PostgresSystem::Table {
  std::string declared;   // as given in the options
  std::string qualified;  // as PostgreSQL names it (quoted, schema-qualified when needed)
  Oid oid = 0;
  bool partitioned = false;
  std::string columns;  // the columns COPY writes (not generated), quoted, comma-separated
};

struct PostgresSystem::Observed {
  enum class Kind { kTable, kQuery, kSequences };
  std::string name;
  std::string sql;
  std::string statement;  // prepared statement name
  Kind kind = Kind::kTable;
};

struct PostgresSystem::Image {
  std::vector<std::string> data;  // per table: its rows in COPY's binary format
  std::vector<std::uint64_t> rows;
  std::string setval;  // sets the owned sequences back; empty without sequences
};

// One statement of a pipeline: a prepared statement's name, or SQL without parameters.
struct PostgresSystem::Command {
  std::string text;
  bool prepared = false;
};

struct PostgresSystem::Batch {
  std::vector<detail::PgResult> results;
};

}  // namespace prowl
