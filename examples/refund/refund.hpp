// The refund example: a small shop whose checkout charges the customer at once. Orders can be
// refunded or cancelled. The seeded bug: refund() only refuses cancelled orders, so an order can
// be refunded twice. BFS finds it as create_order -> refund -> refund.
#pragma once

#include <array>
#include <cstdint>

#include "prowl/explore/object_model.hpp"

namespace examples {

struct RefundShop {
  enum Status : std::uint8_t { kNone, kPaid, kRefunded, kCancelled };
  static constexpr int kSlots = 2;
  static constexpr std::int16_t kPrice = 10;
  static constexpr std::int16_t kStartingBalance = 30;

  std::array<std::uint8_t, kSlots> status{};
  std::array<std::int16_t, kSlots> refunded{};  // money returned per order
  std::int16_t customer = kStartingBalance;
  std::int16_t merchant = 0;
  std::uint8_t orders = 0;
  std::uint8_t pad = 0;  // keeps the struct free of padding bytes

  // Returns the new order's slot, or -1 when the shop is full or the customer cannot pay.
  int create_order();
  // Refunds an order. Bug: it only refuses cancelled orders.
  bool refund(int slot);
  // Cancels a paid order, returning the money.
  bool cancel(int slot);
};

prowl::ObjectModel<RefundShop> make_refund_model();

}  // namespace examples
