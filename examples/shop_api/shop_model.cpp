#include "shop_api/shop_model.hpp"

#include <memory>
#include <utility>

#include <fmt/format.h>

#include "prowl/systems/postgres.hpp"
#include "shop_api/postgres_db.hpp"
#include "shop_api/schema.hpp"
#include "shop_api/shop.hpp"

namespace shop {

namespace {

// Holds the Shop that works on prowl's connection, from begin() to end() (so that its prepared
// statements are given back while the connection is open). Keeps no state of its own (the state
// is in the database), so every restore operation is a no-op and it never limits the restore
// mode.
class ShopHandle final : public prowl::System {
 public:
  explicit ShopHandle(pg_conn* conn) : System("shop"), conn_(conn) {}
  prowl::Status begin() override {
    db_ = PostgresDb::borrow(conn_);
    shop_ = std::make_unique<Shop>(*db_);
    return prowl::Status::ok();
  }
  prowl::Status end() override {
    shop_.reset();
    db_.reset();
    return prowl::Status::ok();
  }
  prowl::Capabilities capabilities() const override { return {true, true, true, false}; }
  prowl::Status observe(prowl::Hasher&) const override { return prowl::Status::ok(); }
  prowl::Result<prowl::SnapshotHandle> save() override { return prowl::SnapshotHandle{0}; }
  prowl::Status restore(prowl::SnapshotHandle) override { return prowl::Status::ok(); }
  void release(prowl::SnapshotHandle) override {}
  prowl::Status push() override { return prowl::Status::ok(); }
  prowl::Status rollback(std::size_t) override { return prowl::Status::ok(); }
  prowl::Status reset() override { return prowl::Status::ok(); }
  Shop& shop() { return *shop_; }

 private:
  pg_conn* conn_;
  std::unique_ptr<PostgresDb> db_;
  std::unique_ptr<Shop> shop_;
};

Shop& shop_of(prowl::World& world) { return static_cast<ShopHandle&>(world.system(1)).shop(); }
const prowl::PostgresSystem& database_of(const prowl::World& world) {
  return static_cast<const prowl::PostgresSystem&>(world.system(0));
}

// A reply as a step outcome: 2xx ok, 409 rejected as specified, anything else an error.
prowl::Outcome outcome_of(const char* call, const Reply& reply) {
  std::string detail = fmt::format("{} -> {} {}", call, reply.status, reply.body.dump());
  if (reply.status / 100 == 2) return prowl::Outcome::ok(std::move(detail));
  if (reply.status == 409) return prowl::Outcome::rejected(std::move(detail));
  return prowl::Outcome::error(std::move(detail));
}

prowl::Result<std::unique_ptr<prowl::World>> make_world(const std::string& dsn) {
  {
    // The tables must exist before the PostgresSystem resolves them: create them, committed.
    auto setup = PostgresDb::connect(dsn);
    if (!setup) {
      return prowl::Status::environment(fmt::format("shop: {}", setup.status().message()));
    }
    Shop setup_shop(**setup);
    if (Status st = setup_shop.init(); !st) {
      return prowl::Status::environment(fmt::format("shop: creating the schema: {}", st.message()));
    }
  }
  prowl::PostgresOptions options;
  options.dsn = dsn;
  options.mode = prowl::PostgresMode::kSavepoint;
  options.tables = {"products", "orders", "ledger"};
  auto db = prowl::PostgresSystem::open("postgres", std::move(options));
  if (!db) return db.status();
  auto world = std::make_unique<prowl::World>();
  pg_conn* conn = (*db)->connection();
  world->add(std::move(*db));
  world->emplace<ShopHandle>(conn);
  return world;
}

}  // namespace

prowl::Model make_savepoint_model(std::string dsn) {
  prowl::Model model("shop_savepoint");
  model.set_world([dsn = std::move(dsn)] { return make_world(dsn); });
  model.action("create_order").max_per_path(1).run([](prowl::Step& s) {
    Reply r = shop_of(s.world).create_order(1, 1);
    if (r.status == 201) s.context.set("order_id", r.body.at("id").get<std::int64_t>());
    return outcome_of("create_order(product 1, qty 1)", r);
  });
  struct OrderCall {
    const char* name;
    Reply (Shop::*call)(std::int64_t);
  };
  for (const OrderCall& c : {OrderCall{"pay", &Shop::pay}, OrderCall{"cancel", &Shop::cancel},
                             OrderCall{"ship", &Shop::ship}, OrderCall{"refund", &Shop::refund}}) {
    model.action(c.name).requires_keys("order_id").run([c](prowl::Step& s) {
      const auto id = s.context.get<std::int64_t>("order_id");
      Reply r = (shop_of(s.world).*c.call)(id);
      return outcome_of(fmt::format("{}(order {})", c.name, id).c_str(), r);
    });
  }
  for (const InvariantCheck& check : invariant_checks()) {
    model.invariant(std::string(check.name))
        .severity(prowl::Severity::kCritical)
        .describe(std::string(check.description))
        .check([sql = std::string(check.sql)](const prowl::World& w, const prowl::Context&) {
          auto rows = database_of(w).query(sql);
          if (!rows) return prowl::Check::fail(rows.status().message());
          if (rows->rows.empty()) return prowl::Check::pass();
          std::string text;
          for (const auto& row : rows->rows) {
            text += text.empty() ? "" : "; ";
            for (std::size_t i = 0; i < row.size(); ++i) {
              text +=
                  fmt::format("{}{}={}", i ? " " : "", rows->columns[i], row[i] ? *row[i] : "NULL");
            }
          }
          return prowl::Check::fail(fmt::format("{} row(s): {}", rows->rows.size(), text));
        });
  }
  return model;
}

}  // namespace shop
