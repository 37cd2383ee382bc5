// The PostgreSQL server the tests run against: PROWL_TEST_PG_DSN names it (scripts/pg-server.sh
// start DIR prints one; scripts/dev test starts one and exports it). Without it the tests are
// skipped, except under CI=true, where they fail. Each test gets a database of its own, created
// with a unique name (ctest runs test cases as parallel processes) and dropped when the test
// ends, passed or failed. Helpers: a connection for test code and pg_dump.
#pragma once

#include <libpq-fe.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "prowl/core/status.hpp"

namespace prowl::testing {

// A connection for test code: setup, checks, and the service under test's own connection. Every
// failure is a PROWL_CHECK (the test fails with the SQL and the server's message).
class PgConnection {
 public:
  explicit PgConnection(const std::string& dsn) : conn_(PQconnectdb(dsn.c_str()), &PQfinish) {
    PROWL_CHECK(PQstatus(get()) == CONNECTION_OK,
                "cannot connect to " + dsn + ": " + PQerrorMessage(get()));
    exec("SET client_min_messages = warning");
  }

  PGconn* get() const { return conn_.get(); }

  void exec(const std::string& sql) const {
    PGresult* r = PQexec(get(), sql.c_str());
    const auto status = PQresultStatus(r);
    std::string message = PQresultErrorMessage(r);
    PQclear(r);
    PROWL_CHECK(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, sql + ": " + message);
  }
  // Every row of the result, values as text joined with '|', NULL as "null".
  std::vector<std::string> rows(const std::string& sql) const {
    PGresult* r = PQexec(get(), sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    std::string message = PQresultErrorMessage(r);
    std::vector<std::string> out;
    for (int row = 0; ok && row < PQntuples(r); ++row) {
      std::string line;
      for (int c = 0; c < PQnfields(r); ++c) {
        if (c > 0) line += '|';
        line += PQgetisnull(r, row, c) ? "null" : PQgetvalue(r, row, c);
      }
      out.push_back(line);
    }
    PQclear(r);
    PROWL_CHECK(ok, sql + ": " + message);
    return out;
  }
  std::string one(const std::string& sql) const {
    auto r = rows(sql);
    PROWL_CHECK(r.size() == 1, sql + " did not return one row");
    return r[0];
  }

 private:
  // Owned from the start, so that a constructor that throws still closes it.
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn_;
};

// The DSN with one keyword set (added or replaced), in keyword/value form.
inline std::string pg_dsn_with(const std::string& dsn, const std::string& key,
                               const std::string& value) {
  char* err = nullptr;
  PQconninfoOption* options = PQconninfoParse(dsn.c_str(), &err);
  std::string message = err ? err : "";
  PQfreemem(err);
  PROWL_CHECK(options != nullptr, "bad DSN " + dsn + ": " + message);
  auto quoted = [](const std::string& v) {
    std::string out = "'";
    for (char c : v) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    return out + "'";
  };
  std::string out;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (o->keyword == key || o->val == nullptr) continue;
    out += std::string(o->keyword) + "=" + quoted(o->val) + " ";
  }
  PQconninfoFree(options);
  return out + key + "=" + quoted(value);
}

// A database of its own for one test, dropped (with any connection still on it) on destruction.
class PgTestDatabase {
 public:
  explicit PgTestDatabase(std::string server_dsn) : server_dsn_(std::move(server_dsn)) {
    static std::atomic<int> counter{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    name_ = "prowl_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" +
            std::to_string(now % 1000000007);
    PgConnection(server_dsn_).exec("CREATE DATABASE " + name_ + " TEMPLATE template0");
    dsn_ = pg_dsn_with(server_dsn_, "dbname", name_);
  }
  ~PgTestDatabase() {
    PGconn* c = PQconnectdb(server_dsn_.c_str());
    PQclear(PQexec(c, ("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)").c_str()));
    PQfinish(c);
  }
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& dsn() const { return dsn_; }

 private:
  std::string server_dsn_;
  std::string name_;
  std::string dsn_;
};

// A fixture whose tests each get a fresh database (dsn()). Without PROWL_TEST_PG_DSN the test is
// skipped, or fails when CI=true.
class PgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* server = std::getenv("PROWL_TEST_PG_DSN");
    if (server == nullptr || *server == '\0') {
      const char* ci = std::getenv("CI");
      const std::string message =
          "PROWL_TEST_PG_DSN is not set: start a server with `scripts/pg-server.sh start "
          "/tmp/prowl-pg` and export the DSN it prints as PROWL_TEST_PG_DSN (scripts/dev test "
          "does both)";
      if (ci != nullptr && std::string(ci) == "true") GTEST_FAIL() << message;
      GTEST_SKIP() << message;
    }
    db_.emplace(server);
  }
  void TearDown() override { db_.reset(); }

  const std::string& dsn() const { return db_->dsn(); }

  std::optional<PgTestDatabase> db_;
};

// pg_dump's plain output for the database (with data_only, its rows and sequence values only):
// from the newest /usr/lib/postgresql/*/bin, else PATH.
inline std::string pg_dump(const std::string& dsn, bool data_only = false) {
  std::string program = "pg_dump";
  std::error_code ec;
  std::vector<std::filesystem::path> bins;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    if (std::filesystem::exists(entry.path() / "bin" / "pg_dump")) {
      bins.push_back(entry.path() / "bin" / "pg_dump");
    }
  }
  // Version directories are numbers: the longest, then the greatest, name is the newest.
  std::sort(bins.begin(), bins.end(), [](const auto& a, const auto& b) {
    const std::string x = a.parent_path().parent_path().filename().string();
    const std::string y = b.parent_path().parent_path().filename().string();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  if (!bins.empty()) program = bins.back().string();
  const bool restrict_key = std::system((program + " --help | grep -q restrict-key").c_str()) == 0;
  int out[2];
  PROWL_CHECK(pipe(out) == 0, "pipe failed");
  const pid_t pid = fork();
  PROWL_CHECK(pid >= 0, "fork failed");
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    std::vector<std::string> args = {program, "--no-password", "--dbname", dsn};
    // pg_dump 15.14 and later write a random \restrict key into every dump unless given one.
    if (restrict_key) args.push_back("--restrict-key=prowltest");
    if (data_only) args.push_back("--data-only");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string dump;
  char buffer[65536];
  ssize_t n;
  while ((n = read(out[0], buffer, sizeof buffer)) > 0) dump.append(buffer, n);
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  PROWL_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, program + " failed for " + dsn);
  return dump;
}

}  // namespace prowl::testing
