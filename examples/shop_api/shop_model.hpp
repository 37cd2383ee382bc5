// The shop scenario as an in-process prowl model: the shop's code runs inside prowl's process on
// prowl's PostgreSQL connection, in one transaction that prowl branches with savepoints
// (PostgresSystem, savepoint mode). Same actions, same invariants as the HTTP models in
// examples/shop_api/*.yaml, so all three find the same bugs with the same shortest paths.
//
// Actions: create_order (one widget; once per path; binds order_id), then pay, cancel, ship and
// refund of that order. A 409 answer is a rejected step (the shop refused as specified); any
// other non-2xx answer is an action error. Invariants: the shop's three SQL checks
// (shop::invariant_checks()), each critical, failing with the rows the query returns.
#pragma once

#include <string>

#include "prowl/explore/model.hpp"

namespace shop {

// REQUIRES: `dsn` names a database prowl may use; its shop tables are created (and seeded) when
// missing before the run starts, and left as they were when it ends.
prowl::Model make_savepoint_model(std::string dsn);

}  // namespace shop
