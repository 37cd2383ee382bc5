#include "library_api/library.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace library {
namespace {

using Id = std::int64_t;
using nlohmann::json;

// One connection for one request. Closing it rolls back a transaction that was not committed, so
// a request that fails half-way leaves the file as it found it.
class Db {
 public:
  explicit Db(const std::string& path) {
    const int rc =
        sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw std::runtime_error("cannot open '" + path + "': " + message);
    }
    // prowl reads and restores the file between requests; wait for its locks rather than fail.
    sqlite3_busy_timeout(db_, 5000);
  }
  ~Db() { sqlite3_close_v2(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
      throw std::runtime_error(std::string(sqlite3_errmsg(db_)) + " (in: " + sql + ")");
    }
  }
  sqlite3* raw() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// A prepared statement. Reading a column while the statement is not on a row throws: SQLite
// would answer NULL, which could pass for a value.
class Statement {
 public:
  Statement(Db& db, const char* sql) : db_(db.raw()), sql_(sql) {
    if (sqlite3_prepare_v2(db_, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("cannot prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, Id value) {
    if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail("cannot bind");
    return *this;
  }
  // True when a row is there to read, false when the statement has run to its end.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    on_row_ = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail("statement failed");
    return on_row_;
  }
  Id integer(int column) const {
    require_row();
    return sqlite3_column_int64(stmt_, column);
  }

 private:
  void require_row() const {
    if (!on_row_) throw std::runtime_error(std::string("no row to read (in: ") + sql_ + ")");
  }
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db_) + " (in: " + sql_ +
                             ")");
  }

  sqlite3* db_;
  const char* sql_;
  sqlite3_stmt* stmt_ = nullptr;
  bool on_row_ = false;
};

// Runs a statement with its parameters (?1, ?2, ...) to its end.
void run(Db& db, const char* sql, std::initializer_list<Id> params = {}) {
  Statement statement(db, sql);
  int index = 1;
  for (const Id param : params) statement.bind(index++, param);
  while (statement.step()) {
  }
}

// The first column of a query that always gives one row: a count, a column of a known row.
Id value(Db& db, const char* sql, std::initializer_list<Id> params = {}) {
  Statement statement(db, sql);
  int index = 1;
  for (const Id param : params) statement.bind(index++, param);
  statement.step();
  return statement.integer(0);
}

// The rows the last INSERT, UPDATE or DELETE changed.
Id changes(Db& db) { return sqlite3_changes(db.raw()); }

Id today(Db& db) { return value(db, "SELECT day FROM clock"); }

Reply error(int status, std::string message) { return {status, {{"error", std::move(message)}}}; }

std::string member_name(Id member) { return "member " + std::to_string(member); }
std::string book_name(Id book) { return "book " + std::to_string(book); }

// 404 for a member or a book the library does not have.
std::optional<Reply> unknown(Db& db, Id member, std::optional<Id> book = std::nullopt) {
  if (value(db, "SELECT count(*) FROM members WHERE id = ?1", {member}) == 0) {
    return error(404, "no " + member_name(member));
  }
  if (book && value(db, "SELECT count(*) FROM books WHERE id = ?1", {*book}) == 0) {
    return error(404, "no " + book_name(*book));
  }
  return std::nullopt;
}

Id reservations_of(Db& db, Id member, Id book) {
  return value(db, "SELECT count(*) FROM reservations WHERE member = ?1 AND book = ?2",
               {member, book});
}

Id open_loans_of(Db& db, Id member, Id book) {
  return value(db, "SELECT count(*) FROM loans WHERE member = ?1 AND book = ?2 AND open = 1",
               {member, book});
}

// Opens the member's loan of the book: a new row, or the row of an earlier loan of it.
Reply lend(Db& db, Id member, Id book, Id day) {
  run(db,
      "INSERT INTO loans (member, book, open) VALUES (?1, ?2, 1)"
      " ON CONFLICT (member, book) DO UPDATE SET open = 1",
      {member, book});
  return {201, {{"member", member}, {"book", book}, {"borrowed_on", day}}};
}

// POST /loans {"member": M, "book": B}
Reply borrow(Db& db, Id member, Id book) {
  if (auto missing = unknown(db, member, book)) return *missing;
  const Id day = today(db);
  // Seeded bugs 1 and 2: a reservation is taken as the promise of a free copy, so its holder gets
  // the book at once, past the checks below. But a book that is out can be reserved (that is what
  // a reservation is for: the next turn), and so can any book by a suspended member (reserve's
  // own seeded bug), so this lends a copy that is out and lends to a suspended member.
  if (reservations_of(db, member, book) > 0) {
    run(db, "DELETE FROM reservations WHERE member = ?1 AND book = ?2", {member, book});
    return lend(db, member, book, day);
  }
  if (value(db, "SELECT suspended FROM members WHERE id = ?1", {member}) != 0) {
    return error(409, member_name(member) + " is suspended");
  }
  const Id copies = value(db, "SELECT copies FROM books WHERE id = ?1", {book});
  const Id lent = value(db, "SELECT count(*) FROM loans WHERE book = ?1 AND open = 1", {book});
  if (lent >= copies) return error(409, "every copy of " + book_name(book) + " is on loan");
  if (value(db, "SELECT count(*) FROM reservations WHERE book = ?1 AND member <> ?2",
            {book, member}) > 0) {
    return error(409, book_name(book) + " is reserved by another member");
  }
  return lend(db, member, book, day);
}

// POST /returns {"member": M, "book": B}
Reply give_back(Db& db, Id member, Id book) {
  if (auto missing = unknown(db, member, book)) return *missing;
  Statement loan(db, "SELECT open FROM loans WHERE member = ?1 AND book = ?2");
  loan.bind(1, member).bind(2, book);
  // Seeded bug 3: what step() answers is not looked at, as if whoever gives a book back had
  // borrowed it. A member who never borrowed it has no row; reading one throws, and the request
  // ends in a 500 where a 409 belongs.
  loan.step();
  if (loan.integer(0) == 0) {
    return error(409, member_name(member) + " has given " + book_name(book) + " back already");
  }
  run(db, "UPDATE loans SET open = 0 WHERE member = ?1 AND book = ?2", {member, book});
  return {200, {{"member", member}, {"book", book}, {"returned_on", today(db)}}};
}

// POST /reservations {"member": M, "book": B}. A reservation made on day D holds until day D + 2.
Reply reserve(Db& db, Id member, Id book) {
  if (auto missing = unknown(db, member, book)) return *missing;
  if (reservations_of(db, member, book) > 0) {
    return error(409, member_name(member) + " has already reserved " + book_name(book));
  }
  if (open_loans_of(db, member, book) > 0) {
    return error(409, member_name(member) + " has " + book_name(book) + " on loan");
  }
  // Seeded bug (the other half of bug 2): a suspended member may reserve, and borrow then honours
  // the reservation.
  const Id day = today(db);
  run(db, "INSERT INTO reservations (member, book, made_on) VALUES (?1, ?2, ?3)",
      {member, book, day});
  return {201, {{"member", member}, {"book", book}, {"made_on", day}, {"expires_on", day + 2}}};
}

// POST /members/M/suspension. Suspension also cancels the member's reservations: they are claims
// on books the member may no longer borrow. This is also why the shortest way to lend a book to a
// suspended member is suspend, reserve, borrow: reserving first and then being suspended leaves no
// reservation for borrow's shortcut, so only reserve's missing check lets the bug through.
Reply suspend(Db& db, Id member) {
  if (auto missing = unknown(db, member)) return *missing;
  if (value(db, "SELECT suspended FROM members WHERE id = ?1", {member}) != 0) {
    return error(409, member_name(member) + " is already suspended");
  }
  if (value(db, "SELECT count(*) FROM loans WHERE member = ?1 AND open = 1", {member}) > 0) {
    return error(409, member_name(member) + " has books on loan");
  }
  run(db, "UPDATE members SET suspended = 1 WHERE id = ?1", {member});
  run(db, "DELETE FROM reservations WHERE member = ?1", {member});
  return {200, {{"member", member}, {"suspended", true}, {"reservations_cancelled", changes(db)}}};
}

// DELETE /members/M/suspension
Reply reinstate(Db& db, Id member) {
  if (auto missing = unknown(db, member)) return *missing;
  if (value(db, "SELECT suspended FROM members WHERE id = ?1", {member}) == 0) {
    return error(409, member_name(member) + " is not suspended");
  }
  run(db, "UPDATE members SET suspended = 0 WHERE id = ?1", {member});
  return {200, {{"member", member}, {"suspended", false}}};
}

// POST /clock/tick: a day passes, and the reservations made two or more days ago expire.
Reply tick(Db& db) {
  run(db, "UPDATE clock SET day = day + 1");
  const Id day = today(db);
  run(db, "DELETE FROM reservations WHERE made_on <= ?1 - 2", {day});
  return {200, {{"day", day}, {"expired", changes(db)}}};
}

// GET /inventory: each book, its copies and what holds them.
Reply inventory(Db& db) {
  Statement books(db,
                  "SELECT b.id, b.copies, "
                  "(SELECT count(*) FROM loans l WHERE l.book = b.id AND l.open = 1), "
                  "(SELECT count(*) FROM reservations r WHERE r.book = b.id) "
                  "FROM books b ORDER BY b.id");
  json list = json::array();
  while (books.step()) {
    const Id copies = books.integer(1);
    const Id on_loan = books.integer(2);
    const Id reserved = books.integer(3);
    const char* status = on_loan >= copies ? "on loan" : reserved > 0 ? "reserved" : "available";
    list.push_back({{"book", books.integer(0)},
                    {"copies", copies},
                    {"on_loan", on_loan},
                    {"reservations", reserved},
                    {"status", status}});
  }
  return {200, {{"day", today(db)}, {"books", std::move(list)}}};
}

// The integer member `key` of a request body, or why there is none.
std::optional<Id> integer_member(const json& object, const char* key, std::string* why) {
  const auto it = object.find(key);
  if (it == object.end()) {
    *why = std::string("\"") + key + "\" is required";
    return std::nullopt;
  }
  const bool too_large =
      it->is_number_unsigned() &&
      it->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<Id>::max());
  if (!it->is_number_integer() || too_large) {
    *why = std::string("\"") + key + "\" must be an integer";
    return std::nullopt;
  }
  return it->get<Id>();
}

// The member and book of a body {"member": M, "book": B}, or why it has none.
std::optional<std::pair<Id, Id>> member_and_book(std::string_view body, std::string* why) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    *why = "the body must be a JSON object {\"member\": M, \"book\": B}";
    return std::nullopt;
  }
  const auto member = integer_member(parsed, "member", why);
  if (!member) return std::nullopt;
  const auto book = integer_member(parsed, "book", why);
  if (!book) return std::nullopt;
  return std::pair{*member, *book};
}

// "/members/12/suspension" -> 12; nullopt for any other path.
std::optional<Id> suspension_member(std::string_view path) {
  constexpr std::string_view prefix = "/members/";
  constexpr std::string_view suffix = "/suspension";
  if (!path.starts_with(prefix) || !path.ends_with(suffix)) return std::nullopt;
  const std::string_view digits =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  Id id = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    id = id * 10 + (c - '0');
  }
  return id;
}

Reply route(Db& db, std::string_view method, std::string_view path, std::string_view body) {
  const auto not_allowed = [&] {
    return error(405, std::string(method) + " is not allowed on " + std::string(path));
  };
  if (path == "/inventory") return method == "GET" ? inventory(db) : not_allowed();
  if (path == "/clock/tick") return method == "POST" ? tick(db) : not_allowed();
  if (const auto member = suspension_member(path)) {
    if (method == "POST") return suspend(db, *member);
    if (method == "DELETE") return reinstate(db, *member);
    return not_allowed();
  }
  if (path != "/loans" && path != "/returns" && path != "/reservations") {
    return error(404, "no such resource: " + std::string(path));
  }
  if (method != "POST") return not_allowed();
  std::string why;
  const auto request = member_and_book(body, &why);
  if (!request) return error(400, why);
  const auto [member, book] = *request;
  if (path == "/loans") return borrow(db, member, book);
  if (path == "/returns") return give_back(db, member, book);
  return reserve(db, member, book);
}

}  // namespace

// A loan is one row per member and book, reopened when the member borrows the book again, and the
// clock moves only on a tick. With no history that grows, the library has finitely many states
// for each number of days, so prowl can explore all of them when it limits the ticks.
void init(const std::string& db_path) {
  Db db(db_path);
  db.exec("BEGIN IMMEDIATE");
  db.exec(
      "CREATE TABLE IF NOT EXISTS members (id INTEGER PRIMARY KEY,"
      " suspended INTEGER NOT NULL DEFAULT 0);"
      "CREATE TABLE IF NOT EXISTS books (id INTEGER PRIMARY KEY, copies INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS loans ("
      " member INTEGER NOT NULL REFERENCES members (id),"
      " book INTEGER NOT NULL REFERENCES books (id),"
      " open INTEGER NOT NULL, PRIMARY KEY (member, book));"
      "CREATE TABLE IF NOT EXISTS reservations ("
      " member INTEGER NOT NULL REFERENCES members (id),"
      " book INTEGER NOT NULL REFERENCES books (id),"
      " made_on INTEGER NOT NULL, PRIMARY KEY (member, book));"
      "CREATE TABLE IF NOT EXISTS clock (day INTEGER NOT NULL);");
  if (value(db, "SELECT count(*) FROM clock") == 0) {
    db.exec(
        "INSERT INTO members (id) VALUES (1), (2);"
        "INSERT INTO books (id, copies) VALUES (1, 1), (2, 1);"
        "INSERT INTO clock (day) VALUES (0);");
  }
  db.exec("COMMIT");
}

Reply handle(const std::string& db_path, std::string_view method, std::string_view path,
             std::string_view body) {
  if (path == "/health") {
    if (method == "GET") return {200, {{"status", "ok"}}};
    return error(405, std::string(method) + " is not allowed on /health");
  }
  try {
    Db db(db_path);
    db.exec("BEGIN IMMEDIATE");
    Reply reply = route(db, method, path, body);
    db.exec("COMMIT");
    return reply;
  } catch (const std::exception& e) {
    // Whatever the handlers did not foresee; closing the connection rolled back their writes.
    return error(500, std::string("internal error: ") + e.what());
  }
}

}  // namespace library
