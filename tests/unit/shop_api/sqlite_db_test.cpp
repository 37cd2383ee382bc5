// SqliteDb on real files: placeholders, statement caching, errors naming the file, and what prowl's
// SqliteSystem relies on: no lock held between calls, and a restore by another connection (the
// backup API, as SqliteSystem does it) seen by the next statement.
#ifdef PROWL_HAVE_SHOP_API

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "unit/shop_api/shop_test_support.hpp"

namespace shop::testing {
namespace {

using ::testing::HasSubstr;

// A second connection to the same file, as another process would have.
class OtherConnection {
 public:
  explicit OtherConnection(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
  }
  ~OtherConnection() { sqlite3_close(db_); }
  OtherConnection(const OtherConnection&) = delete;
  OtherConnection& operator=(const OtherConnection&) = delete;

  int exec(const char* sql) { return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr); }
  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

TEST(ShopSqlitePlaceholders, RewritesDollarNumbersOutsideQuotes) {
  EXPECT_EQ(detail::sqlite_placeholders("SELECT $1, '$2', \"$3\", $10, 'it''s $4', $ x"),
            "SELECT ?1, '$2', \"$3\", ?10, 'it''s $4', $ x");
}

TEST(ShopSqliteDb, ExecutesWithTextParametersAndReturnsTextRows) {
  TempDir dir;
  auto db = SqliteDb::open(dir.file("t.db"));
  ASSERT_TRUE(db) << db.status().message();
  ASSERT_TRUE((*db)->execute("CREATE TABLE t (id INTEGER PRIMARY KEY, n BIGINT, s TEXT)"));
  auto inserted =
      (*db)->execute("INSERT INTO t (n, s) VALUES ($2, $1) RETURNING id, n", {"x", "41"});
  ASSERT_TRUE(inserted) << inserted.status().message();
  EXPECT_EQ(*inserted, (Rows{{"1", "41"}}));
  EXPECT_EQ(query(**db, "SELECT typeof(n), n + 1, s, NULL FROM t"),
            std::vector<std::string>{"integer|42|x|NULL"});
}

TEST(ShopSqliteDb, ErrorsNameTheFileAndTheSql) {
  TempDir dir;
  auto db = SqliteDb::open(dir.file("t.db"));
  ASSERT_TRUE(db);
  auto bad = (*db)->execute("SELECT * FROM nowhere");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.status().message(), HasSubstr(dir.file("t.db")));
  EXPECT_THAT(bad.status().message(), HasSubstr("no such table: nowhere"));
  EXPECT_THAT(bad.status().message(), HasSubstr("SELECT * FROM nowhere"));
  auto count = (*db)->execute("SELECT $1", {"a", "b"});
  ASSERT_FALSE(count);
  EXPECT_THAT(count.status().message(), HasSubstr("2 parameters for 1 placeholders"));
}

TEST(ShopSqliteDb, OpenFailsForAMissingDirectoryOrAFileThatIsNotADatabase) {
  TempDir dir;
  auto missing = SqliteDb::open(dir.file("no/such/dir/shop.db"));
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.status().message(), HasSubstr("no/such/dir/shop.db': cannot open"));
  std::ofstream(dir.file("junk.db")) << std::string(4096, 'x');
  auto junk = SqliteDb::open(dir.file("junk.db"));
  ASSERT_FALSE(junk);
  EXPECT_THAT(junk.status().message(), HasSubstr("file is not a database"));
}

TEST(ShopSqliteDb, RollbackUndoesTheTransaction) {
  TempDir dir;
  auto db = SqliteDb::open(dir.file("t.db"));
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->execute("CREATE TABLE t (n INTEGER)"));
  ASSERT_TRUE((*db)->begin());
  ASSERT_TRUE((*db)->execute("INSERT INTO t VALUES (1)"));
  ASSERT_TRUE((*db)->rollback());
  EXPECT_EQ(query(**db, "SELECT COUNT(*) FROM t"), std::vector<std::string>{"0"});
  EXPECT_TRUE((*db)->rollback());  // nothing open: nothing to do
}

TEST(ShopSqliteDb, HoldsNoLockBetweenCalls) {
  TempDir dir;
  auto db = SqliteDb::open(dir.file("shop.db"));
  ASSERT_TRUE(db);
  Shop shop(**db);
  ASSERT_TRUE(shop.init());
  shop.create_order(1, 1);
  shop.refund(1);                          // refused: rolled back
  ASSERT_EQ(shop.products().status, 200);  // a read of several rows
  OtherConnection other(dir.file("shop.db"));
  // No busy timeout: any lock the shop still held would fail this at once.
  EXPECT_EQ(other.exec("BEGIN EXCLUSIVE"), SQLITE_OK) << sqlite3_errmsg(other.handle());
  EXPECT_EQ(other.exec("UPDATE products SET stock = 7 WHERE id = 2"), SQLITE_OK);
  EXPECT_EQ(other.exec("COMMIT"), SQLITE_OK);
  EXPECT_EQ(shop.product(2).body["stock"], 7);
}

TEST(ShopSqliteDb, TheShopSeesAStateRestoredByAnotherConnection) {
  TempDir dir;
  const std::string path = dir.file("shop.db");
  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db);
  Shop shop(**db);
  ASSERT_TRUE(shop.init());
  OtherConnection other(path);
  // Save the seeded state, as SqliteSystem::save() does.
  sqlite3_int64 size = 0;
  unsigned char* image = sqlite3_serialize(other.handle(), "main", &size, 0);
  ASSERT_NE(image, nullptr);
  ASSERT_EQ(shop.create_order(1, 1).status, 201);
  ASSERT_EQ(shop.pay(1).status, 200);
  // Restore it into the live file with the backup API, as SqliteSystem::restore() does.
  sqlite3* memory = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &memory), SQLITE_OK);
  // A WAL file's image says so in its header; an in-memory copy must say "rollback journal".
  if (size >= 20 && image[18] == 2 && image[19] == 2) image[18] = image[19] = 1;
  ASSERT_EQ(sqlite3_deserialize(memory, "main", image, size, size,
                                SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE),
            SQLITE_OK);
  sqlite3_backup* backup = sqlite3_backup_init(other.handle(), "main", memory, "main");
  ASSERT_NE(backup, nullptr);
  EXPECT_EQ(sqlite3_backup_step(backup, -1), SQLITE_DONE);
  sqlite3_backup_finish(backup);
  sqlite3_close(memory);
  // The shop's cached statements run against the restored content: the order is gone, and the
  // next one takes id 1 again.
  EXPECT_EQ(shop.orders().body, (nlohmann::json{{"orders", nlohmann::json::array()}}));
  EXPECT_EQ(shop.product(1).body["stock"], 2);
  const Reply again = shop.create_order(1, 1);
  EXPECT_EQ(again.status, 201);
  EXPECT_EQ(again.body["id"], 1);
}

}  // namespace
}  // namespace shop::testing

#endif  // PROWL_HAVE_SHOP_API
