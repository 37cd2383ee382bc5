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
// Save and restore: a snapshot is the whole database image in memory (sqlite3_serialize on prowl's
// connection; cost per snapshot = the database size). restore() writes an image back into the
// live file with the backup API, which takes the file's locks like any writer, so every other
// connection sees the restored content on its next query. Works with rollback-journal and WAL
// files. REQUIRES: the service is idle (no open transaction) while prowl saves or restores; a
// transaction that keeps the file locked longer than the busy timeout makes restore() fail with
// an environment Status naming the file.
//
// begin() takes the initial image; end() writes it back, so the database is left with exactly
// the content it had (schema, rows and user_version; the schema cookie and change counter move on
// so that other connections notice the change). The SqliteSystem owns its connections and its
// snapshots. Not thread-safe: driven from one thread, between actions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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
};

class SqliteSystem final : public System {
 public:
  // Opens prowl's connection on options.path and prepares the observation statements. An
  // environment Status names the file (and the SQL) when the file cannot be opened, is not a
  // database, or a table or query cannot be prepared.
  static Result<std::unique_ptr<SqliteSystem>> open(std::string name, SqliteOptions options);
  ~SqliteSystem() override;

  const std::string& path() const { return options_.path; }

  Capabilities capabilities() const override { return {true, false, true, false}; }
  Status observe(Hasher& hasher) const override;
  // One line per table and query: "name: (1, 'a'), (2, NULL)"; cut at describe_limit characters.
  std::string describe() const override;
  // Runs one SQL statement on prowl's connection and returns its rows, every value as SQLite
  // renders it as text (a blob's bytes as they are), NULL as nullopt: for invariants written in
  // SQL. An environment Status names the file and the SQL; more than one statement is
  // Status::invalid.
  Result<SqlRows> query(std::string_view sql) const;

  Status begin() override;
  Status end() override;

  Result<SnapshotHandle> save() override;
  Status restore(SnapshotHandle handle) override;
  void release(SnapshotHandle handle) override;
  Status reset() override;

  std::size_t live_snapshots() const { return images_.size() - free_.size(); }

 private:
  // A serialized database image, allocated by SQLite.
  struct Image {
    struct Free {
      void operator()(unsigned char* p) const;
    };
    std::unique_ptr<unsigned char, Free> data;
    std::int64_t size = 0;
  };
  // One observed table or query, prepared once on prowl's connection.
  struct Observed {
    std::string name;
    std::string sql;
    bool is_table = false;  // rows are sorted by their encoding
    sqlite3_stmt* stmt = nullptr;
  };

  SqliteSystem(std::string name, SqliteOptions options);
  Status prepare(Observed& o);
  Status error(const std::string& what, int rc) const;
  Status error_in(const Observed& o, int rc) const;
  // Each row of o's result, encoded canonically.
  Status read_rows(const Observed& o, std::vector<std::string>& rows) const;
  Result<Image> serialize();
  Status write_back(const Image& image);
  // PRAGMA data_version: changes when another connection commits.
  Result<std::int64_t> data_version();

  SqliteOptions options_;
  sqlite3* db_ = nullptr;   // prowl's connection on the file
  sqlite3* mem_ = nullptr;  // in-memory connection holding the image being restored
  sqlite3_stmt* data_version_stmt_ = nullptr;
  std::vector<Observed> observed_;

  Image initial_;
  std::vector<Image> images_;
  std::vector<SnapshotHandle> free_;
  // The image the file holds now, as long as no other connection has committed since: lets
  // restore() skip a write that would change nothing.
  static constexpr SnapshotHandle kNoImage = ~SnapshotHandle{0};
  static constexpr SnapshotHandle kInitialImage = ~SnapshotHandle{0} - 1;
  SnapshotHandle current_ = kNoImage;
  std::int64_t current_version_ = 0;
};

}  // namespace prowl
