#include "shop_api/postgres_db.hpp"

#include <libpq-fe.h>

#include <atomic>
#include <utility>
#include <vector>

namespace shop {
namespace {

// Frees a PGresult however the call ends.
struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

std::string trimmed(const char* message) {
  std::string text = message ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

Status failure(PGconn* conn, const PGresult* result, std::string_view sql) {
  std::string message = trimmed(result ? PQresultErrorMessage(result) : PQerrorMessage(conn));
  if (message.empty()) message = trimmed(PQerrorMessage(conn));
  return Status::error("postgres: " + message + " (in: " + std::string(sql) + ")");
}

void drop_notice(void*, const char*) {}

}  // namespace

PostgresDb::PostgresDb(PGconn* conn, bool owned) : conn_(conn), owned_(owned) {
  static std::atomic<unsigned> instances{0};
  prefix_ = "shop_" + std::to_string(instances.fetch_add(1) + 1) + "_";
}

Result<std::unique_ptr<PostgresDb>> PostgresDb::connect(const std::string& dsn) {
  PGconn* conn = PQconnectdb(dsn.c_str());
  if (conn == nullptr) return Status::error("postgres: cannot allocate a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::error("postgres: cannot connect: " + message);
  }
  PQsetNoticeProcessor(conn, drop_notice, nullptr);
  return std::unique_ptr<PostgresDb>(new PostgresDb(conn, true));
}

std::unique_ptr<PostgresDb> PostgresDb::borrow(PGconn* conn) {
  return std::unique_ptr<PostgresDb>(new PostgresDb(conn, false));
}

PostgresDb::~PostgresDb() {
  if (owned_) {
    PQfinish(conn_);
    return;
  }
  // Prepared statements live as long as the session: give back what this instance created. In a
  // failed transaction nothing can run; the statements then stay until the session ends.
  if (PQstatus(conn_) != CONNECTION_OK || PQtransactionStatus(conn_) == PQTRANS_INERROR) return;
  for (const auto& [sql, name] : statements_) {
    const std::string deallocate = "DEALLOCATE " + name;
    ResultPtr(PQexec(conn_, deallocate.c_str()));
  }
}

Status PostgresDb::command(const char* sql) {
  ResultPtr result(PQexec(conn_, sql));
  if (!result || PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    return failure(conn_, result.get(), sql);
  }
  return Status::ok();
}

Result<Rows> PostgresDb::execute(std::string_view sql, const Params& params) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    std::string name = prefix_ + std::to_string(statements_.size() + 1);
    const std::string text(sql);
    ResultPtr prepared(
        PQprepare(conn_, name.c_str(), text.c_str(), static_cast<int>(params.size()), nullptr));
    if (!prepared || PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
      return failure(conn_, prepared.get(), sql);
    }
    it = statements_.emplace(text, std::move(name)).first;
  }
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  ResultPtr result(PQexecPrepared(conn_, it->second.c_str(), static_cast<int>(values.size()),
                                  values.data(), nullptr, nullptr, 0));
  const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return failure(conn_, result.get(), sql);
  }
  Rows rows;
  const int n = PQntuples(result.get());
  const int columns = PQnfields(result.get());
  rows.reserve(n);
  for (int r = 0; r < n; ++r) {
    Row& row = rows.emplace_back();
    row.reserve(columns);
    for (int c = 0; c < columns; ++c) {
      if (PQgetisnull(result.get(), r, c)) {
        row.emplace_back();
      } else {
        row.emplace_back(std::string(PQgetvalue(result.get(), r, c),
                                     static_cast<std::size_t>(PQgetlength(result.get(), r, c))));
      }
    }
  }
  return rows;
}

Status PostgresDb::begin() {
  if (owned_) return command("BEGIN");
  if (PQtransactionStatus(conn_) != PQTRANS_INTRANS) {
    return Status::error(
        "postgres: a borrowed connection must be inside a transaction block (the shop uses "
        "savepoints on it, never BEGIN)");
  }
  if (auto s = command("SAVEPOINT shop_op"); !s) return s;
  in_savepoint_ = true;
  return Status::ok();
}

Status PostgresDb::commit() {
  if (owned_) return command("COMMIT");
  in_savepoint_ = false;
  return command("RELEASE SAVEPOINT shop_op");
}

Status PostgresDb::rollback() {
  if (owned_) return command("ROLLBACK");
  if (!in_savepoint_) return Status::ok();
  in_savepoint_ = false;
  if (auto s = command("ROLLBACK TO SAVEPOINT shop_op"); !s) return s;
  return command("RELEASE SAVEPOINT shop_op");
}

}  // namespace shop
