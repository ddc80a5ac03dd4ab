/* cassc: libcu++'s <cuda/barrier> for HIP, which has no libcu++: cuda::barrier<Scope> as a phase counter over
 * clang's scoped atomics (cuda_atomic.h's scopes: block is the workgroup, device the agent). arrive() takes the
 * current phase as its token and counts down; the last arrival of a phase runs the completion function, resets
 * the count and starts the next phase; wait(token) waits for the phase to move on. cuda::memcpy_async with a
 * barrier copies at once (as cooperative_groups_memcpy_async.h does): the arrival that follows orders the copy
 * before the waiters' reads. Only device code uses a barrier. */
#pragma once
#include <hip/hip_runtime.h>
#include <cassc/cuda_atomic.h>
#include <cstddef>
#include <cstdint>
#include <utility>

#if defined(__HIP__)
namespace cuda {
struct __cassc_empty_completion {
  __host__ __device__ void operator()() const noexcept {}
};

template <thread_scope Scope, class CompletionFunction = __cassc_empty_completion>
class barrier {
  static constexpr int scope = __cassc_atomic::scope<Scope>::value;

 public:
  using arrival_token = unsigned int;

  barrier() = default;
  barrier(const barrier&) = delete;
  barrier& operator=(const barrier&) = delete;
  __device__ barrier(::std::ptrdiff_t expected, CompletionFunction completion = CompletionFunction())
      : expected_(static_cast<int>(expected)), pending_(static_cast<int>(expected)), phase_(0), completion_(completion) {}

  __device__ arrival_token arrive(::std::ptrdiff_t update = 1) {
    const unsigned int phase = __hip_atomic_load(&phase_, __ATOMIC_ACQUIRE, scope);
    const int left = __hip_atomic_fetch_add(&pending_, -static_cast<int>(update), __ATOMIC_ACQ_REL, scope) -
                     static_cast<int>(update);
    if (left == 0) {
      completion_();
      __hip_atomic_store(&pending_, __hip_atomic_load(&expected_, __ATOMIC_RELAXED, scope), __ATOMIC_RELAXED, scope);
      __hip_atomic_fetch_add(&phase_, 1u, __ATOMIC_RELEASE, scope);
    }
    return phase;
  }
  __device__ void wait(arrival_token&& token) const {
    while (__hip_atomic_load(&phase_, __ATOMIC_ACQUIRE, scope) == token) __builtin_amdgcn_s_sleep(1);
  }
  __device__ void arrive_and_wait() { wait(arrive()); }
  __device__ void arrive_and_drop() {
    __hip_atomic_fetch_add(&expected_, -1, __ATOMIC_RELAXED, scope);
    (void)arrive();
  }
  static constexpr ::std::ptrdiff_t max() noexcept { return 0x7fffffff; }

  __device__ friend void init(barrier* bar, ::std::ptrdiff_t expected,
                              CompletionFunction completion = CompletionFunction()) {
    bar->expected_ = bar->pending_ = static_cast<int>(expected);
    bar->phase_ = 0;
    bar->completion_ = completion;
  }

 private:
  int expected_;
  int pending_;
  unsigned int phase_;
  CompletionFunction completion_;
};

/* libcu++'s size type that promises an alignment; the copies here need none. */
template <::std::size_t Alignment>
struct aligned_size_t {
  static constexpr ::std::size_t align = Alignment;
  ::std::size_t value;
  __host__ __device__ explicit constexpr aligned_size_t(::std::size_t size) : value(size) {}
  __host__ __device__ constexpr operator ::std::size_t() const { return value; }
};

namespace __cassc_copy {
/* The copy memcpy_async starts, done at once: by this thread alone, or shared among a group's threads. */
__device__ inline void bytes(void* destination, const void* source, ::std::size_t size, unsigned int rank,
                             unsigned int count) {
  char* to = static_cast<char*>(destination);
  const char* from = static_cast<const char*>(source);
  if ((reinterpret_cast<::std::uintptr_t>(to) | reinterpret_cast<::std::uintptr_t>(from) | size) % 16 == 0) {
    for (::std::size_t i = rank * 16; i < size; i += count * 16)
      *reinterpret_cast<uint4*>(to + i) = *reinterpret_cast<const uint4*>(from + i);
  } else {
    for (::std::size_t i = rank; i < size; i += count) to[i] = from[i];
  }
}
}  // namespace __cassc_copy

template <class Size, thread_scope Scope, class Completion>
__device__ void memcpy_async(void* destination, const void* source, Size size, barrier<Scope, Completion>&) {
  __cassc_copy::bytes(destination, source, static_cast<::std::size_t>(size), 0, 1);
}

template <class Group, class Size, thread_scope Scope, class Completion>
__device__ auto memcpy_async(const Group& group, void* destination, const void* source, Size size,
                             barrier<Scope, Completion>&) -> decltype(group.thread_rank(), void()) {
  __cassc_copy::bytes(destination, source, static_cast<::std::size_t>(size), group.thread_rank(), group.size());
}
}  // namespace cuda
#endif
