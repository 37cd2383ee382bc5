// PostgresSystem: a PostgreSQL database as a System, in one of two modes.
//
// kSavepoint (stack and reset capabilities) is for code under test that runs in prowl's process
// and uses prowl's connection (connection()). begin() opens a transaction, push() sets a
// SAVEPOINT, rollback(d) rolls back to savepoint d, and end() rolls the whole transaction back,
// so the database is left exactly as it was. Sequences are not transactional: push() records the
// values of the sequences the declared tables own and rollback() sets them back. A statement that
// fails aborts the transaction: code under test must run statements that may fail under a
// savepoint of its own (guarded() does this for an action), or the action must return
// Outcome::error (prowl then rolls back). prowl does not guess the state of an aborted
// transaction: observe(), query() and push() then fail with an environment Status saying so.
// The code under test must not end prowl's transaction (COMMIT, ROLLBACK) nor deallocate its
// prepared statements ("prowl_" names).
//
// kSnapshot (snapshot and reset capabilities) is for a service in another process with its own
// connections. save() copies every row of the declared tables (COPY ... TO STDOUT, binary) and
// the values of the sequences they own into memory; restore() writes them back in one
// transaction: TRUNCATE of every declared table in one statement, COPY ... FROM STDIN for each,
// setval() for each sequence, COMMIT. A restore of the snapshot the database already holds is
// skipped when neither the WAL insert position nor any owned sequence moved since prowl wrote or
// read it. REQUIRES: the service is idle between requests (no open transaction, no request in
// flight) while prowl saves or restores; a lock held longer than lock_timeout_ms makes restore()
// fail with an environment Status. Every table with a foreign key into a declared table must be
// declared too (open() and begin() check it).
//
// Observation (both modes): the full content of the declared tables, the values of the
// sequences they own, and the full result of the declared queries. A table's rows are a
// multiset: each row is encoded canonically (every value in PostgreSQL's binary form with its
// length, NULL distinct from every value; each column's name and type) and the encoded rows are
// sorted. A query's rows are observed in the order the query returns them: give it an ORDER BY.
//
// Reading only: query() and the declared queries run read-only, so a statement that would write
// (UPDATE ... RETURNING, a data-modifying WITH, nextval(), a function that writes) is refused and
// leaves nothing behind. Snapshot mode: from begin() to end() prowl's session has
// default_transaction_read_only on (only restores say READ WRITE), which costs nothing per step;
// before begin() they run in a READ ONLY transaction. Savepoint mode: under a savepoint with SET
// LOCAL transaction_read_only = on, rolled back afterwards (the observation only when it has
// declared queries: the statements prowl writes itself only read).
//
// A run's hold on the database: open() takes (or shares) the database's DatabaseGuard
// (db_guard.hpp) before it connects, so a second prowl run on the database stops there, and a run
// that did not end is recovered first. In snapshot mode begin() writes the initial image as the
// database's recovery record (the schema prowl_recovery, committed on the guard's connection)
// before anything changes the tables, and end() drops it once the image is back. In savepoint
// mode the server rolls back the transaction of a dead connection; the record then only holds
// the owned sequences' values (which no transaction rolls back), when there are any.
//
// The PostgresSystem owns its connection and its snapshots, and shares its guard. Not
// thread-safe: driven from one thread, between actions (in savepoint mode the actions use the
// same connection on that thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/sql.hpp"
#include "prowl/world/system.hpp"

// libpq's types, with the same typedefs as libpq-fe.h.
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace prowl {

enum class PostgresMode {
  kSavepoint,  // one transaction with savepoints on prowl's connection, shared with the code
  kSnapshot,   // save and restore the declared tables for a service with its own connections
};

struct PostgresQuery {
  std::string name;  // shown in describe()
  std::string sql;   // one read-only statement; every row of its result is observed
};

struct PostgresOptions {
  // A libpq connection string: "host=127.0.0.1 port=5432 dbname=app" or "postgresql://...".
  std::string dsn = {};
  PostgresMode mode = PostgresMode::kSnapshot;
  // Observed (and in snapshot mode saved) tables: "orders", "shop.orders" or "\"Orders\"", as SQL
  // names them. Ordinary or partitioned tables.
  std::vector<std::string> tables = {};
  std::vector<PostgresQuery> queries = {};  // observed queries (every row, in result order)
  // Whether the values of the sequences the declared tables own are part of the state. Turning
  // it off merges states that differ only in the next serial id.
  bool observe_sequences = true;
  // How long a restore waits for the service's locks (snapshot mode).
  int lock_timeout_ms = 5000;
  // statement_timeout of prowl's connection; 0: none. In savepoint mode it also bounds the
  // statements of the code under test, which share the connection.
  int statement_timeout_ms = 0;
  // Used when the DSN sets no connect_timeout.
  int connect_timeout_s = 10;
  // describe() output is cut to about this many characters.
  std::size_t describe_limit = 2000;
};

class PostgresSystem final : public System {
 public:
  // Takes the database's guard (or shares `guard`, which must be a guard_postgres() of the same
  // database), which recovers a run that did not end, then connects, resolves the declared tables
  // and the sequences they own, and prepares the observation statements. An environment Status
  // names the DSN (password redacted) and, as the case may be, libpq's message, the run that
  // holds the database, the table or the query and its SQL. A declared table the database does
  // not have ("table 'loan' does not exist in postgres '...'"), a declared query that writes, and
  // (snapshot mode) an undeclared table with a foreign key into a declared one, are
  // Status::invalid.
  static Result<std::unique_ptr<PostgresSystem>> open(
      std::string name, PostgresOptions options, std::shared_ptr<DatabaseGuard> guard = nullptr);
  // A system destroyed between begin() and end() leaves the recovery record for the next guard.
  ~PostgresSystem() override;

  // The database's tables (ordinary and partitioned, not partitions, not PostgreSQL's own nor
  // prowl's recovery record), as SQL names them: schema-qualified when their schema is not in the
  // search path, quoted when needed; sorted. What a model that names a missing table could have
  // meant. It connects on its own and takes no lock.
  static Result<std::vector<std::string>> table_names(const std::string& dsn);

  PostgresMode mode() const { return options_.mode; }
  const std::shared_ptr<DatabaseGuard>& guard() const { return guard_; }
  // What the guard recovered when open() took it (DatabaseGuard::recovered()); empty if nothing.
  const std::string& recovered() const { return guard_->recovered(); }
  // The DSN with any password replaced by [REDACTED], as messages show it.
  const std::string& dsn() const { return dsn_; }
  // prowl's connection. In savepoint mode the code under test works through it, inside prowl's
  // transaction; in snapshot mode it is prowl's own (for reading, or for setting up before
  // begin(); from begin() to end() its transactions are read-only by default).
  PGconn* connection() const { return conn_; }
  // The sequences the declared tables own (serial and identity columns), schema-qualified names.
  const std::vector<std::string>& sequences() const { return sequence_names_; }

  Capabilities capabilities() const override;
  Status observe(Hasher& hasher) const override;
  // One line per table and query, "name: (1, 'alice', NULL), (2, 'bob', 3.5)", then one line per
  // owned sequence when observed, "public.t_id_seq: (3, true)" (last_value, is_called); table rows
  // sorted (NULLs first, numbers numerically, other values by length, then bytes); cut at
  // describe_limit characters.
  std::string describe() const override;
  // Runs one SQL statement, read-only, and returns its rows as text, NULL as nullopt: for
  // invariants written in SQL. In savepoint mode it runs inside prowl's transaction, under a
  // savepoint of its own that is rolled back afterwards, so a failing query does not abort the
  // transaction. An environment Status names the SQL; a statement that writes is Status::invalid
  // ("postgres '...': query writes to the database: SQL") and changes nothing.
  Result<SqlRows> query(std::string_view sql) const;

  Status begin() override;
  Status end() override;

  // Snapshot mode.
  Result<SnapshotHandle> save() override;
  Status restore(SnapshotHandle handle) override;
  void release(SnapshotHandle handle) override;
  std::size_t live_snapshots() const;
  // Restores that found the database already holding the snapshot and wrote nothing.
  std::uint64_t skipped_restores() const { return skipped_restores_; }

  // Savepoint mode.
  Status push() override;
  Status rollback(std::size_t depth) override;
  std::size_t depth() const { return depth_; }
  // Runs fn, which works through connection(), under a savepoint of its own, as code running
  // inside a caller's transaction must when a statement may fail. Returns true when fn left the
  // transaction usable (its work is kept), false when a statement failed and aborted it (all of
  // fn's work is rolled back; sequence values it drew stay drawn, as in PostgreSQL). An
  // environment Status when the savepoint cannot be set or released. REQUIRES: savepoint mode,
  // between begin() and end().
  Result<bool> guarded(const std::function<void()>& fn);

  // Both modes: back to the state at begin().
  Status reset() override;

 private:
  struct Table;
  struct Observed;
  struct Image;
  struct Command;
  struct Batch;
  // Read in one statement: the WAL insert position, and the statement that sets the owned
  // sequences back to the values they have now (empty without sequences).
  struct State {
    std::string wal;
    std::string setval;
  };

  PostgresSystem(std::string name, PostgresOptions options);
  Status connect();
  Status resolve_tables();
  Status resolve_sequences();
  Status prepare_observed();
  Status prepare(const Observed& o) const;
  Status check_foreign_keys() const;
  Status order_copies();
  std::string oid_array() const;  // the declared tables' OIDs as an array literal
  Status error(const std::string& what) const;
  static bool run_pipeline(PGconn* conn, const std::vector<Command>& commands, int format,
                           Batch& out);

  // Savepoint mode: ok when prowl's transaction is open and usable (or not begun yet).
  Status usable_transaction() const;
  // Runs every observed statement in one round trip, results in binary or text form.
  Status read_observed(bool binary, Batch& batch) const;
  // The pipeline read_observed() sends now, and the index of the first observed statement's
  // result in it.
  const std::vector<Command>& observe_commands(std::size_t* first) const;
  Result<State> read_state(const PGresult* r) const;
  Result<State> state_now() const;

  Status begin_transaction();
  Status roll_back_to(std::size_t depth);

  // Snapshot mode: copies the tables out of, or writes them into, the database.
  Result<std::shared_ptr<const Image>> read_image();
  Status write_image(const std::shared_ptr<const Image>& image);

  PostgresOptions options_;
  std::string dsn_;  // redacted
  std::shared_ptr<DatabaseGuard> guard_;
  bool recording_ = false;  // between begin() and end(), counted as a user of the record
  PGconn* conn_ = nullptr;
  bool superuser_ = false;
  bool unlogged_ = false;  // a declared table is unlogged or temporary
  std::vector<Table> tables_;
  std::vector<std::size_t> copy_order_;  // snapshot mode: referenced tables first
  std::vector<Observed> observed_;
  std::vector<Command> observe_plain_;      // the observed statements
  std::vector<Command> observe_read_only_;  // the same in a read-only transaction
  std::vector<Command> observe_guarded_;  // the same under a savepoint (inside prowl's), read-only
                                          // when there are declared queries
  bool queries_observed_ = false;         // declared queries are among the observed statements
  // Snapshot mode between begin() and end(): prowl's connection has default_transaction_read_only
  // on, so every statement that does not say READ WRITE (only restores do) runs read-only.
  bool read_only_session_ = false;
  std::vector<std::string> sequence_names_;   // as PostgreSQL names them
  std::vector<std::string> setval_prefixes_;  // "pg_catalog.setval('seq'::regclass, " each
  std::string sequences_sql_;                 // SELECT last_value, is_called of each owned sequence
  std::string state_sql_;                     // the State's statement
  bool begun_ = false;
  // observe()'s scratch: encoded rows and their (offset, size) in it.
  mutable std::string arena_;
  mutable std::vector<std::pair<std::size_t, std::size_t>> spans_;

  // Snapshot mode. Images are immutable and shared: a save of an unchanged database shares the
  // image the database holds.
  std::shared_ptr<const Image> initial_;
  std::vector<std::shared_ptr<const Image>> images_;
  std::vector<SnapshotHandle> free_;
  // The image the database holds, with the State read when prowl wrote or read it; null when
  // unknown.
  std::shared_ptr<const Image> current_;
  State current_state_;
  std::uint64_t skipped_restores_ = 0;

  // Savepoint mode: the depth, and per savepoint the statement that sets the sequences back.
  std::size_t depth_ = 0;
  std::vector<std::string> savepoint_setval_;
};

// The DSN as libpq parses it (PQconninfoParse), rebuilt in the form it was given (keyword/value
// or URI) and in the order it sets its keywords, with the value of every password field
// (password, sslpassword: what libpq itself hides) replaced by [REDACTED]:
// "host=h password=[REDACTED] dbname=d", "postgresql://u:[REDACTED]@h:5432/d?sslmode=disable".
// Text libpq cannot parse (and a URI with an '@' in which libpq finds no password) is shown as
// it is, except the value of every keyword whose name contains "password" or "secret" (in any
// case; to the closing quote, or the end of the text when one is not closed; with the words after
// an unquoted value that set nothing) and a URI's userinfo password up to the last '@', replaced
// by [REDACTED].
std::string redact_dsn(std::string_view dsn);
// The values redact_dsn() hides, each once: for redacting them from other text (a service's
// command line, its output).
std::vector<std::string> dsn_secrets(std::string_view dsn);

}  // namespace prowl
