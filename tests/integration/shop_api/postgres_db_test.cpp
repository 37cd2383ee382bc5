// PostgresDb on a real server (PROWL_TEST_PG_DSN; a fresh database per test), above all the
// borrowed form that prowl's savepoint mode uses: operations run inside the caller's transaction
// through savepoints, never BEGIN or COMMIT, and a refused or failed operation leaves that
// transaction usable and unchanged.
#ifdef PROWL_HAVE_SHOP_API

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>
#include <string>
#include <vector>

#include "unit/shop_api/shop_test_support.hpp"

namespace shop::testing {
namespace {

using ::testing::HasSubstr;

// Needs no server: the port refuses connections.
TEST(ShopPostgresConnect, FailsWithLibpqsMessage) {
  auto db = PostgresDb::connect("host=127.0.0.1 port=1 connect_timeout=2");
  ASSERT_FALSE(db);
  EXPECT_THAT(db.status().message(), HasSubstr("postgres: cannot connect:"));
  EXPECT_THAT(db.status().message(), HasSubstr("127.0.0.1"));
}

class ShopPostgresDb : public ::testing::Test {
 protected:
  void SetUp() override {
    SHOP_REQUIRE_PG_DSN(admin);
    pg_ = std::make_unique<PgTestDatabase>(admin);
    ASSERT_TRUE(pg_->created());
    conn_ = PQconnectdb(pg_->dsn().c_str());
    ASSERT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
    PQsetNoticeProcessor(conn_, &ShopPostgresDb::record_notice, &notices_);
  }
  void TearDown() override {
    if (conn_ != nullptr) PQfinish(conn_);
    pg_.reset();
  }

  // Runs a command on the caller's connection (the one the PostgresDb borrows).
  void run(const char* sql) {
    PGresult* result = PQexec(conn_, sql);
    EXPECT_EQ(PQresultStatus(result), PGRES_COMMAND_OK) << sql << ": " << PQerrorMessage(conn_);
    PQclear(result);
  }
  // Creates the schema and seed through an owned connection, committed.
  void create_schema() {
    auto owned = PostgresDb::connect(pg_->dsn());
    ASSERT_TRUE(owned) << owned.status().message();
    ASSERT_TRUE(Shop(**owned).init());
  }
  // What a separate connection sees: committed data only.
  std::vector<std::string> committed(std::string_view sql) {
    auto other = PostgresDb::connect(pg_->dsn());
    if (!other) return {other.status().message()};
    return query(**other, sql);
  }
  static void record_notice(void* notices, const char* message) {
    static_cast<std::vector<std::string>*>(notices)->push_back(message);
  }

  std::unique_ptr<PgTestDatabase> pg_;
  PGconn* conn_ = nullptr;
  std::vector<std::string> notices_;
};

TEST_F(ShopPostgresDb, BorrowedOperationsStayInsideTheCallersTransaction) {
  create_schema();
  run("BEGIN");
  {
    auto db = PostgresDb::borrow(conn_);
    EXPECT_FALSE(db->owns_connection());
    Shop shop(*db);
    EXPECT_EQ(shop.create_order(1, 1).status, 201);
    EXPECT_EQ(shop.pay(1).status, 200);
    EXPECT_EQ(PQtransactionStatus(conn_), PQTRANS_INTRANS);
    EXPECT_EQ(query(*db, "SELECT status FROM orders"), std::vector<std::string>{"paid"});
    // Nothing was committed: another connection sees no order.
    EXPECT_EQ(committed("SELECT COUNT(*) FROM orders"), std::vector<std::string>{"0"});
  }
  run("ROLLBACK");
  EXPECT_EQ(committed("SELECT COUNT(*) FROM orders"), std::vector<std::string>{"0"});
  // A BEGIN or COMMIT inside the transaction would have drawn a warning.
  EXPECT_EQ(notices_, std::vector<std::string>{});
}

TEST_F(ShopPostgresDb, ARefusedOperationRollsBackToItsSavepointOnly) {
  create_schema();
  run("BEGIN");
  auto db = PostgresDb::borrow(conn_);
  Shop shop(*db);
  ASSERT_EQ(shop.create_order(1, 1).status, 201);
  ASSERT_EQ(shop.create_order(1, 1).status, 201);
  EXPECT_EQ(shop.create_order(1, 1).status, 409);  // out of stock
  EXPECT_EQ(PQtransactionStatus(conn_), PQTRANS_INTRANS);
  EXPECT_EQ(query(*db, "SELECT COUNT(*) FROM orders"), std::vector<std::string>{"2"});
  run("COMMIT");
  EXPECT_EQ(committed("SELECT COUNT(*) FROM orders"), std::vector<std::string>{"2"});
}

TEST_F(ShopPostgresDb, AFailedStatementLeavesTheCallersTransactionUsable) {
  create_schema();
  run("BEGIN");
  auto db = PostgresDb::borrow(conn_);
  Shop shop(*db);
  ASSERT_EQ(shop.create_order(1, 1).status, 201);
  run("SAVEPOINT caller");
  run("ALTER TABLE ledger RENAME TO ledger_gone");  // every order operation now fails
  const Reply failed = shop.pay(1);
  EXPECT_EQ(failed.status, 500);
  EXPECT_THAT(failed.body["error"].get<std::string>(),
              HasSubstr("relation \"ledger\" does not exist"));
  EXPECT_EQ(PQtransactionStatus(conn_), PQTRANS_INTRANS);
  run("ROLLBACK TO SAVEPOINT caller");
  // The caller's savepoints still work, and the shop goes on.
  EXPECT_EQ(shop.pay(1).status, 200);
  run("COMMIT");
  EXPECT_EQ(committed("SELECT status FROM orders"), std::vector<std::string>{"paid"});
}

TEST_F(ShopPostgresDb, BorrowedBeginRefusesAConnectionOutsideATransaction) {
  create_schema();
  auto db = PostgresDb::borrow(conn_);
  const Status begin = db->begin();
  ASSERT_FALSE(begin);
  EXPECT_THAT(begin.message(), HasSubstr("must be inside a transaction block"));
  EXPECT_EQ(PQtransactionStatus(conn_), PQTRANS_IDLE);
  EXPECT_EQ(Shop(*db).pay(1).status, 500);
}

TEST_F(ShopPostgresDb, TwoBorrowersOnOneConnectionDoNotShareStatementNames) {
  create_schema();
  run("BEGIN");
  auto first = PostgresDb::borrow(conn_);
  auto second = PostgresDb::borrow(conn_);
  EXPECT_EQ(Shop(*first).product(1).status, 200);
  EXPECT_EQ(Shop(*second).product(1).status, 200);
  first.reset();  // deallocates its statements only
  EXPECT_EQ(Shop(*second).product(1).status, 200);
  run("COMMIT");
}

TEST_F(ShopPostgresDb, OwnedConnectionCommitsEachOperation) {
  auto db = PostgresDb::connect(pg_->dsn());
  ASSERT_TRUE(db) << db.status().message();
  EXPECT_TRUE((*db)->owns_connection());
  Shop shop(**db);
  ASSERT_TRUE(shop.init());
  ASSERT_EQ(shop.create_order(1, 1).status, 201);
  EXPECT_EQ(PQtransactionStatus((*db)->connection()), PQTRANS_IDLE);
  EXPECT_EQ(committed("SELECT id, status FROM orders"), std::vector<std::string>{"1|pending"});
}

TEST_F(ShopPostgresDb, IdsComeFromSequencesThatARollbackDoesNotRewind) {
  create_schema();
  run("BEGIN");
  auto db = PostgresDb::borrow(conn_);
  Shop shop(*db);
  run("SAVEPOINT before");
  EXPECT_EQ(shop.create_order(1, 1).body["id"], 1);
  run("ROLLBACK TO SAVEPOINT before");
  EXPECT_EQ(shop.create_order(1, 1).body["id"], 2);
  run("ROLLBACK");
}

}  // namespace
}  // namespace shop::testing

#endif  // PROWL_HAVE_SHOP_API
