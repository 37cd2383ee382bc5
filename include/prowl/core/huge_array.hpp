// HugeArray<T>: a fixed-size, zero-filled array of a trivially copyable T in its own anonymous
// memory mapping. From 2 MiB up it is aligned to 2 MiB and asks the kernel for transparent huge
// pages (madvise), which removes most TLB misses of random lookups in a large hash table. Pages
// are touched lazily, so an array costs memory only where it is used.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace prowl::detail {

template <class T>
class HugeArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugeArray() = default;
  explicit HugeArray(std::size_t n) : size_(n) {
    if (n == 0) return;
    bytes_ = (n * sizeof(T) + 4095) & ~std::size_t{4095};
    const bool huge = bytes_ >= kHugePage;
    const std::size_t reserve = huge ? bytes_ + kHugePage : bytes_;
    void* p = ::mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<unsigned char*>(p);
    if (huge) {
      // Keep the 2 MiB-aligned part and return the slack on both sides.
      const auto addr = reinterpret_cast<std::uintptr_t>(base);
      const std::size_t head = (kHugePage - addr % kHugePage) % kHugePage;
      if (head > 0) ::munmap(base, head);
      const std::size_t tail = reserve - head - bytes_;
      if (tail > 0) ::munmap(base + head + bytes_, tail);
      base += head;
      ::madvise(base, bytes_, MADV_HUGEPAGE);  // a hint: without THP it is simply ignored
    }
    data_ = reinterpret_cast<T*>(base);
  }
  ~HugeArray() { release(); }
  HugeArray(HugeArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        bytes_(std::exchange(other.bytes_, 0)) {}
  HugeArray& operator=(HugeArray&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;

  std::size_t size() const { return size_; }
  // Bytes mapped (the size rounded up to whole pages).
  std::size_t mapped_bytes() const { return bytes_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  void release() {
    if (data_ != nullptr) ::munmap(data_, bytes_);
    data_ = nullptr;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace prowl::detail
