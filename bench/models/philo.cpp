// philo.pml as a prowl model. The loop body of phil() is four SPIN statements (three d_steps and
// the assignment fork[first] = 0), so four actions per philosopher; the guard of each is its
// control location plus, for the two takes, the fork being free. SPIN asserts, when philosopher p
// starts eating, that neither neighbour eats; the invariant no_neighbours_eating checks that for
// every eating philosopher after every transition, which holds exactly when SPIN's assert does.
#include <string>
#include <type_traits>

#include "models/models.hpp"

namespace bench {

static_assert(std::has_unique_object_representations_v<PhiloState>);

namespace {

// The same four actions per philosopher, each one action with a parameter p, which the code takes
// as an argument.
void add_philo_params(prowl::ObjectModel<PhiloState>& model, int np) {
  // As in philo.pml: the last philosopher takes fork 0 first, everyone else fork p.
  const auto first = [np](int p) { return p == np - 1 ? 0 : p; };
  const auto second = [np](int p) { return p == np - 1 ? np - 1 : p + 1; };
  model.action("take_first")
      .param("p", prowl::range(0, np - 1))
      .when([=](const PhiloState& s, int p) { return s.pc[p] == 0 && s.fork[first(p)] == 0; })
      .run([=](PhiloState& s, int p) {
        s.fork[first(p)] = static_cast<std::uint8_t>(p + 1);
        s.pc[p] = 1;
      });
  model.action("take_second")
      .param("p", prowl::range(0, np - 1))
      .when([=](const PhiloState& s, int p) { return s.pc[p] == 1 && s.fork[second(p)] == 0; })
      .run([=](PhiloState& s, int p) {
        s.fork[second(p)] = static_cast<std::uint8_t>(p + 1);
        s.pc[p] = 2;
      });
  model.action("put_second")
      .param("p", prowl::range(0, np - 1))
      .when([](const PhiloState& s, int p) { return s.pc[p] == 2; })
      .run([=](PhiloState& s, int p) {
        s.fork[second(p)] = 0;
        s.pc[p] = 3;
      });
  model.action("put_first")
      .param("p", prowl::range(0, np - 1))
      .when([](const PhiloState& s, int p) { return s.pc[p] == 3; })
      .run([=](PhiloState& s, int p) {
        s.fork[first(p)] = 0;
        s.pc[p] = 0;
      });
}

// The same, the code reading p from the step's Args by position.
void add_philo_args(prowl::ObjectModel<PhiloState>& model, int np) {
  const auto first = [np](int p) { return p == np - 1 ? 0 : p; };
  const auto second = [np](int p) { return p == np - 1 ? np - 1 : p + 1; };
  const auto who = [](const prowl::Args& a) { return a.get<int>(0); };
  model.action("take_first")
      .param("p", prowl::range(0, np - 1))
      .when([=](const PhiloState& s, const prowl::Args& a) {
        return s.pc[who(a)] == 0 && s.fork[first(who(a))] == 0;
      })
      .run([=](PhiloState& s, const prowl::Args& a) {
        s.fork[first(who(a))] = static_cast<std::uint8_t>(who(a) + 1);
        s.pc[who(a)] = 1;
      });
  model.action("take_second")
      .param("p", prowl::range(0, np - 1))
      .when([=](const PhiloState& s, const prowl::Args& a) {
        return s.pc[who(a)] == 1 && s.fork[second(who(a))] == 0;
      })
      .run([=](PhiloState& s, const prowl::Args& a) {
        s.fork[second(who(a))] = static_cast<std::uint8_t>(who(a) + 1);
        s.pc[who(a)] = 2;
      });
  model.action("put_second")
      .param("p", prowl::range(0, np - 1))
      .when([=](const PhiloState& s, const prowl::Args& a) { return s.pc[who(a)] == 2; })
      .run([=](PhiloState& s, const prowl::Args& a) {
        s.fork[second(who(a))] = 0;
        s.pc[who(a)] = 3;
      });
  model.action("put_first")
      .param("p", prowl::range(0, np - 1))
      .when([=](const PhiloState& s, const prowl::Args& a) { return s.pc[who(a)] == 3; })
      .run([=](PhiloState& s, const prowl::Args& a) {
        s.fork[first(who(a))] = 0;
        s.pc[who(a)] = 0;
      });
}

// Philosopher p's action of this kind (0 take_first, 1 take_second, 2 put_second, 3 put_first).
void add_philo_action(prowl::ObjectModel<PhiloState>& model, int np, int p, int kind) {
  // As in philo.pml: the last philosopher takes fork 0 first, everyone else fork p.
  const int first = p == np - 1 ? 0 : p;
  const int second = p == np - 1 ? np - 1 : p + 1;
  const auto me = static_cast<std::uint8_t>(p + 1);
  const std::string id = std::to_string(p);
  switch (kind) {
    case 0:
      model.action("take_first_" + id)
          .when([p, first](const PhiloState& s) { return s.pc[p] == 0 && s.fork[first] == 0; })
          .run([p, first, me](PhiloState& s) {
            s.fork[first] = me;
            s.pc[p] = 1;
          });
      break;
    case 1:
      model.action("take_second_" + id)
          .when([p, second](const PhiloState& s) { return s.pc[p] == 1 && s.fork[second] == 0; })
          .run([p, second, me](PhiloState& s) {
            s.fork[second] = me;
            s.pc[p] = 2;
          });
      break;
    case 2:
      model.action("put_second_" + id)
          .when([p](const PhiloState& s) { return s.pc[p] == 2; })
          .run([p, second](PhiloState& s) {
            s.fork[second] = 0;
            s.pc[p] = 3;
          });
      break;
    default:
      model.action("put_first_" + id)
          .when([p](const PhiloState& s) { return s.pc[p] == 3; })
          .run([p, first](PhiloState& s) {
            s.fork[first] = 0;
            s.pc[p] = 0;
          });
      break;
  }
}

}  // namespace

prowl::ObjectModel<PhiloState> make_philo_model(const PhiloParams& params) {
  const int np = params.np;
  PROWL_CHECK(np >= 2 && np <= 16, "philo: need 2 <= NP <= 16");
  prowl::ObjectModel<PhiloState> model(
      "philo", PhiloState{}, [np](const PhiloState& s) { return join_values(s.pc.data(), np); });
  if (params.params) add_philo_params(model, np);
  if (params.args) add_philo_args(model, np);
  // Hand-written: philosopher by philosopher, as philo.pml lists them, or with `grouped` kind by
  // kind, the order a parameterised action's combinations have (it changes the order in which
  // BFS adds successors, and so the run's speed).
  const int outer = params.grouped ? 4 : np;
  const int inner = params.grouped ? np : 4;
  for (int i = 0; i < outer && !params.params && !params.args; ++i) {
    for (int j = 0; j < inner; ++j) {
      add_philo_action(model, np, params.grouped ? j : i, params.grouped ? i : j);
    }
  }
  model.invariant("no_neighbours_eating").check([np](const PhiloState& s) {
    // Neighbourhood is symmetric: checking each philosopher against the next covers both sides.
    for (int p = 0; p < np; ++p) {
      if (s.pc[p] == 2 && s.pc[p + 1 == np ? 0 : p + 1] == 2) return false;
    }
    return true;
  });
  return model;
}

}  // namespace bench
