// The code of an action with parameters may take the parameters' values as its own arguments,
// one per parameter in the order of declaration, instead of the step's Args:
//
//   model.action("take").param("p", prowl::range(0, 4))
//       .when([](const Table& t, int p) { return t.free(p); })
//       .run([](Table& t, int p) { t.take(p); });
//
// An argument is a whole number type (not bool or a character type) or std::string, by value or
// by const reference. For a given domain the values are converted once per combination, when the
// model is built, so such code costs what a hand-written action per combination costs. Generic
// lambdas (auto arguments) have no one signature to read the types from: name the types.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "prowl/explore/params.hpp"

namespace prowl::detail {

// The parameter list of a callable with exactly one signature (not a generic lambda).
template <class F, class = void>
struct Signature {};
template <class R, class... A>
struct Signature<R (*)(A...), void> {
  using Params = std::tuple<A...>;
};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...), void> {
  using Params = std::tuple<A...>;
};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...) const, void> {
  using Params = std::tuple<A...>;
};
template <class R, class... A>
struct Signature<R (*)(A...) noexcept, void> : Signature<R (*)(A...)> {};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...) noexcept, void> : Signature<R (C::*)(A...)> {};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...) const noexcept, void> : Signature<R (C::*)(A...)> {};
template <class F>
struct Signature<F, std::void_t<decltype(&F::operator())>> : Signature<decltype(&F::operator())> {};

// A type a parameter's value can be passed as: by value or by const lvalue reference, a whole
// number type (not bool or a character type) or std::string.
template <class V>
constexpr bool kWholeNumber =
    std::is_integral_v<V> && !std::is_same_v<V, bool> && !std::is_same_v<V, char> &&
    !std::is_same_v<V, wchar_t> && !std::is_same_v<V, char8_t> && !std::is_same_v<V, char16_t> &&
    !std::is_same_v<V, char32_t>;
template <class A>
constexpr bool kValueArg =
    !std::is_rvalue_reference_v<A> &&
    (!std::is_lvalue_reference_v<A> || std::is_const_v<std::remove_reference_t<A>>)&&(
        std::is_same_v<std::decay_t<A>, std::string> || kWholeNumber<std::decay_t<A>>);

template <class Params, std::size_t Lead, class = void>
struct ValueArgs {
  static constexpr bool kOk = false;
};
template <class... A, std::size_t Lead>
struct ValueArgs<std::tuple<A...>, Lead, std::enable_if_t<(sizeof...(A) > Lead)>> {
  template <std::size_t... I>
  static constexpr bool all(std::index_sequence<I...>) {
    return (kValueArg<std::tuple_element_t<Lead + I, std::tuple<A...>>> && ...);
  }
  template <std::size_t... I>
  static auto values(std::index_sequence<I...>)
      -> std::tuple<std::decay_t<std::tuple_element_t<Lead + I, std::tuple<A...>>>...>;

  static constexpr std::size_t kCount = sizeof...(A) - Lead;
  static constexpr bool kOk = all(std::make_index_sequence<kCount>{});
  // The values, decayed: what a combination's arguments are converted to once.
  using Values = decltype(values(std::make_index_sequence<kCount>{}));
};

// F takes Lead leading arguments (the object; and for run() maybe the Context), then at least one
// parameter value.
template <class F, std::size_t Lead, class = void>
struct TypedParams {
  static constexpr bool kOk = false;
};
template <class F, std::size_t Lead>
struct TypedParams<F, Lead, std::void_t<typename Signature<std::decay_t<F>>::Params>>
    : ValueArgs<typename Signature<std::decay_t<F>>::Params, Lead> {};

// F's second argument is a Context& (run(T&, Context&, values...)).
template <class F, class = void>
constexpr bool kTakesContext = false;
template <class F>
constexpr bool kTakesContext<F, std::void_t<typename Signature<std::decay_t<F>>::Params>> = [] {
  using P = typename Signature<std::decay_t<F>>::Params;
  if constexpr (std::tuple_size_v<P> >= 2) {
    return std::is_same_v<std::tuple_element_t<1, P>, Context&>;
  } else {
    return false;
  }
}();

// F applied to the leading arguments and the values of a Values tuple returns R.
template <class R, class F, class Lead, class Values>
constexpr bool kAppliesTo = false;
template <class R, class F, class Lead, class... V>
constexpr bool kAppliesTo<R, F, Lead, std::tuple<V...>> =
    std::is_invocable_r_v<R, F, Lead, const V&...>;

// Calls fn(lead..., values...).
template <class F, class Values, class... Lead>
decltype(auto) apply_values(const F& fn, const Values& values, Lead&&... lead) {
  return std::apply([&](const auto&... v) -> decltype(auto) { return fn(lead..., v...); }, values);
}

// Args in the order of declaration, converted to Values (a std::tuple). Throws LogicError when a
// value is of the other kind or does not fit, as Args::get does.
template <class Values, std::size_t... I>
Values values_of(const Args& args, std::index_sequence<I...>) {
  return Values{args.template get<std::tuple_element_t<I, Values>>(I)...};
}
template <class Values>
Values values_of(const Args& args) {
  return values_of<Values>(args, std::make_index_sequence<std::tuple_size_v<Values>>{});
}

}  // namespace prowl::detail
