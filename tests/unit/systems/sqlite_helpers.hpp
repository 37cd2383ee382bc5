// Helpers of the SqliteSystem tests: temporary files, connections of the service's own (in this
// process or another), and the logical content of a database file; and, for the tests of both
// databases' guards, a child process that holds something until it is killed.
#pragma once

#include <signal.h>
#include <sqlite3.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/systems/sqlite.hpp"

namespace prowl::testing {

// A temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "prowl-sqlite-XXXXXX").string();
    PROWL_CHECK(mkdtemp(tmpl.data()) != nullptr, "mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A connection of its own, as the service under test would hold.
class Connection {
 public:
  explicit Connection(const std::string& path) {
    PROWL_CHECK(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                nullptr) == SQLITE_OK,
                "cannot open " + path);
    sqlite3_busy_timeout(db_, 2000);
  }
  ~Connection() { sqlite3_close_v2(db_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    std::string message = err ? err : "";
    sqlite3_free(err);
    PROWL_CHECK(rc == SQLITE_OK, sql + ": " + message);
  }
  // Every row of the result, values rendered with their type ("i:1", "t:alice", "null") and
  // joined with '|'.
  std::vector<std::string> rows(const std::string& sql) const {
    sqlite3_stmt* stmt = nullptr;
    PROWL_CHECK(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK,
                sql + ": " + sqlite3_errmsg(db_));
    std::vector<std::string> out;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        if (c > 0) row += '|';
        const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_INTEGER:
            row += "i:";
            break;
          case SQLITE_FLOAT:
            row += "r:";
            break;
          case SQLITE_TEXT:
            row += "t:";
            break;
          case SQLITE_BLOB:
            row += "b:";
            break;
          default:
            row += "null";
            text = nullptr;
        }
        if (text) row += text;
      }
      out.push_back(row);
    }
    sqlite3_finalize(stmt);
    PROWL_CHECK(rc == SQLITE_DONE, sql + ": " + sqlite3_errmsg(db_));
    return out;
  }
  sqlite3* handle() const { return db_; }
  std::string one(const std::string& sql) const {
    auto r = rows(sql);
    PROWL_CHECK(r.size() == 1, sql + " did not return one row");
    return r[0];
  }

 private:
  sqlite3* db_ = nullptr;
};

// The whole logical content of a database file, read through a fresh connection: user_version,
// every schema entry, and every row of every table in rowid order.
inline std::string dump(const std::string& path) {
  Connection c(path);
  std::string out = "user_version " + c.one("PRAGMA user_version") + "\n";
  for (const auto& entry : c.rows("SELECT type, name, sql FROM sqlite_schema ORDER BY name")) {
    out += entry + "\n";
  }
  for (const auto& table :
       c.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")) {
    const std::string name = table.substr(2);
    for (const auto& row : c.rows("SELECT rowid, * FROM \"" + name + "\" ORDER BY rowid")) {
      out += name + ": " + row + "\n";
    }
  }
  return out;
}

inline void create_accounts(const std::string& path, const std::string& journal_mode = "delete") {
  Connection c(path);
  c.exec("PRAGMA journal_mode = " + journal_mode);
  c.exec(
      "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT, balance REAL);"
      "INSERT INTO accounts VALUES (1, 'alice', 10.5), (2, 'bob', 3.0);"
      "CREATE TABLE audit (line TEXT);");
}

inline std::unique_ptr<SqliteSystem> open_system(SqliteOptions options) {
  auto sys = SqliteSystem::open("db", std::move(options));
  PROWL_CHECK(sys.is_ok(), sys.status().message());
  return std::move(*sys);
}

inline Fingerprint fingerprint_of(const SqliteSystem& sys) {
  Hasher h;
  Status st = sys.observe(h);
  PROWL_CHECK(st.is_ok(), st.message());
  return h.finish();
}

inline constexpr const char* kNames =
    "SELECT group_concat(name, ',') FROM (SELECT name FROM accounts ORDER BY id)";

// The service is another process with its own connection, idle between requests: it answers each
// request line on a pipe ("names", "add <name>", "sql <statement>" or "quit") and keeps its
// connection open. "sql" answers the first column of the first row ("ok" without rows, "NULL"
// for NULL); the connection caches the schema and prepared statements like a real service.
class ServiceProcess {
 public:
  explicit ServiceProcess(const std::string& path) {
    int to_child[2], from_child[2];
    PROWL_CHECK(pipe(to_child) == 0 && pipe(from_child) == 0, "pipe failed");
    pid_ = fork();
    PROWL_CHECK(pid_ >= 0, "fork failed");
    if (pid_ == 0) {
      close(to_child[1]);
      close(from_child[0]);
      serve(path, to_child[0], from_child[1]);
    }
    close(to_child[0]);
    close(from_child[1]);
    out_ = to_child[1];
    in_ = from_child[0];
  }
  ~ServiceProcess() {
    if (pid_ > 0) {
      request("quit");
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
    close(in_);
  }
  std::string request(const std::string& line) {
    std::string msg = line + "\n";
    PROWL_CHECK(write(out_, msg.data(), msg.size()) == static_cast<ssize_t>(msg.size()),
                "write to the service failed");
    return read_line(in_);
  }
  int quit() {
    request("quit");
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  static std::string read_line(int fd) {
    std::string line;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n') line += c;
    return line;
  }
  static void write_line(int fd, const std::string& line) {
    std::string msg = line + "\n";
    if (write(fd, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size())) _exit(3);
  }
  [[noreturn]] static void serve(const std::string& path, int in, int out) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) _exit(2);
    sqlite3_busy_timeout(db, 2000);
    for (;;) {
      std::string line = read_line(in);
      if (line == "quit" || line.empty()) {
        write_line(out, "bye");
        sqlite3_close(db);
        _exit(0);
      }
      std::string sql =
          line == "names" ? std::string(kNames)
          : line.rfind("sql ", 0) == 0
              ? line.substr(4)
              : "INSERT INTO accounts (name, balance) VALUES ('" + line.substr(4) + "', 0)";
      sqlite3_stmt* stmt = nullptr;
      std::string answer;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
        answer = std::string("error: ") + sqlite3_errmsg(db);
      } else {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW) {
          const unsigned char* text = sqlite3_column_text(stmt, 0);
          answer = text ? reinterpret_cast<const char*>(text) : "NULL";
        } else {
          answer = rc == SQLITE_DONE ? "ok" : std::string("error: ") + sqlite3_errmsg(db);
        }
      }
      sqlite3_finalize(stmt);
      write_line(out, answer);
    }
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int in_ = -1;
};

// A test that runs once with a rollback-journal file and once with a WAL file (the parameter):
// the accounts database at path_ in a temporary directory.
class AccountsFileInBothJournalModes : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = dir_.file("app.db");
    create_accounts(path_, GetParam());
  }
  TempDir dir_;
  std::string path_;
};

// A child process that runs `body` and then waits to be killed; it writes "ready" (or what
// failed) on a pipe once body is done.
class Child {
 public:
  explicit Child(const std::function<std::string()>& body) {
    int fds[2];
    PROWL_CHECK(pipe(fds) == 0, "pipe failed");
    pid_ = fork();
    PROWL_CHECK(pid_ >= 0, "fork failed");
    if (pid_ == 0) {
      close(fds[0]);
      std::string line;
      try {
        line = body();
      } catch (...) {
        line = "exception";
      }
      line += "\n";
      if (write(fds[1], line.data(), line.size()) < 0) _exit(3);
      for (;;) pause();
    }
    close(fds[1]);
    in_ = fds[0];
  }
  ~Child() {
    kill_now();
    close(in_);
  }
  pid_t pid() const { return pid_; }
  std::string line() {
    std::string out;
    char c;
    while (read(in_, &c, 1) == 1 && c != '\n') out += c;
    return out;
  }
  // SIGKILL, and whether that is what ended it.
  bool kill_now() {
    if (pid_ <= 0) return false;
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
};

// Whether text is a local time as prowl writes it, within [from, to].
inline bool is_time_between(const std::string& text, std::time_t from, std::time_t to) {
  if (!std::regex_match(text, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)"))) return false;
  std::tm tm{};
  strptime(text.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  return t >= from && t <= to;
}

}  // namespace prowl::testing
