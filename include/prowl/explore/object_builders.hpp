// The builders of ObjectModel<T>'s actions and invariants: what action(name) and invariant(name)
// return (prowl/explore/object_model.hpp describes what when(), run() and check() accept).
#pragma once

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "prowl/explore/model.hpp"
#include "prowl/explore/params.hpp"
#include "prowl/explore/typed_params.hpp"

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

  // A parameter with its domain (prowl/explore/params.hpp): the action then stands for one
  // action per combination of its parameters' values. Declare parameters right after action(),
  // before when() and run(), which then may take the step's Args, or the values themselves as
  // arguments (prowl/explore/typed_params.hpp).
  ObjectActionBuilder& param(std::string name, Domain domain) {
    auto* model = static_cast<ObjectModel<T>*>(this->model_);
    model->add_param(this->index_, std::move(name), std::move(domain));
    return *this;
  }
  // A parameter whose values the object's state gives (prowl::from_state).
  template <class F>
  ObjectActionBuilder& param(std::string name, FromState<F> domain) {
    static_assert(std::is_invocable_v<F&, const T&>,
                  "from_state() takes a function of (const T&) returning a range of values");
    return param(std::move(name),
                 state_domain(
                     domain.places,
                     [f = std::move(domain.values_of)](
                         const World& w, const Context&) -> Result<std::vector<ParamValue>> {
                       return to_param_values(f(ObjectModel<T>::object(w)));
                     },
                     "from_state"));
  }

  // The builder's own setters (weight, limits, ...) reach every action of a family, which must
  // still be the last.
  void before_change() {
    if (this->action().family >= 0) {
      static_cast<ObjectModel<T>*>(this->model_)
          ->check_family_last(static_cast<std::size_t>(this->action().family));
    }
  }
  void sync() {
    if (this->action().family >= 0)
      static_cast<ObjectModel<T>*>(this->model_)->resync(this->index_);
  }

  template <class F>
  ObjectActionBuilder& when(F fn) {
    auto* model = static_cast<ObjectModel<T>*>(this->model_);
    if constexpr (detail::TypedParams<F, 1>::kOk) {
      using Values = typename detail::TypedParams<F, 1>::Values;
      static_assert(detail::kAppliesTo<bool, F&, const T&, Values>,
                    "when(const T&, values...) returns bool");
      model->template add_typed_family_guard<Values>(this->index_, std::move(fn));
      return *this;
    } else if constexpr (std::is_invocable_r_v<bool, F&, const T&, const Args&>) {
      model->add_family_guard(this->index_, std::move(fn));
      return *this;
    } else if constexpr (std::is_invocable_r_v<bool, F&, const T&>) {
      if (this->action().family >= 0) {
        model->add_family_guard(this->index_,
                                [fn = std::move(fn)](const T& o, const Args&) { return fn(o); });
        return *this;
      }
    }
    PROWL_CHECK(this->action().family < 0,
                "action '" + this->action().name +
                    "': a precondition of an action with parameters takes (const T&), (const "
                    "T&, const Args&) or (const T&, one value per parameter)");
    if constexpr (detail::TypedParams<F, 1>::kOk ||
                  std::is_invocable_r_v<bool, F&, const T&, const Args&>) {
      return *this;  // handled above
    } else if constexpr (std::is_invocable_v<F&, const T&, const Context&>) {
      this->action().preconditions.push_back(
          [fn = std::move(fn)](const World& w, const Context& c) -> bool {
            return fn(ObjectModel<T>::object(w), c);
          });
    } else {
      static_assert(std::is_invocable_r_v<bool, F&, const T&>,
                    "when() takes (const T&), (const T&, const Context&) or, for an action with "
                    "parameters, (const T&, const Args&) or (const T&, one value per "
                    "parameter), returning bool");
      // Kept twice: as the Action's precondition, and typed for the explorer's fast path.
      static_cast<ObjectModel<T>*>(this->model_)->add_typed_guard(this->index_, fn);
      this->action().preconditions.push_back(
          [fn = std::move(fn)](const World& w, const Context&) -> bool {
            return fn(ObjectModel<T>::object(w));
          });
    }
    return *this;
  }

  template <class F>
  ObjectActionBuilder& run(F fn) {
    auto* model = static_cast<ObjectModel<T>*>(this->model_);
    if constexpr (detail::TypedParams<F, 1>::kOk) {
      model->template set_typed_family_run<typename detail::TypedParams<F, 1>::Values, 1>(
          this->index_, std::move(fn));
      return *this;
    } else if constexpr (detail::kTakesContext<F> && detail::TypedParams<F, 2>::kOk) {
      model->template set_typed_family_run<typename detail::TypedParams<F, 2>::Values, 2>(
          this->index_, std::move(fn));
      return *this;
    } else if constexpr (std::is_invocable_v<F&, T&, const Args&> ||
                         std::is_invocable_v<F&, T&, Context&, const Args&>) {
      model->set_family_run(this->index_, std::move(fn));
      return *this;
    } else {
      PROWL_CHECK(this->action().family < 0,
                  "action '" + this->action().name +
                      "': run() of an action with parameters takes (T&, const Args&), (T&, "
                      "Context&, const Args&) or (T&, one value per parameter), after Context& "
                      "if it needs it");
      return plain_run(std::move(fn));
    }
  }

 private:
  template <class F>
  ObjectActionBuilder& plain_run(F fn) {
    constexpr bool kTyped = std::is_invocable_v<F&, T&> && !std::is_invocable_v<F&, T&, Context&>;
    auto* model = static_cast<ObjectModel<T>*>(this->model_);
    if constexpr (kTyped) {
      if constexpr (std::is_void_v<std::invoke_result_t<F&, T&>>) {
        model->set_typed_run(this->index_, fn);
      } else {
        model->clear_typed_run(this->index_);
      }
    } else {
      model->clear_typed_run(this->index_);
    }
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
    // Kept twice: as the Action's code, and (above) typed for the explorer's fast path, which
    // uses the typed copy only while the Action's code is still the one installed here.
    model->note_run_installed(this->index_, this->action().run.target_type());
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
    auto* model = static_cast<ObjectModel<T>*>(this->model_);
    if constexpr (!std::is_invocable_v<F&, const T&, const Context&>) {
      if constexpr (std::is_same_v<std::invoke_result_t<F&, const T&>, bool>) {
        model->set_typed_check(this->index_, fn);
      } else {
        model->clear_typed_check(this->index_);
      }
    } else {
      model->clear_typed_check(this->index_);
    }
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
    model->note_check_installed(this->index_, this->invariant().check.target_type());
    return *this;
  }
};

}  // namespace prowl
