// SqliteSystem: a SQLite database file as a System, for a service that keeps the file open in its
// own connection (possibly in another process). prowl opens a second connection on the file.
//
// Observation: the full content of the declared tables and the full result of the declared
// queries. A table's rows are observed as a multiset: each row is encoded canonically (every value
// with its type: NULL, integer, real, text, blob) and the encoded rows are sorted, so two states
// holding the same rows are one state whatever order the rows were inserted in. A hidden rowid is
// not part of a table's rows; declare a query that selects it when it matters. A query's rows are
// observed in the order the query returns them: give it an ORDER BY.
//
// Reuse: prowl numbers each database content it sees. The number stays valid while PRAGMA
// data_version on prowl's reading connection stays the same (it changes whenever another
// connection, the service's or prowl's own restoring one, commits), and a snapshot keeps the
// number of the content it holds, which a restore makes current again. observe() keeps the bytes
// it added to the fingerprint, and query() the rows of each statement, for the content they were
// computed on, and for the contents of the live snapshots; on the same content they are replayed
// without reading a row. That is exact for what depends only on the rows and the schema: a table,
// or a statement that calls none of SQLite's functions whose value may differ on the same rows
// (random(), the date and time functions, changes(), last_insert_rowid(), pragma functions);
// statements that do (and the observation, if a declared query does) are always run. The reads of
// one observation, and each query, run in one read transaction: they see one state.
//
// Save and restore: a snapshot is the whole database image in memory (sqlite3_serialize on prowl's
// connection; cost per snapshot = the database size). restore() writes an image back into the
// live file with the backup API on a connection of its own, which takes the file's locks like any
// writer, so every other connection sees the restored content on its next query. Works with
// rollback-journal and WAL files. REQUIRES: the service is idle (no open transaction) while prowl
// saves or restores; a transaction that keeps the file locked longer than the busy timeout makes
// restore() fail with an environment Status naming the file.
//
// The schema cookie: the backup API increments the file's schema cookie, which makes every other
// connection (the service's, prowl's own) re-read the schema and re-prepare every statement on
// its next query; for a small database that costs more than the restore itself. As long as the
// schema has never changed during the run (every snapshot, and the file before every restore,
// still has the cookie the file had at begin()), every state has the same schema, and restore()
// puts the initial cookie back: the other connections keep their schema and their statements.
// Once a schema change has been seen, the cookie is left as the backup API sets it (one more than
// the file's), so it only ever grows and no connection can mistake a restored schema for the
// one it has cached. Either way, the restored file holds the snapshot's pages byte for byte except
// the header fields SQLite maintains on every commit (the file change counter and its copy at
// offset 92, the library version number, and the schema cookie when it moved on).
//
// begin() takes the initial image; end() writes it back, so the database is left with exactly
// the content it had (schema, rows and user_version), and truncates the file's WAL as far as the
// other connections allow (PRAGMA wal_checkpoint(TRUNCATE)).
//
// A run's hold on the file: open() takes (or shares) the file's DatabaseGuard (db_guard.hpp)
// before it opens a connection, so a second prowl run on the file stops there, and a run that did
// not end is recovered first. begin() writes the initial image as the file's recovery record
// (PATH.prowl-recovery, synced) before anything changes the file; end() removes it once the image
// is back. A run killed in between (SIGKILL, a crash, a third Ctrl-C) leaves the record, and the
// next guard on the file writes it back.
//
// Reading only: prowl's reading connection runs with PRAGMA query_only = ON, and query() refuses
// a statement that would write (Status::invalid); only restores write, through a connection of
// their own. Queries run by query() are prepared once and kept (the most recent few dozen). The
// SqliteSystem owns its connections, statements and snapshots, and shares its guard. Not
// thread-safe: driven from one thread, between actions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/systems/db_guard.hpp"
#include "prowl/systems/sql.hpp"
#include "prowl/world/system.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace prowl {

struct SqliteQuery {
  std::string name;  // shown in describe()
  std::string sql;   // one SELECT statement; every row of its result is observed
};

struct SqliteOptions {
  std::string path = {};                  // the database file; it must exist
  std::vector<std::string> tables = {};   // observed tables (every row)
  std::vector<SqliteQuery> queries = {};  // observed queries (every row, in result order)
  // How long prowl waits for the service to release a lock before reporting the file as busy.
  int busy_timeout_ms = 5000;
  // describe() output is cut to about this many characters.
  std::size_t describe_limit = 2000;
  // Whether begin() writes the recovery record. Only a throwaway copy of a database (a worker's
  // copy in a temporary directory) goes without; it is still locked.
  bool recovery_record = true;
};

class SqliteSystem final : public System {
 public:
  // Takes the file's guard (or shares `guard`, which must be a guard_sqlite() of the same file),
  // which recovers a run that did not end, then opens prowl's connections on options.path and
  // prepares the observation statements. An environment Status names the file (and the SQL) when
  // another run holds the file, a recovery fails, the file cannot be opened or is not a database,
  // or a table or query cannot be prepared. A declared table the file does not have is
  // Status::invalid ("table 'loan' does not exist in sqlite '/x/shop.db'"), as is a declared
  // query that writes.
  static Result<std::unique_ptr<SqliteSystem>> open(std::string name, SqliteOptions options,
                                                    std::shared_ptr<DatabaseGuard> guard = nullptr);
  // A system destroyed between begin() and end() leaves the recovery record for the next guard.
  ~SqliteSystem() override;

  // The user tables of the database at path (not sqlite_ internal ones), sorted: what a model
  // that names a missing table could have meant. It opens the file read-only and takes no lock.
  static Result<std::vector<std::string>> table_names(const std::string& path);

  const std::string& path() const { return options_.path; }
  const std::shared_ptr<DatabaseGuard>& guard() const { return guard_; }
  // What the guard recovered when open() took it (DatabaseGuard::recovered()); empty if nothing.
  const std::string& recovered() const { return guard_->recovered(); }

  Capabilities capabilities() const override {
    return {.snapshot = true, .stack = false, .reset = true, .cheap = false, .portable = true};
  }
  Status observe(Hasher& hasher) const override;
  // One line per table and query: "name: (1, 'a'), (2, NULL)"; cut at describe_limit characters.
  std::string describe() const override;
  // Runs one SQL statement on prowl's connection and returns its rows, every value as SQLite
  // renders it as text (a blob's bytes as they are), NULL as nullopt: for invariants written in
  // SQL. An environment Status names the file and the SQL; more than one statement, and a
  // statement that would write (sqlite3_stmt_readonly), are Status::invalid ("sqlite
  // '/x/shop.db': query writes to the database: UPDATE ..."), and nothing is run. The statement
  // is prepared on first use and kept for the next call with the same text; its rows are reused
  // on the same content (see the file comment).
  Result<SqlRows> query(std::string_view sql) const;

  Status begin() override;
  Status end() override;

  Result<SnapshotHandle> save() override;
  Status restore(SnapshotHandle handle) override;
  void release(SnapshotHandle handle) override;
  Status reset() override;
  // An image is a snapshot that another SqliteSystem can write into its own file: a copy of the
  // service with a copy of the database, for another worker (same schema).
  Result<SystemImagePtr> capture() override;
  Status load(const SystemImagePtr& image) override;

  std::size_t live_snapshots() const { return images_.size() - free_.size(); }
  // How often observe() read the tables, and how often it replayed the observation of the same
  // content; how often query() ran its statement, and how often it returned the rows it had.
  std::uint64_t observations_read() const { return observations_read_; }
  std::uint64_t observations_reused() const { return observations_reused_; }
  std::uint64_t queries_run() const { return queries_run_; }
  std::uint64_t queries_reused() const { return queries_reused_; }
  // Whether restores still put the initial schema cookie back (see the file comment).
  bool keeps_schema_cookie() const { return keep_cookie_; }

 private:
  // A database content, as far as prowl can tell: a number given to each content it has seen, kept
  // while PRAGMA data_version on prowl's reading connection stays the same.
  using ContentId = std::uint64_t;
  static constexpr ContentId kUnknownContent = 0;

  // A result of query(), and the content it was computed on.
  struct QueryResult {
    std::string sql;
    SqlRows rows;
  };
  // A serialized database image, allocated by SQLite, with what prowl knew of its content when it
  // was saved: its observation and the query results computed on it. Content numbers and image
  // ids are unique in the process, so an image keeps its meaning in every SqliteSystem that
  // loads it. Never changed once saved.
  struct Image final : SystemImage {
    struct Free {
      void operator()(unsigned char* p) const;
    };
    std::unique_ptr<unsigned char, Free> data;
    std::int64_t size = 0;
    std::uint64_t id = 0;  // unique per saved image: which one mem_ holds, which one the file holds
    ContentId content = kUnknownContent;
    std::string observation;  // empty: not known
    std::vector<QueryResult> results;
  };
  // One observed table or query, prepared once on prowl's connection.
  struct Observed {
    std::string name;
    std::string sql;
    bool is_table = false;  // rows are sorted by their encoding
    sqlite3_stmt* stmt = nullptr;
  };
  // A statement query() prepared, kept for the next call with the same text, with its latest
  // result when the statement always gives the same rows for the same content.
  struct CachedQuery {
    std::string sql;
    sqlite3_stmt* stmt = nullptr;
    bool reusable = false;                // calls no function whose value may vary (random())
    ContentId content = kUnknownContent;  // the content `rows` was computed on
    SqlRows rows;
  };
  // Runs the statements of one scope in one read transaction on prowl's reading connection.
  class ReadTransaction;

  SqliteSystem(std::string name, SqliteOptions options);
  Status prepare(Observed& o);
  Status error(const std::string& what, int rc) const;
  Status error_on(sqlite3* db, const std::string& what, int rc) const;
  Status error_in(const Observed& o, int rc) const;
  // Each row of o's result, encoded canonically.
  Status read_rows(const Observed& o, std::vector<std::string>& rows) const;
  // The content the file holds now (reads PRAGMA data_version).
  Result<ContentId> current_content() const;
  // Brings observation_ up to date with the file.
  Status refresh_observation() const;
  // query()'s kept statement for sql, or a new one (then kept, dropping the least recently used
  // beyond the limit).
  Result<CachedQuery*> query_statement(std::string_view sql) const;
  Status run_query(CachedQuery& q, SqlRows& out) const;
  Result<Image> serialize();
  // Saves the file's image with what is known of the current content; the file holds it
  // (current_).
  Result<Image> save_image();
  // Puts a copy of image into the in-memory connection, the source of the backup.
  Status load_memory(const Image& image);
  // Writes image back and makes what is known of its content current.
  Status write_back(const Image& image);
  // Brings the file to image, unless it holds it already (restore(), reset(), load()).
  Status put(const Image& image);
  // A new content number, unique in the process.
  static ContentId new_content_id();
  // Before a backup of `image`, while the initial schema cookie is kept: opens a write
  // transaction on writer_ and, when the file and the image still have the initial cookie, sets
  // it one lower in that transaction (true), so that the backup, which writes one more than the
  // cookie it finds, commits the initial one.
  Result<bool> lower_schema_cookie(const Image& image,
                                   std::chrono::steady_clock::time_point deadline);
  // After such a backup: checks that the file has the initial cookie (and puts it back if not).
  Status check_schema_cookie();
  // PRAGMA data_version: changes when another connection commits.
  Result<std::int64_t> data_version() const;

  SqliteOptions options_;
  // When observe() last marked the recovery record as the live run's (a heartbeat).
  mutable std::chrono::steady_clock::time_point last_heartbeat_{};
  std::shared_ptr<DatabaseGuard> guard_;
  bool recording_ = false;     // between begin() and end(), counted as a user of the record
  sqlite3* db_ = nullptr;      // prowl's connection on the file: observations, queries, snapshots
  sqlite3* writer_ = nullptr;  // prowl's connection that writes snapshots back
  sqlite3* mem_ = nullptr;     // in-memory connection holding the image being restored
  sqlite3_stmt* data_version_stmt_ = nullptr;
  sqlite3_stmt* begin_stmt_ = nullptr;
  sqlite3_stmt* commit_stmt_ = nullptr;
  sqlite3_stmt* read_cookie_stmt_ = nullptr;   // on writer_
  sqlite3_stmt* write_cookie_stmt_ = nullptr;  // on writer_: sets the initial cookie
  sqlite3_stmt* lower_cookie_stmt_ = nullptr;  // on writer_: sets the initial cookie - 1
  std::uint64_t loaded_image_ = 0;             // the image mem_ holds (0: none)
  std::vector<Observed> observed_;
  mutable std::vector<CachedQuery> queries_;  // least recently used first

  // What the file holds: content_ while data_version is content_version_.
  mutable ContentId content_ = kUnknownContent;
  mutable std::int64_t content_version_ = 0;
  // The bytes observe() adds to the fingerprint for observation_content_.
  mutable std::string observation_;
  mutable ContentId observation_content_ = kUnknownContent;
  mutable std::vector<std::string> rows_scratch_;
  mutable std::uint64_t observations_read_ = 0;
  mutable std::uint64_t observations_reused_ = 0;
  mutable std::uint64_t queries_run_ = 0;
  mutable std::uint64_t queries_reused_ = 0;
  bool observation_reusable_ = true;  // no declared query calls a function that may vary

  std::uint32_t initial_cookie_ = 0;  // the schema cookie at begin()
  bool keep_cookie_ = false;

  Image initial_;
  std::vector<Image> images_;
  std::vector<SnapshotHandle> free_;
  // The id of the image the file holds now, as long as no other connection has committed since:
  // lets restore() skip a write that would change nothing.
  static constexpr std::uint64_t kNoImage = 0;
  std::uint64_t current_ = kNoImage;
  std::int64_t current_version_ = 0;
};

}  // namespace prowl
