#include "refund.hpp"

#include <string>

namespace examples {

int RefundShop::create_order() {
  if (orders >= kSlots || customer < kPrice) return -1;
  const int slot = orders++;
  status[slot] = kPaid;
  customer -= kPrice;
  merchant += kPrice;
  return slot;
}

bool RefundShop::refund(int slot) {
  if (status[slot] == kCancelled) return false;  // the bug: a refunded order is not refused
  status[slot] = kRefunded;
  refunded[slot] += kPrice;
  customer += kPrice;
  merchant -= kPrice;
  return true;
}

bool RefundShop::cancel(int slot) {
  if (status[slot] != kPaid) return false;
  status[slot] = kCancelled;
  refunded[slot] += kPrice;
  customer += kPrice;
  merchant -= kPrice;
  return true;
}

prowl::ObjectModel<RefundShop> make_refund_model() {
  prowl::ObjectModel<RefundShop> model("refund", RefundShop{}, [](const RefundShop& s) {
    static const char* names[] = {"none", "paid", "refunded", "cancelled"};
    std::string out =
        "customer=" + std::to_string(s.customer) + " merchant=" + std::to_string(s.merchant);
    for (int i = 0; i < s.orders; ++i) {
      out += " order" + std::to_string(i) + "=" + names[s.status[i]] + "(refunded " +
             std::to_string(s.refunded[i]) + ")";
    }
    return out;
  });
  model.state_key("order_id");

  model.action("create_order")
      .describe("check out a new order; the customer pays at once")
      .when([](const RefundShop& s) { return s.orders < RefundShop::kSlots; })
      .run([](RefundShop& s, prowl::Context& ctx) -> prowl::Outcome {
        const int slot = s.create_order();
        if (slot < 0) return prowl::Outcome::rejected("shop full or customer cannot pay");
        ctx.set("order_id", slot);
        return prowl::Outcome::ok("order " + std::to_string(slot));
      });
  model.action("refund")
      .describe("refund the last created order")
      .requires_keys("order_id")
      .max_per_path(3)  // the bug makes refunds unbounded; three per path keeps the space finite
      .after("create_order")
      .run([](RefundShop& s, prowl::Context& ctx) -> prowl::Outcome {
        const int slot = ctx.get<int>("order_id");
        if (!s.refund(slot)) return prowl::Outcome::rejected("order is cancelled");
        return prowl::Outcome::ok("order " + std::to_string(slot));
      });
  model.action("cancel")
      .describe("cancel the last created order")
      .requires_keys("order_id")
      .after("create_order")
      .run([](RefundShop& s, prowl::Context& ctx) -> prowl::Outcome {
        const int slot = ctx.get<int>("order_id");
        if (!s.cancel(slot)) return prowl::Outcome::rejected("only paid orders can be cancelled");
        return prowl::Outcome::ok("order " + std::to_string(slot));
      });

  model.invariant("refund_at_most_once")
      .severity(prowl::Severity::kCritical)
      .describe("no order gives back more money than it was paid")
      .check([](const RefundShop& s) -> prowl::Check {
        for (int i = 0; i < s.orders; ++i) {
          if (s.refunded[i] > RefundShop::kPrice) {
            return prowl::Check::fail("order " + std::to_string(i) + " was refunded " +
                                      std::to_string(s.refunded[i]) + " for a price of " +
                                      std::to_string(RefundShop::kPrice));
          }
        }
        return prowl::Check::pass();
      });
  model.invariant("merchant_balance_non_negative")
      .severity(prowl::Severity::kHigh)
      .check([](const RefundShop& s) -> prowl::Check {
        if (s.merchant < 0) {
          return prowl::Check::fail("merchant balance is " + std::to_string(s.merchant));
        }
        return prowl::Check::pass();
      });
  model.invariant("money_conserved")
      .severity(prowl::Severity::kCritical)
      .check([](const RefundShop& s) {
        return s.customer + s.merchant == RefundShop::kStartingBalance;
      });
  return model;
}

}  // namespace examples
