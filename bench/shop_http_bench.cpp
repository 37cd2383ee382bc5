// shop_http_bench: how fast prowl explores the demo's shop service over real HTTP, one line per
// configuration:
//   BENCH name=shop_http_sqlite depth=D workers=W states=S transitions=T seconds=X
//   transitions_per_s=R
//         venomqa_transitions_per_s=760 ratio=R/760 replayed_per_transition=P
//         restores_per_transition=Q findings=F
//         prowl_cpu_s=C prowl_sys_s=K service_cpu_s=C service_sys_s=K
// C is CPU time (user + system) during the run and K its system part, for prowl's process and for
// the service (reaped by the end of the run, so counted in RUSAGE_CHILDREN): where the time goes.
// W is the number of workers (--workers, default 1 and then 2 for SQLite): with W > 1 each worker
// runs its own copy of the service on its own copy of the database file (Options::workers).
// The shop_api service runs as a child process on a loopback port with its SQLite file (or, with
// --dsn / PROWL_TEST_PG_DSN, also its PostgreSQL database) restored by snapshots between branches;
// BFS explores examples/shop_api/shop.yaml (shop-postgres.yaml) to --depth D (default 10). The
// time is that of the whole run: starting the service, every request, restore and SQL check.
// VenomQA's figure (about 760 transitions/s on a comparable demo over loopback) is the reference
// the project compares with; the goal is at least 5x.
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "prowl/core/exit_code.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/modelfile/http_model.hpp"
#include "prowl/strategy/bfs.hpp"

namespace {

namespace fs = std::filesystem;
constexpr double kVenomQa = 760;

// User and system CPU seconds of this process (RUSAGE_SELF) or of its reaped children.
struct Cpu {
  double user = 0;
  double sys = 0;
};
Cpu cpu_seconds(int who) {
  rusage u{};
  ::getrusage(who, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return {sec(u.ru_utime), sec(u.ru_stime)};
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "shop_http_bench: %s\n", message.c_str());
  std::exit(prowl::kExitEnvironment);
}

void run(const char* name, const fs::path& model_file, int depth, unsigned workers) {
  auto model = prowl::modelfile::load_model_file(model_file.string());
  if (!model) fail(model.status().message());
  prowl::Bfs bfs;
  prowl::Options options;
  options.max_depth = static_cast<std::uint32_t>(depth);
  options.confirm = false;  // the exploration's rate, not the findings' replays
  options.workers = workers;
  const Cpu self_before = cpu_seconds(RUSAGE_SELF);
  const Cpu service_before = cpu_seconds(RUSAGE_CHILDREN);
  const auto start = std::chrono::steady_clock::now();
  auto r = prowl::explore(**model, bfs, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The service has been stopped and reaped by the end of the run: its CPU time is in
  // RUSAGE_CHILDREN.
  const Cpu self_after = cpu_seconds(RUSAGE_SELF);
  const Cpu service_after = cpu_seconds(RUSAGE_CHILDREN);
  const double prowl_sys_s = self_after.sys - self_before.sys;
  const double prowl_cpu_s = self_after.user - self_before.user + prowl_sys_s;
  const double service_sys_s = service_after.sys - service_before.sys;
  const double service_cpu_s = service_after.user - service_before.user + service_sys_s;
  if (!r) fail(r.status().message());
  for (const std::string& w : r->warnings) {
    if (w.find("workers") != std::string::npos)
      std::fprintf(stderr, "shop_http_bench: %s\n", w.c_str());
  }
  const double rate = static_cast<double>(r->stats.transitions) / seconds;
  fmt::print(
      "BENCH name={} depth={} workers={} states={} transitions={} seconds={:.3f} "
      "transitions_per_s={:.0f} "
      "venomqa_transitions_per_s={:.0f} ratio={:.2f} replayed_per_transition={:.2f} "
      "restores_per_transition={:.2f} "
      "findings={} prowl_cpu_s={:.3f} prowl_sys_s={:.3f} service_cpu_s={:.3f} "
      "service_sys_s={:.3f}\n",
      name, depth, workers, r->stats.states, r->stats.transitions, seconds, rate, kVenomQa,
      rate / kVenomQa,
      static_cast<double>(r->stats.replayed_actions) /
          static_cast<double>(std::max<std::uint64_t>(1, r->stats.transitions)),
      static_cast<double>(r->stats.restores) /
          static_cast<double>(std::max<std::uint64_t>(1, r->stats.transitions)),
      r->findings.size(), prowl_cpu_s, prowl_sys_s, service_cpu_s, service_sys_s);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int depth = 10;
  std::vector<unsigned> workers;
  std::string dsn = std::getenv("PROWL_TEST_PG_DSN") ? std::getenv("PROWL_TEST_PG_DSN") : "";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--depth" && i + 1 < argc) {
      depth = std::atoi(argv[++i]);
    } else if (arg == "--dsn" && i + 1 < argc) {
      dsn = argv[++i];
    } else if (arg == "--workers" && i + 1 < argc) {
      const int w = std::atoi(argv[++i]);
      if (w < 1) {
        std::fprintf(stderr, "shop_http_bench: --workers must be at least 1\n");
        return prowl::kExitUsage;
      }
      workers.push_back(static_cast<unsigned>(w));
    } else {
      std::fprintf(stderr, "usage: shop_http_bench [--depth D] [--workers W]... [--dsn DSN]\n");
      return prowl::kExitUsage;
    }
  }
  if (depth < 1) {
    std::fprintf(stderr, "shop_http_bench: --depth must be at least 1\n");
    return prowl::kExitUsage;
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("prowl-shop-bench-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("SHOP_API", SHOP_API_BINARY, 1);
  ::setenv("SHOP_DB", (dir / "shop.db").c_str(), 1);
  if (workers.empty()) workers = {1, 2};
  for (unsigned w : workers)
    run("shop_http_sqlite", fs::path(SHOP_API_DIR) / "shop.yaml", depth, w);
  fs::remove_all(dir);
  if (dsn.empty()) {
    std::fprintf(stderr,
                 "shop_http_bench: no PostgreSQL server (--dsn or PROWL_TEST_PG_DSN): the "
                 "shop_http_postgres line is skipped\n");
    return prowl::kExitOk;
  }
  // A database of its own on the server, dropped afterwards.
  const std::string db = fmt::format("prowl_shop_bench_{}", ::getpid());
  PGconn* admin = PQconnectdb(dsn.c_str());
  if (PQstatus(admin) != CONNECTION_OK) fail(fmt::format("cannot connect to {}", dsn));
  PQclear(PQexec(admin, ("CREATE DATABASE " + db).c_str()));
  ::setenv("SHOP_PG_DSN", (dsn + " dbname=" + db).c_str(), 1);
  // One worker: a PostgreSQL database is not portable between copies of the service.
  run("shop_http_postgres", fs::path(SHOP_API_DIR) / "shop-postgres.yaml", depth, 1);
  PQclear(PQexec(admin, ("DROP DATABASE " + db + " WITH (FORCE)").c_str()));
  PQfinish(admin);
  return prowl::kExitOk;
}
