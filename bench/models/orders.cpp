// orders.pml as a prowl model. Every `:: d_step { guard -> effect; INV }` of SLOT(i) and
// CREATE(i) is one action with that guard and effect; INV is the invariant money_conserved,
// checked after every transition as SPIN checks it inside every d_step.
#include <string>
#include <type_traits>

#include "models/models.hpp"

namespace bench {

static_assert(std::has_unique_object_representations_v<OrdersState>);
static_assert(sizeof(OrdersState) == 16);

namespace {

std::string describe_orders(const OrdersState& s, int nord) {
  std::string out = "cbal=" + std::to_string(s.cbal) + " mbal=" + std::to_string(s.mbal) +
                    " nref=" + std::to_string(s.nref);
  for (int i = 0; i < nord; ++i) {
    out += " [" + std::to_string(s.st[i]) + "," + std::to_string(s.amt[i]) + "]";
  }
  return out;
}

}  // namespace

prowl::ObjectModel<OrdersState> make_orders_model(const OrdersParams& params) {
  const int nord = params.nord;
  const int nprice = params.nprice;
  const int tot = params.tot;
  const int maxref = params.maxref;
  PROWL_CHECK(nord >= 1 && nord <= 6 && nprice >= 1 && nprice <= 4 && tot >= 0 && tot <= 127 &&
                  maxref >= 0 && maxref <= 255,
              "orders: need 1 <= NORD <= 6, 1 <= NPRICE <= 4, 0 <= TOT <= 127, 0 <= MAXREF <= 255");
  OrdersState initial;
  initial.cbal = static_cast<std::uint8_t>(tot);
  prowl::ObjectModel<OrdersState> model(
      "orders", initial, {}, [nord](const OrdersState& s) { return describe_orders(s, nord); });
  const auto max_refunds = static_cast<std::uint8_t>(maxref);
  for (int i = 0; i < nord; ++i) {
    const std::string slot = std::to_string(i);
    for (int p = 1; p <= nprice; ++p) {
      model.action("create_" + slot + "_" + std::to_string(p))
          .when([i](const OrdersState& s) { return s.st[i] == kEmpty; })
          .run([i, p](OrdersState& s) {
            s.st[i] = kCreated;
            s.amt[i] = static_cast<std::uint8_t>(p);
          });
    }
    model.action("pay_" + slot)
        .when([i](const OrdersState& s) { return s.st[i] == kCreated && s.cbal >= s.amt[i]; })
        .run([i](OrdersState& s) {
          s.cbal = static_cast<std::uint8_t>(s.cbal - s.amt[i]);
          s.mbal = static_cast<std::uint8_t>(s.mbal + s.amt[i]);
          s.st[i] = kPaid;
        });
    model.action("ship_" + slot)
        .when([i](const OrdersState& s) { return s.st[i] == kPaid; })
        .run([i](OrdersState& s) { s.st[i] = kShipped; });
    model.action("refund_" + slot)
        .when([i, max_refunds](const OrdersState& s) {
          return (s.st[i] == kPaid || s.st[i] == kShipped) && s.nref < max_refunds;
        })
        .run([i](OrdersState& s) {
          s.mbal = static_cast<std::uint8_t>(s.mbal - s.amt[i]);
          s.cbal = static_cast<std::uint8_t>(s.cbal + s.amt[i]);
          ++s.nref;
          s.st[i] = kRefunded;
        });
    model.action("cancel_" + slot)
        .when([i](const OrdersState& s) { return s.st[i] == kCreated; })
        .run([i](OrdersState& s) { s.st[i] = kCancelled; });
    model.action("archive_" + slot)
        .when([i](const OrdersState& s) {
          return s.st[i] == kShipped || s.st[i] == kRefunded || s.st[i] == kCancelled;
        })
        .run([i](OrdersState& s) {
          s.st[i] = kEmpty;
          s.amt[i] = 0;
        });
  }
  model.invariant("money_conserved").check([nord, tot, max_refunds](const OrdersState& s) {
    int outstanding = 0;
    for (int i = 0; i < nord; ++i) {
      if (s.st[i] == kPaid || s.st[i] == kShipped) outstanding += s.amt[i];
    }
    return s.cbal + s.mbal == tot && s.mbal >= outstanding && s.nref <= max_refunds;
  });
  return model;
}

}  // namespace bench
