/* cassc: libcu++'s <cuda/pipeline> for HIP, which has no libcu++. memcpy_async copies at once (a group's copy
 * shared among its threads), so a stage is complete when every producer has committed it. A thread-scope pipeline
 * (make_pipeline()) is then a no-op beyond the copy. A block-scope one keeps two counters in its
 * pipeline_shared_state, over clang's scoped atomics: commits (a consumer's n-th consumer_wait waits for n commits
 * of every producer, and the acquire orders the copies before its reads) and releases (a producer's n-th
 * producer_acquire waits until every consumer released stage n - Stages, so it never overwrites a stage still
 * read). Unified pipelines count every thread of the group as producer and consumer; partitioned ones their
 * roles. Only device code uses a pipeline. */
#pragma once
#include <cassc/cuda_barrier.h>

#if defined(__HIP__)
namespace cuda {
enum class pipeline_role { producer, consumer };

template <thread_scope Scope, ::std::uint8_t Stages>
struct pipeline_shared_state {
  unsigned int commits;
  unsigned int releases;
};

template <thread_scope Scope>
class pipeline {
  static constexpr int scope = __cassc_atomic::scope<Scope>::value;

 public:
  __device__ pipeline(unsigned int* commits, unsigned int* releases, unsigned int stages, unsigned int producers,
                      unsigned int consumers)
      : commits_(commits), releases_(releases), stages_(stages), producers_(producers), consumers_(consumers) {}
  __device__ void producer_acquire() {
    if (commits_ == nullptr || acquired_ < stages_) {
      ++acquired_;
      return;
    }
    const unsigned int needed = (acquired_ - stages_ + 1) * consumers_;
    while (__hip_atomic_load(releases_, __ATOMIC_ACQUIRE, scope) < needed) __builtin_amdgcn_s_sleep(1);
    ++acquired_;
  }
  __device__ void producer_commit() {
    if (commits_ != nullptr) __hip_atomic_fetch_add(commits_, 1u, __ATOMIC_RELEASE, scope);
  }
  __device__ void consumer_wait() {
    ++waited_;
    if (commits_ == nullptr) return;
    while (__hip_atomic_load(commits_, __ATOMIC_ACQUIRE, scope) < waited_ * producers_) __builtin_amdgcn_s_sleep(1);
  }
  template <class Rep, class Period>
  __device__ bool consumer_wait_for(const Rep&) {
    consumer_wait();
    return true;
  }
  __device__ void consumer_release() {
    if (releases_ != nullptr) __hip_atomic_fetch_add(releases_, 1u, __ATOMIC_RELEASE, scope);
  }
  __device__ bool quit() { return true; }

 private:
  unsigned int* commits_;
  unsigned int* releases_;
  unsigned int stages_, producers_, consumers_;
  unsigned int acquired_ = 0;
  unsigned int waited_ = 0;
};

__device__ inline pipeline<thread_scope_thread> make_pipeline() {
  return pipeline<thread_scope_thread>(nullptr, nullptr, 0, 1, 1);
}

namespace __cassc_pipeline {
/* The shared counters zeroed by the group's first thread, before any member uses them; then the pipeline. */
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
__device__ pipeline<Scope> start(const Group& group, pipeline_shared_state<Scope, Stages>* state,
                                 unsigned int producers, unsigned int consumers) {
  group.sync();
  return pipeline<Scope>(&state->commits, &state->releases, Stages, producers, consumers);
}
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
__device__ void reset(const Group& group, pipeline_shared_state<Scope, Stages>* state) {
  if (group.thread_rank() == 0) state->commits = state->releases = 0;
  group.sync();
}
}  // namespace __cassc_pipeline

/* Unified: every thread of the group produces and consumes. */
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
__device__ pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* state) {
  __cassc_pipeline::reset(group, state);
  return __cassc_pipeline::start(group, state, group.size(), group.size());
}

/* Partitioned: the first producer_count threads of the group produce, the others consume. */
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
__device__ pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* state,
                                         ::std::size_t producer_count) {
  __cassc_pipeline::reset(group, state);
  const unsigned int producers = static_cast<unsigned int>(producer_count);
  return __cassc_pipeline::start(group, state, producers, group.size() - producers);
}

/* Partitioned by each thread's role: the producers counted first, in the counter the releases use later. */
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
__device__ pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* state,
                                         pipeline_role role) {
  __cassc_pipeline::reset(group, state);
  constexpr int scope = __cassc_atomic::scope<Scope>::value;
  if (role == pipeline_role::producer) __hip_atomic_fetch_add(&state->releases, 1u, __ATOMIC_RELAXED, scope);
  group.sync();
  const unsigned int producers = __hip_atomic_load(&state->releases, __ATOMIC_RELAXED, scope);
  group.sync();
  if (group.thread_rank() == 0) state->releases = 0;
  return __cassc_pipeline::start(group, state, producers, group.size() - producers);
}

template <thread_scope Scope>
__device__ void pipeline_producer_commit(pipeline<Scope>& pipe, barrier<Scope>&) {
  pipe.producer_commit();
}

template <::std::uint8_t Prior>
__device__ void pipeline_consumer_wait_prior(pipeline<thread_scope_thread>&) {}

template <class Size, thread_scope Scope>
__device__ void memcpy_async(void* destination, const void* source, Size size, pipeline<Scope>&) {
  __cassc_copy::bytes(destination, source, static_cast<::std::size_t>(size), 0, 1);
}

template <class Group, class Size, thread_scope Scope>
__device__ auto memcpy_async(const Group& group, void* destination, const void* source, Size size, pipeline<Scope>&)
    -> decltype(group.thread_rank(), void()) {
  __cassc_copy::bytes(destination, source, static_cast<::std::size_t>(size), group.thread_rank(), group.size());
}
}  // namespace cuda
#endif
