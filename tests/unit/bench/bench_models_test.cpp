// The prowl versions of the SPIN reference models (bench/models) explore exactly the state spaces
// SPIN explores. The expected figures come from SPIN 6.5.2 itself, run once by hand on the same
// small parameters:
//
//   spin -D<params> -a <model>.pml && gcc -O2 -DSAFETY -DBFS [-DNOREDUCE for philo] -o pan pan.c
//   ./pan -m100000 -w20
//
// and are written here as SPIN prints them. SPIN's `transitions (= stored+matched)` counts the
// initial state, which is stored without a transition, so prowl's transition count is SPIN's
// minus 1 (bench/spin_compare.cpp explains the offset). An independent Python BFS over the
// models' header semantics gave the same numbers.
//
// The models live in the prowl_bench_models library (bench/models); without it
// (PROWL_BUILD_BENCH off) this file compiles to nothing.
#ifdef PROWL_HAVE_BENCH_MODELS

#include "models/models.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/bfs.hpp"

namespace {

struct Counts {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  friend bool operator==(const Counts&, const Counts&) = default;
};

void PrintTo(const Counts& c, std::ostream* os) {
  *os << "{states " << c.states << ", transitions " << c.transitions << "}";
}

// SPIN's figures turned into prowl's: the same states, one transition fewer.
Counts from_spin(std::uint64_t stored, std::uint64_t spin_transitions) {
  return {stored, spin_transitions - 1};
}

// Explores the whole model breadth-first; the run must end exhausted and without findings.
Counts explore_all(const prowl::Model& model) {
  prowl::Bfs bfs;
  auto report = prowl::explore(model, bfs);
  EXPECT_TRUE(report.is_ok()) << report.status().message();
  if (!report) return {};
  EXPECT_EQ(report->termination, prowl::Termination::kExhausted);
  EXPECT_TRUE(report->findings.empty()) << report->findings.front().message;
  return {report->stats.states, report->stats.transitions};
}

TEST(BenchCounters, TwoCountersOfThreeValuesHaveNineStatesAndTwentyFourTransitions) {
  // 3^2 states; per counter 1 + 2 + 1 enabled actions over its 3 values, times 3 for the other.
  EXPECT_EQ(explore_all(bench::make_counters_model({2, 3})), from_spin(9, 25));
}

TEST(BenchCounters, MatchesTheClosedFormOfTheModelHeader) {
  // N^K states and N^K * K * (2N-2) / N transitions: 4^3 = 64 and 64 * 3 * 6 / 4 = 288.
  EXPECT_EQ(explore_all(bench::make_counters_model({3, 4})), (Counts{64, 288}));
}

TEST(BenchOrders, OneSlotMatchesSpin) {
  // spin -DNORD=1 -DNPRICE=2 -DTOT=2 -DMAXREF=1: 45 states, stored; 64 transitions.
  EXPECT_EQ(explore_all(bench::make_orders_model({1, 2, 2, 1})), from_spin(45, 64));
}

TEST(BenchOrders, TwoSlotsMatchSpin) {
  // spin -DNORD=2 -DNPRICE=2 -DTOT=3 -DMAXREF=2: 899 states, stored; 2553 transitions.
  EXPECT_EQ(explore_all(bench::make_orders_model({2, 2, 3, 2})), from_spin(899, 2553));
  // spin -DNORD=2 -DNPRICE=3 -DTOT=4 -DMAXREF=1: 1392 states, stored; 3987 transitions.
  EXPECT_EQ(explore_all(bench::make_orders_model({2, 3, 4, 1})), from_spin(1392, 3987));
}

TEST(BenchPhilo, ThreePhilosophersMatchSpin) {
  // spin -DNP=3, -DNOREDUCE: 24 states, stored; 47 transitions.
  EXPECT_EQ(explore_all(bench::make_philo_model({3})), from_spin(24, 47));
}

TEST(BenchPhilo, FourAndFivePhilosophersMatchSpin) {
  // spin -DNP=4: 79 states, 209 transitions; -DNP=5: 261 states, 877 transitions.
  EXPECT_EQ(explore_all(bench::make_philo_model({4})), from_spin(79, 209));
  EXPECT_EQ(explore_all(bench::make_philo_model({5})), from_spin(261, 877));
}

TEST(BenchModels, WrittenWithParametersTheyMatchSpinToo) {
  EXPECT_EQ(explore_all(bench::make_counters_model({3, 4, true})), (Counts{64, 288}));
  EXPECT_EQ(explore_all(bench::make_philo_model({4, true})), from_spin(79, 209));
  EXPECT_EQ(explore_all(bench::make_philo_model({5, true})), from_spin(261, 877));
  EXPECT_EQ(bench::make_philo_model({3, true}).actions()[2].name, "take_first(p=2)");
}

// Whether the model's only invariant holds in `state`.
template <class T>
bool invariant_holds(const prowl::ObjectModel<T>& model, const T& state) {
  auto world = model.make_world();
  EXPECT_TRUE(world.is_ok());
  if (!world) return false;
  prowl::ObjectModel<T>::object(**world) = state;
  EXPECT_EQ(model.invariants().size(), 1u);
  return model.invariants().at(0).check(**world, (*world)->context()).ok;
}

TEST(BenchModels, InvariantsFailInTheStatesSpinAssertsAgainst) {
  auto counters = bench::make_counters_model({2, 3});
  EXPECT_TRUE(invariant_holds(counters, bench::CountersState{{2, 2}}));
  EXPECT_FALSE(invariant_holds(counters, bench::CountersState{{0, 3}}));

  auto orders = bench::make_orders_model({2, 3, 4, 1});
  bench::OrdersState paid;  // order 0 paid 3: the merchant holds it
  paid.cbal = 1;
  paid.mbal = 3;
  paid.st[0] = bench::kPaid;
  paid.amt[0] = 3;
  EXPECT_TRUE(invariant_holds(orders, paid));
  bench::OrdersState lost = paid;  // money vanished
  lost.mbal = 2;
  EXPECT_FALSE(invariant_holds(orders, lost));
  bench::OrdersState short_merchant = paid;  // conserved, but the merchant holds less than owed
  short_merchant.cbal = 2;
  short_merchant.mbal = 2;
  EXPECT_FALSE(invariant_holds(orders, short_merchant));
  bench::OrdersState too_many_refunds = paid;
  too_many_refunds.nref = 2;
  EXPECT_FALSE(invariant_holds(orders, too_many_refunds));

  auto philo = bench::make_philo_model({4});
  bench::PhiloState apart;  // philosophers 0 and 2 eat
  apart.pc[0] = apart.pc[2] = 2;
  EXPECT_TRUE(invariant_holds(philo, apart));
  bench::PhiloState wrapped;  // 3 and 0 are neighbours across the wrap
  wrapped.pc[3] = wrapped.pc[0] = 2;
  EXPECT_FALSE(invariant_holds(philo, wrapped));
  bench::PhiloState adjacent;
  adjacent.pc[1] = adjacent.pc[2] = 2;
  EXPECT_FALSE(invariant_holds(philo, adjacent));
}

TEST(BenchModels, RejectParametersOutsideTheirStateStructs) {
  EXPECT_THROW(bench::make_counters_model({9, 10}), prowl::LogicError);
  EXPECT_THROW(bench::make_orders_model({7, 3, 8, 3}), prowl::LogicError);
  EXPECT_THROW(bench::make_philo_model({17}), prowl::LogicError);
}

}  // namespace

#endif  // PROWL_HAVE_BENCH_MODELS
