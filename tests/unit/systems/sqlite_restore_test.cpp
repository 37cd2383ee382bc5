// SqliteSystem's restores as the service sees them (the file's pages and schema cookie), and what
// observe() and query() reuse on a content they have seen.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/systems/sqlite.hpp"
#include "sqlite_helpers.hpp"

namespace prowl {
namespace {

using testing::Connection;
using testing::create_accounts;
using testing::fingerprint_of;
using testing::kNames;
using testing::open_system;
using testing::ServiceProcess;
using testing::TempDir;

// The database image as a fresh connection reads it (through the WAL, if there is one).
std::vector<unsigned char> image_of(const std::string& path) {
  sqlite3* db = nullptr;
  PROWL_CHECK(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK,
              "cannot open " + path);
  sqlite3_int64 size = 0;
  unsigned char* data = sqlite3_serialize(db, "main", &size, 0);
  PROWL_CHECK(data != nullptr, "cannot serialize " + path);
  std::vector<unsigned char> out(data, data + size);
  sqlite3_free(data);
  sqlite3_close(db);
  return out;
}

// The offsets of a database image that differ from `expected`, except the header fields SQLite
// rewrites on every commit: the file change counter (24..27) and its copy (92..95).
std::vector<std::size_t> differences(const std::vector<unsigned char>& actual,
                                     const std::vector<unsigned char>& expected) {
  std::vector<std::size_t> out;
  if (actual.size() != expected.size()) out.push_back(actual.size());
  for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
    const bool counter = (i >= 24 && i < 28) || (i >= 92 && i < 96);
    if (!counter && actual[i] != expected[i]) out.push_back(i);
  }
  return out;
}

std::uint32_t schema_cookie(const std::vector<unsigned char>& image) {
  return (std::uint32_t{image[40]} << 24) | (std::uint32_t{image[41]} << 16) |
         (std::uint32_t{image[42]} << 8) | std::uint32_t{image[43]};
}

class SqliteRestoreInBothJournalModes : public testing::AccountsFileInBothJournalModes {};

TEST_P(SqliteRestoreInBothJournalModes, LeavesTheSnapshotsPagesByteForByteAndTheSchemaCookie) {
  Connection service(path_);
  auto sys = open_system({.path = path_, .tables = {"accounts", "audit"}});
  ASSERT_TRUE(sys->begin());
  service.exec("INSERT INTO accounts VALUES (3, 'carol', 1); INSERT INTO audit VALUES ('a')");
  const std::vector<unsigned char> saved = image_of(path_);
  auto h = sys->save();
  ASSERT_TRUE(h);
  service.exec(
      "DELETE FROM accounts WHERE id < 3; INSERT INTO audit SELECT hex(randomblob(6000)) FROM "
      "accounts; UPDATE accounts SET balance = 7");
  ASSERT_NE(image_of(path_).size(), saved.size());
  ASSERT_TRUE(sys->restore(*h));
  const std::vector<unsigned char> restored = image_of(path_);
  EXPECT_EQ(differences(restored, saved), std::vector<std::size_t>{});
  EXPECT_EQ(schema_cookie(restored), schema_cookie(saved));
  EXPECT_TRUE(sys->keeps_schema_cookie());
  EXPECT_EQ(service.one(kNames), "t:alice,bob,carol");
  ASSERT_TRUE(sys->end());
}

TEST_P(SqliteRestoreInBothJournalModes, TheServiceKeepsItsPreparedStatementsAndSeesTheRows) {
  // A statement the service prepared once, as a real service does: a restore that changed the
  // schema cookie would make SQLite re-prepare it (and re-read the schema) on its next step.
  Connection service(path_);
  sqlite3_stmt* names = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v3(service.handle(), kNames, -1, SQLITE_PREPARE_PERSISTENT, &names, nullptr),
      SQLITE_OK);
  auto names_now = [&] {
    EXPECT_EQ(sqlite3_step(names), SQLITE_ROW);
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(names, 0));
    std::string out = text ? text : "NULL";
    sqlite3_reset(names);
    return out;
  };
  EXPECT_EQ(names_now(), "alice,bob");
  auto sys = open_system({.path = path_, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  auto h = sys->save();
  ASSERT_TRUE(h);
  for (const char* name : {"carol", "dave", "erin"}) {
    service.exec(std::string("INSERT INTO accounts (name, balance) VALUES ('") + name + "', 0)");
    EXPECT_NE(names_now(), "alice,bob");
    ASSERT_TRUE(sys->restore(*h));
    EXPECT_EQ(names_now(), "alice,bob");
  }
  EXPECT_EQ(sqlite3_stmt_status(names, SQLITE_STMTSTATUS_REPREPARE, 0), 0);
  sqlite3_finalize(names);
  ASSERT_TRUE(sys->end());
}

TEST_P(SqliteRestoreInBothJournalModes, AfterASchemaChangeNoConnectionKeepsAStaleSchema) {
  // Two branches change the schema differently from the same state; the service has cached the
  // schema of the branch it saw last when the other one is restored.
  ServiceProcess service(path_);
  auto columns = [&] {
    return service.request("sql SELECT group_concat(name) FROM pragma_table_info('accounts')");
  };
  auto sys = open_system({.path = path_, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  auto plain = sys->save();
  EXPECT_EQ(service.request("sql ALTER TABLE accounts ADD COLUMN b"), "ok");
  auto with_b = sys->save();
  ASSERT_TRUE(plain && with_b);
  ASSERT_TRUE(sys->restore(*plain));
  EXPECT_FALSE(sys->keeps_schema_cookie());
  EXPECT_EQ(columns(), "id,name,balance");
  EXPECT_EQ(service.request("sql ALTER TABLE accounts ADD COLUMN c"), "ok");
  EXPECT_EQ(columns(), "id,name,balance,c");
  ASSERT_TRUE(sys->restore(*with_b));
  EXPECT_EQ(columns(), "id,name,balance,b");
  EXPECT_EQ(service.request("names"), "alice,bob");
  ASSERT_TRUE(sys->restore(*plain));
  EXPECT_EQ(columns(), "id,name,balance");
  ASSERT_TRUE(sys->end());
  EXPECT_EQ(columns(), "id,name,balance");
  EXPECT_EQ(service.quit(), 0);
}

INSTANTIATE_TEST_SUITE_P(SqliteJournalModes, SqliteRestoreInBothJournalModes,
                         ::testing::Values("delete", "wal"),
                         [](const auto& info) { return info.param; });

TEST_P(SqliteRestoreInBothJournalModes, AnImageOneCopyCapturedLoadsIntoAnother) {
  // A copy of the file, as each worker's copy of the service gets: the same pages, byte for byte.
  const std::string copy_path = dir_.file("copy.db");
  std::filesystem::copy_file(path_, copy_path);
  if (std::filesystem::exists(path_ + "-wal")) {
    std::filesystem::copy_file(path_ + "-wal", copy_path + "-wal");
  }
  const std::string initial = testing::dump(path_);
  Connection service(path_);
  Connection copy_service(copy_path);
  sqlite3_stmt* names = nullptr;  // prepared once by the copy's service, as a real one does
  ASSERT_EQ(sqlite3_prepare_v3(copy_service.handle(), kNames, -1, SQLITE_PREPARE_PERSISTENT, &names,
                               nullptr),
            SQLITE_OK);
  auto sys = open_system({.path = path_, .tables = {"accounts"}});
  auto copy = open_system({.path = copy_path, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  ASSERT_TRUE(copy->begin());
  EXPECT_TRUE(sys->capabilities().portable);

  service.exec("INSERT INTO accounts VALUES (3, 'carol', 1)");
  const Fingerprint carol = fingerprint_of(*sys);
  auto image = sys->capture();
  ASSERT_TRUE(image);
  copy_service.exec("DELETE FROM accounts");
  const std::uint64_t read_before = copy->observations_read();
  ASSERT_TRUE(copy->load(*image));
  EXPECT_EQ(copy_service.one(kNames), "t:alice,bob,carol");
  // The image brings the observation made on its content: the copy reads no row for it.
  EXPECT_EQ(fingerprint_of(*copy), carol);
  EXPECT_EQ(copy->observations_read(), read_before);
  // The copy's service keeps its schema and statements.
  EXPECT_TRUE(copy->keeps_schema_cookie());
  ASSERT_EQ(sqlite3_step(names), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(names, 0))),
            "alice,bob,carol");
  sqlite3_reset(names);
  EXPECT_EQ(sqlite3_stmt_status(names, SQLITE_STMTSTATUS_REPREPARE, 0), 0);
  sqlite3_finalize(names);

  // The copy moves on; the original loads its own image back.
  copy_service.exec("UPDATE accounts SET name = 'zed' WHERE id = 1");
  service.exec("DELETE FROM accounts WHERE id = 3");
  ASSERT_TRUE(sys->load(*image));
  EXPECT_EQ(service.one(kNames), "t:alice,bob,carol");
  EXPECT_EQ(fingerprint_of(*sys), carol);
  // Each file goes back to the content it had at begin().
  ASSERT_TRUE(sys->end());
  ASSERT_TRUE(copy->end());
  EXPECT_EQ(testing::dump(path_), initial);
  EXPECT_EQ(testing::dump(copy_path), initial);
}

TEST(SqliteSystemReuse, ARestoredSnapshotReusesWhatWasObservedAndQueriedOnItsContent) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path, "wal");
  Connection service(path);
  auto sys = open_system({.path = path, .tables = {"accounts"}});
  ASSERT_TRUE(sys->begin());
  const std::string sql = "SELECT name FROM accounts WHERE balance > 1 ORDER BY id";
  const Fingerprint initial = fingerprint_of(*sys);
  auto rows = sys->query(sql);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->rows.size(), 2u);
  auto h = sys->save();
  ASSERT_TRUE(h);
  EXPECT_EQ(sys->observations_read(), 1u);
  EXPECT_EQ(sys->queries_run(), 1u);

  // Unchanged content: nothing is read again.
  EXPECT_EQ(fingerprint_of(*sys), initial);
  ASSERT_TRUE(sys->query(sql));
  EXPECT_EQ(sys->observations_read(), 1u);
  EXPECT_EQ(sys->queries_run(), 1u);

  // A change is read.
  service.exec("UPDATE accounts SET balance = 0 WHERE id = 1");
  EXPECT_NE(fingerprint_of(*sys), initial);
  rows = sys->query(sql);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(sys->observations_read(), 2u);
  EXPECT_EQ(sys->queries_run(), 2u);

  // The restored content is the saved one: its observation and rows come back unread.
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(fingerprint_of(*sys), initial);
  rows = sys->query(sql);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->rows.size(), 2u);
  EXPECT_EQ(sys->observations_read(), 2u);
  EXPECT_EQ(sys->queries_run(), 2u);
  EXPECT_EQ(sys->observations_reused(), 2u);
  EXPECT_EQ(sys->queries_reused(), 2u);

  // The service changes the restored content: read again, and a query not kept in the snapshot
  // runs.
  service.exec("INSERT INTO accounts VALUES (3, 'carol', 5)");
  EXPECT_NE(fingerprint_of(*sys), initial);
  rows = sys->query(sql);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->rows.size(), 3u);
  EXPECT_EQ(sys->observations_read(), 3u);
  EXPECT_EQ(sys->queries_run(), 3u);
  ASSERT_TRUE(sys->end());
}

TEST(SqliteSystemReuse, AQueryThatMayVaryIsAlwaysRunAndAWriteThroughAnotherConnectionIsSeen) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  auto sys = open_system({.path = path, .tables = {"audit"}});
  ASSERT_TRUE(sys->begin());
  auto h = sys->save();
  ASSERT_TRUE(h);
  for (const char* sql : {"SELECT count(*) FROM accounts WHERE random() <> 0", "SELECT date('now')",
                          "SELECT * FROM pragma_data_version"}) {
    const std::uint64_t run = sys->queries_run();
    ASSERT_TRUE(sys->query(sql));
    ASSERT_TRUE(sys->query(sql));
    EXPECT_EQ(sys->queries_run(), run + 2) << sql;
  }
  EXPECT_EQ(sys->queries_reused(), 0u);

  // A write right after a restore, on the content prowl knows: prowl sees it, and writes the
  // snapshot back over it.
  const Fingerprint before = fingerprint_of(*sys);
  ASSERT_TRUE(sys->restore(*h));
  Connection(path).exec("INSERT INTO audit VALUES ('by the service')");
  EXPECT_NE(fingerprint_of(*sys), before);
  ASSERT_TRUE(sys->restore(*h));
  EXPECT_EQ(fingerprint_of(*sys), before);
  EXPECT_EQ(Connection(path).one("SELECT count(*) FROM audit"), "i:0");
  ASSERT_TRUE(sys->end());
}

TEST(SqliteSystemReuse, AnObservedQueryThatMayVaryIsReadEveryTime) {
  TempDir dir;
  const std::string path = dir.file("app.db");
  create_accounts(path);
  auto sys = open_system({.path = path, .queries = {{"now", "SELECT count(*), time('now')"}}});
  (void)fingerprint_of(*sys);
  (void)fingerprint_of(*sys);
  EXPECT_EQ(sys->observations_read(), 2u);
  EXPECT_EQ(sys->observations_reused(), 0u);
}

}  // namespace
}  // namespace prowl
