#pragma once
// Scratch buffers that the products write in full before reading: resize() leaves new values
// uninitialized. std::vector value-initializes them, and at long N that zeroing was the first
// touch of fresh pages, made by whichever thread resized (the others waited) and then repeated
// by the code that fills the buffer.
#include <Eigen/Core>
#include <new>
#include <utility>
#include <vector>

namespace attn::models {

/// Eigen's aligned allocator, constructing elements without arguments by default-initialization.
template <typename T>
struct DefaultInitAllocator : Eigen::aligned_allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// Aligned floats whose resize() does not zero what it adds.
using ScratchFloats = std::vector<float, DefaultInitAllocator<float>>;

}  // namespace attn::models
