// ObjectModel<T>: a Model over one in-process C++ object of type T, held in a MemorySystem<T>.
// Actions and invariants are written against T directly:
//
//   prowl::ObjectModel<Shop> model("refund", Shop{});
//   model.action("refund").requires_keys("order").run([](Shop& s, prowl::Context& c) { ... });
//   model.invariant("refunded_once").check([](const Shop& s) { return s.refunds <= 1; });
//
// run() accepts (T&), (T&, Context&) or (T&, Context&, Rng&) and returns void or Outcome.
// when() accepts (const T&) or (const T&, const Context&) returning bool.
// check() accepts (const T&) or (const T&, const Context&) returning bool or Check.
// Each is a function of the object it is given: the explorer may run an action on a copy of the
// state (a byte-image T is run on scratch copies, and on one per thread), so code that reaches
// the world's object some other way sees another state.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "prowl/explore/model.hpp"
#include "prowl/explore/object_builders.hpp"
#include "prowl/world/memory_system.hpp"
#include "prowl/world/replay_system.hpp"

namespace prowl {

template <class T>
class ObjectModel : public Model {
 public:
  using ObserveFn = std::function<void(const T&, Hasher&)>;
  using DescribeFn = std::function<std::string(const T&)>;

  // The object is observed by its bytes, or by the prowl_observe(const T&, Hasher&) that ADL
  // finds; a type with neither (padding, std::string, std::map, pointers) does not compile.
  // `describe` renders a state for reports.
  explicit ObjectModel(std::string name, T initial = T{}, DescribeFn describe = {})
      : Model(std::move(name)) {
    static_assert(DefaultObservable<T>,
                  "ObjectModel<T>: prowl cannot hash this state type: it has padding or members "
                  "that are not plain bytes (std::string, std::map, pointers). Define "
                  "`void prowl_observe(const T&, prowl::Hasher&)` next to T (found by "
                  "argument-dependent lookup), or pass an observe function.");
    install(std::move(initial), {}, std::move(describe));
  }
  // The object is observed by `observe`, which adds everything that makes a state what it is.
  // REQUIRES: `observe` is not empty, unless T could be observed without it.
  ObjectModel(std::string name, T initial, ObserveFn observe, DescribeFn describe = {})
      : Model(std::move(name)) {
    install(std::move(initial), std::move(observe), std::move(describe));
  }

  ObjectActionBuilder<T> action(std::string name) { return {*this, add_action(std::move(name))}; }
  ObjectInvariantBuilder<T> invariant(
      std::string name, std::source_location where = std::source_location::current()) {
    return {*this, add_invariant(std::move(name), where)};
  }

  void* typed_object(World& world) const override { return &object(world); }
  bool typed_guards(ActionId a, std::vector<TypedGuard>& out) const override {
    // A precondition added to the Action directly, not through when(), has no typed copy.
    const std::size_t typed = a < typed_counts_.size() ? typed_counts_[a] : 0;
    if (typed != actions()[a].preconditions.size()) return false;
    auto first = std::lower_bound(typed_guards_.begin(), typed_guards_.end(), a,
                                  [](const ActionGuard& g, ActionId x) { return g.action < x; });
    for (; first != typed_guards_.end() && first->action == a; ++first) out.push_back(first->call);
    return true;
  }
  TypedRun typed_run(ActionId a) const override {
    // Only while the Action's code is still the one run() installed with this copy.
    if (a >= typed_runs_.size() || !typed_runs_[a].call || !typed_runs_[a].installed) return {};
    return *typed_runs_[a].installed == actions()[a].run.target_type() ? typed_runs_[a].call
                                                                       : TypedRun{};
  }
  TypedCheck typed_check(std::size_t i) const override {
    if (i >= typed_checks_.size() || !typed_checks_[i].call || !typed_checks_[i].installed) {
      return {};
    }
    return *typed_checks_[i].installed == invariants()[i].check.target_type()
               ? typed_checks_[i].call
               : TypedCheck{};
  }

  // Used by the builders: the typed copies of when(const T&), run(T&) and check(const T&).
  template <class F>
  void add_typed_guard(std::size_t action, F fn) {
    const auto a = static_cast<ActionId>(action);
    TypedGuard call{[](void* f, const void* obj) -> bool {
                      return (*static_cast<F*>(f))(*static_cast<const T*>(obj));
                    },
                    keep(std::move(fn))};
    auto at = std::upper_bound(typed_guards_.begin(), typed_guards_.end(), a,
                               [](ActionId x, const ActionGuard& g) { return x < g.action; });
    typed_guards_.insert(at, ActionGuard{a, call});
    if (typed_counts_.size() <= action) typed_counts_.resize(action + 1, 0);
    ++typed_counts_[action];
  }
  template <class F>
  void set_typed_run(std::size_t action, F fn) {
    if (typed_runs_.size() <= action) typed_runs_.resize(action + 1);
    typed_runs_[action].call = {
        [](void* f, void* obj) { (*static_cast<F*>(f))(*static_cast<T*>(obj)); },
        keep(std::move(fn))};
    typed_runs_[action].installed = nullptr;
  }
  void clear_typed_run(std::size_t action) {
    if (action < typed_runs_.size()) typed_runs_[action] = {};
  }
  void note_run_installed(std::size_t action, const std::type_info& installed) {
    if (action < typed_runs_.size()) typed_runs_[action].installed = &installed;
  }
  template <class F>
  void set_typed_check(std::size_t invariant, F fn) {
    if (typed_checks_.size() <= invariant) typed_checks_.resize(invariant + 1);
    typed_checks_[invariant].call = {[](void* f, const void* obj) -> bool {
                                       return (*static_cast<F*>(f))(*static_cast<const T*>(obj));
                                     },
                                     keep(std::move(fn))};
    typed_checks_[invariant].installed = nullptr;
  }
  void clear_typed_check(std::size_t invariant) {
    if (invariant < typed_checks_.size()) typed_checks_[invariant] = {};
  }
  void note_check_installed(std::size_t invariant, const std::type_info& installed) {
    if (invariant < typed_checks_.size()) typed_checks_[invariant].installed = &installed;
  }

  // Used by the builders: actions with parameters (prowl/explore/params.hpp). Each family keeps
  // its code as installers, which put a combination's closures (with its Args) into its Action
  // and the typed fast path; every change rebuilds the family's actions from them.
  void add_param(std::size_t action, std::string name, Domain domain) {
    const auto a = static_cast<ActionId>(action);
    // Every check before anything changes: a caught error leaves the model as it was.
    check_domain(domain);
    if (actions()[a].family >= 0) {
      const auto f = static_cast<std::size_t>(actions()[a].family);
      check_family_last(f);
      for (const auto& [existing, d] : family(f).params) {
        PROWL_CHECK(existing != name,
                    "action '" + family(f).name + "': parameter '" + name + "' is declared twice");
      }
      PROWL_CHECK(f >= codes_.size() || codes_[f].values == 0,
                  "action '" + family(f).name + "': parameter '" + name +
                      "' comes after a when() or run() that takes the parameters' values as "
                      "arguments; declare every param() first");
      PROWL_CHECK(family(f).count() * domain.values.size() <= kMaxCombinations,
                  "action '" + family(f).name +
                      "': its parameters make more than 65536 combinations; give them fewer "
                      "values");
    }
    const std::size_t f =
        actions()[a].family >= 0 ? static_cast<std::size_t>(actions()[a].family) : add_family(a);
    if (codes_.size() <= f) codes_.resize(f + 1);
    family(f).params.emplace_back(std::move(name), std::move(domain));
    resync(action);
  }
  // when(const T&, values...) and run(T&, [Context&,] values...): the values of a given
  // combination are converted once, here, and bound into its closures; state-given ones in each
  // state.
  template <class Values, class F>
  void add_typed_family_guard(std::size_t action, F fn) {
    const std::string name = check_values<Values>(action, "when()");
    auto call = [fn = std::move(fn)](const T& o, const Values& v) -> bool {
      return detail::apply_values(fn, v, o);
    };
    add_family_guard(
        action,
        [call, name](const T& o, const Args& a) {
          std::optional<Values> v;
          try {
            v = converted<Values>(a, name, "when()");
          } catch (const LogicError&) {
            return true;  // state-given values it cannot take: the run goes ahead and says why
          }
          return call(o, *v);
        },
        [call, name](const Args& a) {
          return
              [call, v = converted<Values>(a, name, "when()")](const T& o) { return call(o, v); };
        });
    codes_[family_of(action)].values = std::tuple_size_v<Values>;
  }
  template <class Values, std::size_t Lead, class F>
  void set_typed_family_run(std::size_t action, F fn) {
    const std::string name = check_values<Values>(action, "run()");
    if constexpr (Lead == 1) {
      auto call = [fn = std::move(fn)](T& o, const Values& v) -> decltype(auto) {
        return detail::apply_values(fn, v, o);
      };
      set_family_run(
          action,
          [call, name](T& o, const Args& a) {
            return call(o, converted<Values>(a, name, "run()"));
          },
          [call, name](const Args& a) {
            return [call, v = converted<Values>(a, name, "run()")](T& o) { return call(o, v); };
          });
    } else {
      auto call = [fn = std::move(fn)](T& o, Context& c, const Values& v) -> decltype(auto) {
        return detail::apply_values(fn, v, o, c);
      };
      set_family_run(
          action,
          [call, name](T& o, Context& c, const Args& a) {
            return call(o, c, converted<Values>(a, name, "run()"));
          },
          [call, name](const Args& a) {
            return [call, v = converted<Values>(a, name, "run()")](T& o, Context& c) {
              return call(o, c, v);
            };
          });
    }
    codes_[family_of(action)].values = std::tuple_size_v<Values>;
  }
  template <class F>
  void add_family_guard(std::size_t action, F fn) {
    add_family_guard(action, fn, [fn](const Args& args) {
      return [fn, args](const T& o) -> bool { return fn(o, args); };
    });
  }
  // fn(const T&, const Args&) for state-given arguments, worked out in each state; bind(args) the
  // same with a given combination's arguments bound, a callable of (const T&).
  template <class F, class Bind>
  void add_family_guard(std::size_t action, F fn, Bind bind) {
    const std::size_t f = family_of(action);
    check_family_last(f);  // before the code changes: a refused when() leaves it as it was
    codes_[f].guards.push_back([fn = std::move(fn), bind = std::move(bind)](
                                   ObjectModel& m, Action& a, ActionId id, const Combination& c) {
      if (c.family) {
        a.preconditions.push_back(
            [fn, family = c.family, k = c.k](const World& w, const Context& ctx) -> bool {
              // Values that cannot be had: the place's gate decides, and the run says why.
              std::string error;
              const std::optional<Args> args = family->args_in(k, w, ctx, &error);
              return args ? fn(ObjectModel<T>::object(w), *args) : !error.empty();
            });
        return;
      }
      auto typed = bind(c.args);
      m.add_typed_guard(id, typed);
      a.preconditions.push_back([typed](const World& w, const Context&) -> bool {
        return typed(ObjectModel<T>::object(w));
      });
    });
    resync(action);
  }
  template <class F>
  void set_family_run(std::size_t action, F fn) {
    if constexpr (std::is_invocable_v<F&, T&, const Args&>) {
      set_family_run(action, fn, [fn](const Args& args) {
        return [fn, args](T& o) -> decltype(auto) { return fn(o, args); };
      });
    } else {
      set_family_run(action, std::move(fn), nullptr);
    }
  }
  // As add_family_guard; bind(args) is a callable of (T&), or of (T&, Context&) for code that
  // takes the Context, or nullptr when there is none.
  template <class F, class Bind>
  void set_family_run(std::size_t action, F fn, Bind bind) {
    const std::size_t f = family_of(action);
    check_family_last(f);
    codes_[f].run = [fn = std::move(fn), bind = std::move(bind)](
                        ObjectModel& m, Action& a, ActionId id, const Combination& c) {
      if (c.family) {
        a.run = [fn, family = c.family, k = c.k](Step& s) -> Outcome {
          const std::optional<Args> args = family->args_in(k, s.world, s.context);
          if (!args) return Outcome::skipped("no value at this place in this state");
          return call_run(fn, s, *args);
        };
        return;
      }
      const Args& args = c.args;
      if constexpr (kBindsContext<Bind>) {
        // Code that takes the Context: its values bound, but no typed fast path.
        a.run = [with_context = bind(args)](Step& s) -> Outcome {
          using R = std::invoke_result_t<decltype(with_context)&, T&, Context&>;
          if constexpr (std::is_void_v<R>) {
            with_context(ObjectModel<T>::object(s.world), s.context);
            return Outcome::ok();
          } else {
            return detail::to_outcome(with_context(ObjectModel<T>::object(s.world), s.context));
          }
        };
      } else if constexpr (!std::is_null_pointer_v<Bind>) {
        auto typed = bind(args);
        using R = std::invoke_result_t<decltype(typed)&, T&>;
        a.run = [typed](Step& s) -> Outcome {
          if constexpr (std::is_void_v<R>) {
            typed(ObjectModel<T>::object(s.world));
            return Outcome::ok();
          } else {
            return detail::to_outcome(typed(ObjectModel<T>::object(s.world)));
          }
        };
        if constexpr (std::is_void_v<R>) {
          m.set_typed_run(id, typed);
          m.note_run_installed(id, a.run.target_type());
        }
      } else {
        a.run = [fn, args](Step& s) -> Outcome { return call_run(fn, s, args); };
      }
    };
    resync(action);
  }
  // A family is built in one go, while it is the last action: its actions run to the end.
  void check_family_last(std::size_t f) const {
    const std::uint32_t first = families()[f].first;
    const bool last = std::all_of(actions().begin() + first, actions().end(), [f](const Action& a) {
      return a.family == static_cast<std::int32_t>(f);
    });
    PROWL_CHECK(last, "action '" + families()[f].name +
                          "': an action with parameters is built in one go (param, when, run and "
                          "its settings), before the next action is added");
  }
  // Rebuilds the family of `action` from its parameters, its code and the first action's common
  // settings (description, dependencies, limits, weight).
  void resync(std::size_t action) {
    const std::size_t f = family_of(action);
    check_family_last(f);
    const ActionFamily& fam = family(f);
    Action prototype = actions()[fam.first];
    prototype.preconditions.clear();
    prototype.run = nullptr;
    // The typed copies of the family's old actions go: it is the last in the model.
    typed_guards_.erase(
        std::lower_bound(typed_guards_.begin(), typed_guards_.end(), fam.first,
                         [](const ActionGuard& g, ActionId x) { return g.action < x; }),
        typed_guards_.end());
    typed_counts_.resize(std::min<std::size_t>(typed_counts_.size(), fam.first));
    typed_runs_.resize(std::min<std::size_t>(typed_runs_.size(), fam.first));
    // A state-given domain's arguments are worked out in each state, from a copy of the family.
    const auto in_state = fam.in_state() ? std::make_shared<const ActionFamily>(fam) : nullptr;
    std::vector<Action> made;
    made.reserve(fam.count());
    for (std::size_t k = 0; k < fam.count(); ++k) {
      Action a = prototype;
      a.name = fam.action_name(k);
      const Combination c{fam.args(k), in_state, k};
      const auto id = static_cast<ActionId>(fam.first + k);
      for (const Installer& guard : codes_[f].guards) guard(*this, a, id, c);
      if (codes_[f].run) codes_[f].run(*this, a, id, c);
      made.push_back(std::move(a));
    }
    set_family_actions(f, std::move(made));
  }

  // The object inside a world built by this model.
  static T& object(World& w) { return static_cast<ObjectSystem<T>&>(w.system(0)).value(); }
  static const T& object(const World& w) {
    return static_cast<const ObjectSystem<T>&>(w.system(0)).value();
  }

 protected:
  // For FactoryModel: a model whose world the derived class sets.
  struct WorldLater {
    explicit WorldLater(int) {}  // not from {}: ObjectModel(name, {}) stays the object's
  };
  ObjectModel(std::string name, WorldLater) : Model(std::move(name)) {}

 private:
  void install(T initial, ObserveFn observe, DescribeFn describe) {
    set_world([initial = std::move(initial), observe = std::move(observe),
               describe = std::move(describe),
               n = this->name()]() -> Result<std::unique_ptr<World>> {
      auto world = std::make_unique<World>();
      world->emplace<MemorySystem<T>>(n, initial, observe, describe);
      return world;
    });
  }

  // Keeps a typed callable alive for as long as any copy of the model.
  template <class F>
  void* keep(F fn) {
    auto owned = std::make_shared<F>(std::move(fn));
    void* raw = owned.get();
    closures_.push_back(std::move(owned));
    return raw;
  }

  std::size_t family_of(std::size_t action) const {
    const std::int32_t f = actions()[action].family;
    PROWL_CHECK(f >= 0, "action '" + actions()[action].name +
                            "': a precondition or run() that takes Args or parameter values "
                            "needs the action's parameters, declared first with param()");
    return static_cast<std::size_t>(f);
  }
  // One combination of a family: its given arguments, or (family set) the family whose
  // state-given domains give them in each state, and the combination's index.
  struct Combination {
    Args args;
    std::shared_ptr<const ActionFamily> family;
    std::size_t k = 0;
  };
  using Installer = std::function<void(ObjectModel&, Action&, ActionId, const Combination&)>;
  // Runs a family's run() with the step's arguments.
  template <class F>
  static Outcome call_run(const F& fn, Step& s, const Args& args) {
    if constexpr (std::is_invocable_v<F&, T&, const Args&>) {
      using R = std::invoke_result_t<F&, T&, const Args&>;
      if constexpr (std::is_void_v<R>) {
        fn(ObjectModel<T>::object(s.world), args);
        return Outcome::ok();
      } else {
        return detail::to_outcome(fn(ObjectModel<T>::object(s.world), args));
      }
    } else {
      using R = std::invoke_result_t<F&, T&, Context&, const Args&>;
      if constexpr (std::is_void_v<R>) {
        fn(ObjectModel<T>::object(s.world), s.context, args);
        return Outcome::ok();
      } else {
        return detail::to_outcome(fn(ObjectModel<T>::object(s.world), s.context, args));
      }
    }
  }
  // bind(args) makes a callable of (T&, Context&).
  template <class Bind>
  static constexpr bool kBindsContext = [] {
    if constexpr (std::is_invocable_v<const Bind&, const Args&>) {
      return std::is_invocable_v<std::invoke_result_t<const Bind&, const Args&>&, T&, Context&>;
    } else {
      return false;
    }
  }();
  struct FamilyCode {
    std::vector<Installer> guards;
    Installer run;
    std::size_t values = 0;  // the parameters' count, once code takes their values as arguments
  };
  // Code that takes the values as arguments takes one per parameter, of kinds the given domains
  // have: checked before anything changes. Returns the family's name.
  template <class Values>
  std::string check_values(std::size_t action, const char* what) {
    const ActionFamily& fam = family(family_of(action));
    check_family_last(family_of(action));
    PROWL_CHECK(fam.params.size() == std::tuple_size_v<Values>,
                "action '" + fam.name + "': " + what + " takes " +
                    std::to_string(std::tuple_size_v<Values>) + " value(s) but the action has " +
                    std::to_string(fam.params.size()) +
                    " parameter(s); give it one argument per parameter, in the order of param()");
    check_given<Values>(fam, what, std::make_index_sequence<std::tuple_size_v<Values>>{});
    return fam.name;
  }
  // Each value of each given domain as the argument's type (a state-given one is converted, and
  // checked, in each state).
  template <class Values, std::size_t... I>
  static void check_given(const ActionFamily& fam, const char* what, std::index_sequence<I...>) {
    auto check = [&](std::size_t i, auto as) {
      const auto& [param, domain] = fam.params[i];
      if (domain.slots > 0) return;
      for (const ParamValue& v : domain.values) {
        (void)converted<std::tuple<decltype(as)>>(Args({{param, v}}), fam.name, what);
      }
    };
    (check(I, std::tuple_element_t<I, Values>{}), ...);
  }
  // Args as Values; a value of the other kind, or one that does not fit, is a LogicError that
  // names the action and its code.
  template <class Values>
  static Values converted(const Args& args, const std::string& action, const char* what) {
    try {
      return detail::values_of<Values>(args);
    } catch (const LogicError& e) {
      throw LogicError("action '" + action + "': " + what +
                       " cannot take the value as its argument: " + e.what());
    }
  }
  std::vector<FamilyCode> codes_;  // by family

  std::vector<std::shared_ptr<void>> closures_;
  // The preconditions added with when(const T&), typed, by action (in order of addition within
  // one action), and how many each action has.
  struct ActionGuard {
    ActionId action;
    TypedGuard call;
  };
  std::vector<ActionGuard> typed_guards_;
  std::vector<std::uint32_t> typed_counts_;
  // The typed copies of run(T&) and check(const T&), with the type of the Action's code or the
  // Invariant's check installed along with them (null until installed).
  template <class Call>
  struct Installed {
    Call call;
    const std::type_info* installed = nullptr;
  };
  std::vector<Installed<TypedRun>> typed_runs_;
  std::vector<Installed<TypedCheck>> typed_checks_;
};

// FactoryModel<T>: an ObjectModel whose object prowl never copies. Each run, and each time the
// explorer goes back to an earlier state, it builds a fresh object with `make` and replays the
// path from there (ReplaySystem<T>). Choose it for classes that cannot be copied, or whose
// compiler-made copy is shallow (a std::list plus a map of iterators into it; raw owning
// pointers): a copying ObjectModel would crash on them or explore the wrong states. It costs a
// replay per restore (README, "Objects that cannot be copied"). Actions, invariants and the
// observation are written exactly as for ObjectModel:
//
//   prowl::FactoryModel<Lru> model("lru", [] { return Lru(2); });
//   model.action("put_1").run([](Lru& c) { c.put(1, 10); });
template <class T>
class FactoryModel : public ObjectModel<T> {
 public:
  using Factory = std::function<T()>;
  using typename ObjectModel<T>::ObserveFn;
  using typename ObjectModel<T>::DescribeFn;

  // The object is observed by its bytes or by the prowl_observe(const T&, Hasher&) that ADL finds.
  explicit FactoryModel(std::string name, Factory make, DescribeFn describe = {})
      : ObjectModel<T>(std::move(name), typename ObjectModel<T>::WorldLater(0)) {
    static_assert(DefaultObservable<T>,
                  "FactoryModel<T>: prowl cannot hash this state type: define `void "
                  "prowl_observe(const T&, prowl::Hasher&)` next to T, or pass an observe "
                  "function.");
    install(std::move(make), {}, std::move(describe));
  }
  // The object is observed by `observe`. REQUIRES: `make` and `observe` are not empty.
  FactoryModel(std::string name, Factory make, ObserveFn observe, DescribeFn describe = {})
      : ObjectModel<T>(std::move(name), typename ObjectModel<T>::WorldLater(0)) {
    PROWL_CHECK(static_cast<bool>(observe), "FactoryModel: an observe function");
    install(std::move(make), std::move(observe), std::move(describe));
  }

 private:
  void install(Factory make, ObserveFn observe, DescribeFn describe) {
    PROWL_CHECK(static_cast<bool>(make), "FactoryModel: a factory");
    this->set_world([make = std::move(make), observe = std::move(observe),
                     describe = std::move(describe),
                     n = this->name()]() -> Result<std::unique_ptr<World>> {
      auto world = std::make_unique<World>();
      try {
        world->emplace<ReplaySystem<T>>(n, make, observe, describe);
      } catch (const std::exception& e) {
        return Status::environment("'" + n + "': building the object threw: " + e.what());
      } catch (...) {
        return Status::environment("'" + n + "': building the object threw");
      }
      return world;
    });
  }
};

}  // namespace prowl
