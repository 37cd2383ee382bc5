// The three reference models of the SPIN comparison (bench/spin/*.pml), written as prowl models.
// Each is an ObjectModel over a small trivially copyable struct without padding bytes, so prowl
// fingerprints the struct's bytes. Each SPIN statement (a d_step or a plain assignment) is one
// prowl action with the same guard and effect, and each SPIN assert is a prowl invariant, so both
// tools explore the same transition system and must find the same number of states and
// transitions. Parameters are taken at run time; a builder throws prowl::LogicError (through
// PROWL_CHECK) when they are out of range. The models share nothing: build one per thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "prowl/explore/object_model.hpp"

namespace bench {

// counters.pml: K independent counters in 0..N-1; inc_i if c[i] < N-1, reset_i if c[i] > 0.
struct CountersParams {
  int k = 6;   // 1..8
  int n = 10;  // 1..255
  // inc and reset as two actions with a parameter i in 0..K-1 (the same 2K actions, named
  // inc(i=0), ...), to measure what parameters cost against hand-written actions.
  bool params = false;
};

struct CountersState {
  std::array<std::uint8_t, 8> c{};
};

prowl::ObjectModel<CountersState> make_counters_model(const CountersParams& params);

// orders.pml: NORD order slots, a customer and a merchant account holding TOT in total, refunds
// capped at MAXREF. Per slot i: create_i_p (p = 1..NPRICE), pay_i, ship_i, refund_i, cancel_i,
// archive_i.
struct OrdersParams {
  int nord = 4;    // 1..6
  int nprice = 3;  // 1..4
  int tot = 8;     // 0..127
  int maxref = 3;  // 0..255
};

// The slot statuses of orders.pml.
enum OrderStatus : std::uint8_t {
  kEmpty = 0,
  kCreated = 1,
  kPaid = 2,
  kShipped = 3,
  kRefunded = 4,
  kCancelled = 5,
};

struct OrdersState {
  std::uint8_t cbal = 0;              // customer balance
  std::uint8_t mbal = 0;              // merchant balance
  std::uint8_t nref = 0;              // refunds issued
  std::array<std::uint8_t, 6> st{};   // OrderStatus per slot
  std::array<std::uint8_t, 6> amt{};  // amount per slot, 0 when empty
  // Always 0. It rounds the struct to 16 bytes, two whole words for prowl's hasher (a 15-byte
  // struct takes its byte-at-a-time path), and adds no states.
  std::uint8_t reserved = 0;
};

prowl::ObjectModel<OrdersState> make_orders_model(const OrdersParams& params);

// philo.pml: NP dining philosophers; philosopher p takes the lower-numbered of forks p and
// (p+1)%NP first. Per philosopher: take_first_p, take_second_p, put_second_p, put_first_p.
struct PhiloParams {
  int np = 12;          // 2..16
  bool params = false;  // the four actions with a parameter p in 0..NP-1, as CountersParams's
  // Hand-written, declared kind by kind (all take_first_*, then ...): the order of params's.
  bool grouped = false;
  bool args = false;  // as params, the code reading p from the step's Args instead
};

// SPIN's state vector without eating[]: eating[p] is exactly (pc[p] == 2), set by take_second and
// cleared by put_second, so keeping it would add bytes and no information.
struct PhiloState {
  std::array<std::uint8_t, 16> pc{};    // 0 think, 1 holds first, 2 eating, 3 released second
  std::array<std::uint8_t, 16> fork{};  // 0 free, p+1 when held by philosopher p
};

prowl::ObjectModel<PhiloState> make_philo_model(const PhiloParams& params);

// "v0 v1 ...": the first `count` values, for the models' state descriptions.
std::string join_values(const std::uint8_t* values, int count);

}  // namespace bench
