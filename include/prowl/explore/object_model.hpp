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
#pragma once

#include <type_traits>

#include "prowl/explore/model.hpp"
#include "prowl/world/memory_system.hpp"

namespace prowl {

template <class T>
class ObjectModel;

namespace detail {
template <class R>
Outcome to_outcome(R&& r) {
  if constexpr (std::is_same_v<std::decay_t<R>, Outcome>) {
    return std::forward<R>(r);
  } else {
    static_assert(std::is_same_v<std::decay_t<R>, bool>, "run() must return void, bool or Outcome");
    return r ? Outcome::ok() : Outcome::rejected("returned false");
  }
}
}  // namespace detail

template <class T>
class ObjectActionBuilder : public ActionBuilderBase<ObjectActionBuilder<T>> {
 public:
  using ActionBuilderBase<ObjectActionBuilder<T>>::ActionBuilderBase;

  template <class F>
  ObjectActionBuilder& when(F fn) {
    this->action().preconditions.push_back(
        [fn = std::move(fn)](const World& w, const Context& c) -> bool {
          const T& obj = ObjectModel<T>::object(w);
          if constexpr (std::is_invocable_v<F&, const T&, const Context&>) {
            return fn(obj, c);
          } else {
            return fn(obj);
          }
        });
    return *this;
  }

  template <class F>
  ObjectActionBuilder& run(F fn) {
    this->action().run = [fn = std::move(fn)](Step& s) -> Outcome {
      T& obj = ObjectModel<T>::object(s.world);
      if constexpr (std::is_invocable_v<F&, T&, Context&, Rng&>) {
        using R = std::invoke_result_t<F&, T&, Context&, Rng&>;
        if constexpr (std::is_void_v<R>) {
          fn(obj, s.context, s.rng);
          return Outcome::ok();
        } else {
          return detail::to_outcome(fn(obj, s.context, s.rng));
        }
      } else if constexpr (std::is_invocable_v<F&, T&, Context&>) {
        using R = std::invoke_result_t<F&, T&, Context&>;
        if constexpr (std::is_void_v<R>) {
          fn(obj, s.context);
          return Outcome::ok();
        } else {
          return detail::to_outcome(fn(obj, s.context));
        }
      } else {
        static_assert(std::is_invocable_v<F&, T&>,
                      "run() takes (T&), (T&, Context&) or (T&, Context&, Rng&)");
        using R = std::invoke_result_t<F&, T&>;
        if constexpr (std::is_void_v<R>) {
          fn(obj);
          return Outcome::ok();
        } else {
          return detail::to_outcome(fn(obj));
        }
      }
    };
    return *this;
  }
};

template <class T>
class ObjectInvariantBuilder : public InvariantBuilderBase<ObjectInvariantBuilder<T>> {
 public:
  using InvariantBuilderBase<ObjectInvariantBuilder<T>>::InvariantBuilderBase;

  template <class F>
  ObjectInvariantBuilder& check(F fn) {
    std::string name = this->invariant().name;
    this->invariant().check = [fn = std::move(fn), name](const World& w,
                                                         const Context& c) -> Check {
      const T& obj = ObjectModel<T>::object(w);
      auto r = [&] {
        if constexpr (std::is_invocable_v<F&, const T&, const Context&>) {
          return fn(obj, c);
        } else {
          return fn(obj);
        }
      }();
      if constexpr (std::is_same_v<decltype(r), bool>) {
        return r ? Check::pass() : Check::fail("invariant '" + name + "' does not hold");
      } else {
        return r;
      }
    };
    return *this;
  }
};

template <class T>
class ObjectModel : public Model {
 public:
  using ObserveFn = typename MemorySystem<T>::ObserveFn;
  using DescribeFn = typename MemorySystem<T>::DescribeFn;

  explicit ObjectModel(std::string name, T initial = T{}, ObserveFn observe = {},
                       DescribeFn describe = {})
      : Model(std::move(name)) {
    set_world([initial = std::move(initial), observe = std::move(observe),
               describe = std::move(describe),
               n = this->name()]() -> Result<std::unique_ptr<World>> {
      auto world = std::make_unique<World>();
      world->emplace<MemorySystem<T>>(n, initial, observe, describe);
      return world;
    });
  }

  ObjectActionBuilder<T> action(std::string name) { return {*this, add_action(std::move(name))}; }
  ObjectInvariantBuilder<T> invariant(std::string name) {
    return {*this, add_invariant(std::move(name))};
  }

  // The object inside a world built by this model.
  static T& object(World& w) { return static_cast<MemorySystem<T>&>(w.system(0)).value(); }
  static const T& object(const World& w) {
    return static_cast<const MemorySystem<T>&>(w.system(0)).value();
  }
};

}  // namespace prowl
