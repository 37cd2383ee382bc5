// shop_savepoint: explores the shop in-process on PostgreSQL savepoints.
//
//   SHOP_PG_DSN='host=127.0.0.1 port=5432 dbname=shop' shop_savepoint --max-depth 4
//
// Takes every run_main flag (--strategy, --max-depth, --report json:FILE, ...). The database
// named by SHOP_PG_DSN gets the shop's tables when they are missing; prowl's run leaves their
// content as it found it.
#include <cstdlib>
#include <iostream>

#include "prowl/cli/run_main.hpp"
#include "shop_api/shop_model.hpp"

int main(int argc, char** argv) {
  const char* dsn = std::getenv("SHOP_PG_DSN");
  if (dsn == nullptr || *dsn == '\0') {
    std::cerr << "shop_savepoint: set SHOP_PG_DSN to a libpq connection string, e.g.\n"
                 "  SHOP_PG_DSN='host=127.0.0.1 port=5432 dbname=shop' shop_savepoint\n";
    return prowl::kExitUsage;
  }
  prowl::MainSettings settings;
  settings.description =
      "Explores the shop example in-process: its code runs on prowl's PostgreSQL connection, in "
      "one transaction that prowl branches with savepoints.";
  return prowl::run_main(shop::make_savepoint_model(dsn), argc, argv, settings);
}
