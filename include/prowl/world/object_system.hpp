// ObjectSystem<T>: a System holding one in-process C++ object of type T, which the actions of an
// ObjectModel<T> read and change through value(). Two kinds: MemorySystem<T> branches by copying
// the object (every capability, cheap); ReplaySystem<T> never copies it and goes back by building
// a fresh one and replaying the path (reset only). The object stays at one address for the
// system's life, so the explorer's typed fast path may keep a pointer to it.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "prowl/core/fingerprint.hpp"
#include "prowl/world/system.hpp"

namespace prowl {

template <class T>
concept HasProwlObserve = requires(const T& v, Hasher& h) {
  prowl_observe(v, h);
};

template <class T>
concept DefaultObservable = HasProwlObserve<T> || std::has_unique_object_representations_v<T>;

template <class T>
void observe_value(const T& value, Hasher& hasher) {
  if constexpr (HasProwlObserve<T>) {
    prowl_observe(value, hasher);
  } else {
    static_assert(std::has_unique_object_representations_v<T>,
                  "prowl cannot hash this type's bytes (padding or non-trivial members): define "
                  "void prowl_observe(const T&, prowl::Hasher&) or pass an observe function");
    hasher.add_fixed<sizeof(T)>(&value);
  }
}

template <class T>
class ObjectSystem : public System {
 public:
  using System::System;

  T& value() { return *object_; }
  const T& value() const { return *object_; }

 protected:
  T* object_ = nullptr;  // set by the derived system, never null once it is built
};

}  // namespace prowl
