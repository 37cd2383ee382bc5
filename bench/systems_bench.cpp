// systems_bench: what the database systems cost per operation, one line per figure:
//   BENCH name=sqlite_save_restore_1mb ...        SqliteSystem on a 1 MB file
//   BENCH name=pg_snapshot_save_restore_1000_rows PostgresSystem, snapshot mode
//   BENCH name=pg_savepoint_push_rollback         PostgresSystem, savepoint mode
//   BENCH name=pg_savepoint_bfs                   replayed actions per explored transition (BFS)
// Times are medians per operation, in milliseconds.
// The PostgreSQL figures need a server: --dsn DSN or PROWL_TEST_PG_DSN (scripts/pg-server.sh
// start DIR prints one); without one the program says so and exits with code 3. It works in a
// database of its own, created and dropped on the server.
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "prowl/core/exit_code.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/strategy/bfs.hpp"
#include "prowl/systems/postgres.hpp"
#include "prowl/systems/sqlite.hpp"
#include "prowl/world/world.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Per-operation times; the median resists the noise of a shared machine better than the mean.
class Samples {
 public:
  template <class F>
  void time(F&& f) {
    const auto start = Clock::now();
    f();
    ms_.push_back(ms_since(start));
  }
  double median() {
    if (ms_.empty()) return 0;
    std::sort(ms_.begin(), ms_.end());
    return ms_[ms_.size() / 2];
  }

 private:
  std::vector<double> ms_;
};

// Fails the benchmark: a broken environment, as prowl reports one.
[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "systems_bench: %s\n", message.c_str());
  std::exit(prowl::kExitEnvironment);
}
void check(const prowl::Status& st) {
  if (!st) fail(st.message());
}
template <class T>
T check(prowl::Result<T> r) {
  if (!r) fail(r.status().message());
  return std::move(*r);
}

void pg_exec(PGconn* c, const std::string& sql) {
  PGresult* r = PQexec(c, sql.c_str());
  const auto status = PQresultStatus(r);
  std::string message = PQresultErrorMessage(r);
  PQclear(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(sql + ": " + message);
}

void sqlite_exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string message = err ? err : "";
    sqlite3_free(err);
    fail(std::string(sql) + ": " + message);
  }
}

void bench_sqlite() {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("prowl-systems-bench-{}", getpid());
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "bench.db").string();
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) fail("cannot create " + path);
  sqlite_exec(db,
              "CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB);"
              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
              "INSERT INTO t SELECT i, randomblob(1000) FROM n");
  const auto bytes = std::filesystem::file_size(path);
  {
    auto sys = check(prowl::SqliteSystem::open("db", {.path = path, .tables = {"t"}}));
    check(sys->begin());
    constexpr int kRounds = 50;
    Samples saves;
    Samples restores;
    prowl::SnapshotHandle a = 0;
    for (int i = 0; i < kRounds; ++i) {
      if (i > 0) sys->release(a);
      saves.time([&] { a = check(sys->save()); });
    }
    sqlite_exec(db, "UPDATE t SET data = randomblob(1000) WHERE id = 1");
    const prowl::SnapshotHandle b = check(sys->save());
    // Alternating between two images makes every restore write.
    for (int i = 0; i < kRounds; ++i) {
      restores.time([&] { check(sys->restore(i % 2 == 0 ? a : b)); });
    }
    check(sys->end());
    std::printf(
        "BENCH name=sqlite_save_restore_1mb bytes=%ju ms_per_save=%.3f ms_per_restore=%.3f\n",
        static_cast<std::uintmax_t>(bytes), saves.median(), restores.median());
  }
  sqlite3_close(db);
  std::filesystem::remove_all(dir);
}

// A database of the benchmark's own on the server, dropped at the end.
class BenchDatabase {
 public:
  explicit BenchDatabase(const std::string& server) : server_(server) {
    admin_ = PQconnectdb(server.c_str());
    if (PQstatus(admin_) != CONNECTION_OK) {
      fail(fmt::format("cannot connect to '{}': {}", prowl::redact_dsn(server),
                       PQerrorMessage(admin_)));
    }
    name_ = fmt::format("prowl_bench_{}", getpid());
    pg_exec(admin_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    pg_exec(admin_, "CREATE DATABASE " + name_ + " TEMPLATE template0");
    // The server's DSN with another dbname: keyword/value, as libpq parsed it.
    char* err = nullptr;
    PQconninfoOption* options = PQconninfoParse(server.c_str(), &err);
    if (options == nullptr) fail(std::string("bad DSN: ") + (err ? err : ""));
    for (PQconninfoOption* o = options; o->keyword; ++o) {
      if (o->val == nullptr || std::string(o->keyword) == "dbname") continue;
      dsn_ += fmt::format("{}='{}' ", o->keyword, o->val);
    }
    PQconninfoFree(options);
    dsn_ += "dbname=" + name_;
  }
  ~BenchDatabase() {
    pg_exec(admin_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    PQfinish(admin_);
  }
  const std::string& dsn() const { return dsn_; }

 private:
  std::string server_;
  PGconn* admin_ = nullptr;
  std::string name_;
  std::string dsn_;
};

void bench_pg_snapshot(const std::string& dsn) {
  PGconn* service = PQconnectdb(dsn.c_str());
  pg_exec(service,
          "CREATE TABLE orders (id serial PRIMARY KEY, customer text NOT NULL, qty int NOT NULL,"
          "  note text);"
          "INSERT INTO orders (customer, qty, note) SELECT 'customer ' || i, i % 7, "
          "  repeat('x', 40) FROM generate_series(1, 1000) AS i");
  auto sys = check(prowl::PostgresSystem::open("db", {.dsn = dsn, .tables = {"orders"}}));
  check(sys->begin());
  constexpr int kRounds = 100;
  // Each save follows a write, as it does in a run (an unchanged database would share an image).
  Samples saves, restores, unchanged, observes;
  prowl::SnapshotHandle a = 0;
  for (int i = 0; i < kRounds; ++i) {
    pg_exec(service, fmt::format("UPDATE orders SET qty = {} WHERE id = 1", i));
    if (i > 0) sys->release(a);
    saves.time([&] { a = check(sys->save()); });
  }
  pg_exec(service, "INSERT INTO orders (customer, qty) VALUES ('new', 1)");
  const prowl::SnapshotHandle b = check(sys->save());
  for (int i = 0; i < kRounds; ++i) {
    restores.time([&] { check(sys->restore(i % 2 == 0 ? a : b)); });
  }
  // Restoring what the database already holds: skipped when the cluster wrote nothing since.
  const std::uint64_t skipped_before = sys->skipped_restores();
  for (int i = 0; i < kRounds; ++i) unchanged.time([&] { check(sys->restore(b)); });
  const std::uint64_t skipped = sys->skipped_restores() - skipped_before;
  prowl::Hasher h;
  for (int i = 0; i < kRounds; ++i) observes.time([&] { check(sys->observe(h)); });
  check(sys->end());
  std::printf(
      "BENCH name=pg_snapshot_save_restore_1000_rows ms_per_save=%.3f ms_per_restore=%.3f "
      "ms_per_unchanged_restore=%.3f unchanged_skipped=%ju/%d ms_per_observe=%.3f\n",
      saves.median(), restores.median(), unchanged.median(), static_cast<std::uintmax_t>(skipped),
      kRounds, observes.median());
  pg_exec(service, "DROP TABLE orders");
  PQfinish(service);
}

void bench_pg_savepoint(const std::string& dsn) {
  PGconn* setup = PQconnectdb(dsn.c_str());
  pg_exec(setup,
          "CREATE TABLE orders (id serial PRIMARY KEY, customer text NOT NULL, qty int NOT NULL);"
          "INSERT INTO orders (customer, qty) SELECT 'customer ' || i, i % 7 "
          "FROM generate_series(1, 100) AS i");
  PQfinish(setup);
  auto sys = check(prowl::PostgresSystem::open(
      "db", {.dsn = dsn, .mode = prowl::PostgresMode::kSavepoint, .tables = {"orders"}}));
  check(sys->begin());
  constexpr int kRounds = 1000;
  Samples pushes, rollbacks;
  for (int i = 0; i < kRounds; ++i) {
    pushes.time([&] { check(sys->push()); });
    pg_exec(sys->connection(), "INSERT INTO orders (customer, qty) VALUES ('x', 1)");
    rollbacks.time([&] { check(sys->rollback(0)); });
  }
  check(sys->end());
  std::printf("BENCH name=pg_savepoint_push_rollback ms_per_push=%.3f ms_per_rollback=%.3f\n",
              pushes.median(), rollbacks.median());
  PGconn* c = PQconnectdb(dsn.c_str());
  pg_exec(c, "DROP TABLE orders");
  PQfinish(c);
}

// Three counters of 0..3 in a table: inc_i raises counter i, reset_i sets it to 0. 64 states,
// 288 transitions; each state enables 3 to 6 actions.
void bench_pg_savepoint_bfs(const std::string& dsn) {
  PGconn* setup = PQconnectdb(dsn.c_str());
  pg_exec(setup,
          "CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL);"
          "INSERT INTO counters VALUES (0, 0), (1, 0), (2, 0)");
  PQfinish(setup);
  prowl::Model model("counters");
  model.set_world([dsn]() -> prowl::Result<std::unique_ptr<prowl::World>> {
    auto sys = prowl::PostgresSystem::open(
        "db", {.dsn = dsn, .mode = prowl::PostgresMode::kSavepoint, .tables = {"counters"}});
    if (!sys) return sys.status();
    auto world = std::make_unique<prowl::World>();
    world->add(std::move(*sys));
    return world;
  });
  auto conn = [](const prowl::World& w) {
    return static_cast<const prowl::PostgresSystem&>(w.system(0)).connection();
  };
  auto counter = [conn](const prowl::World& w, int i) {
    PGresult* r = PQexec(conn(w), fmt::format("SELECT n FROM counters WHERE id = {}", i).c_str());
    const int n = PQntuples(r) == 1 ? std::atoi(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return n;
  };
  for (int i = 0; i < 3; ++i) {
    model.action(fmt::format("inc_{}", i))
        .when([=](const prowl::World& w, const prowl::Context&) { return counter(w, i) < 3; })
        .run([=](prowl::Step& s) {
          pg_exec(conn(s.world), fmt::format("UPDATE counters SET n = n + 1 WHERE id = {}", i));
          return prowl::Outcome::ok();
        });
    model.action(fmt::format("reset_{}", i))
        .when([=](const prowl::World& w, const prowl::Context&) { return counter(w, i) > 0; })
        .run([=](prowl::Step& s) {
          pg_exec(conn(s.world), fmt::format("UPDATE counters SET n = 0 WHERE id = {}", i));
          return prowl::Outcome::ok();
        });
  }
  prowl::Bfs bfs;
  const auto start = Clock::now();
  auto report = check(prowl::explore(model, bfs));
  const double ms = ms_since(start);
  const auto& st = report.stats;
  std::printf(
      "BENCH name=pg_savepoint_bfs states=%ju transitions=%ju replayed=%ju restores=%ju "
      "replayed_per_transition=%.3f ms_per_transition=%.3f\n",
      static_cast<std::uintmax_t>(st.states), static_cast<std::uintmax_t>(st.transitions),
      static_cast<std::uintmax_t>(st.replayed_actions), static_cast<std::uintmax_t>(st.restores),
      st.transitions ? static_cast<double>(st.replayed_actions) / st.transitions : 0.0,
      st.transitions ? ms / st.transitions : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dsn;
  if (const char* env = std::getenv("PROWL_TEST_PG_DSN")) dsn = env;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dsn" && i + 1 < argc) {
      dsn = argv[++i];
    } else if (arg.rfind("--dsn=", 0) == 0) {
      dsn = arg.substr(6);
    } else {
      std::fprintf(stderr, "usage: systems_bench [--dsn DSN]\n");
      return prowl::kExitUsage;
    }
  }
  if (dsn.empty()) {
    std::fprintf(stderr,
                 "systems_bench: no PostgreSQL server: pass --dsn DSN or set PROWL_TEST_PG_DSN "
                 "(scripts/pg-server.sh start DIR starts one and prints its DSN)\n");
    return prowl::kExitEnvironment;
  }
  bench_sqlite();
  BenchDatabase db(dsn);
  bench_pg_snapshot(db.dsn());
  bench_pg_savepoint(db.dsn());
  bench_pg_savepoint_bfs(db.dsn());
  return prowl::kExitOk;
}
