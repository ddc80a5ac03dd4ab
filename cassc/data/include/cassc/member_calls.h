/* cassc: the free functions hipify's member-call rule (member_calls.py, member-calls.tsv) turns CUDA member
 * calls into, `g.ballot(p)` -> `__cassc_ballot(g, p)`, for members HIP's classes lack (HIP 5.2's
 * coalesced groups and tiles have no ballot, any, all, match_any, match_all or num_threads). Each calls
 * the object's own member where its class has one (HIP 6's groups; std::bitset's any/all and any other class's), else the
 * `__cassc_<member>_of` that argument-dependent lookup finds beside the object's class (cassc's
 * cooperative-groups versions, cassc/cooperative_groups.h). Pre-included into CUDA and C++ units. */
#pragma once
#if defined(__cplusplus)
#if defined(__HIP__)
#define __CASSC_MEMBER_FN __host__ __device__ inline
#else
#define __CASSC_MEMBER_FN inline
#endif
struct __cassc_member_fallback {};
struct __cassc_member_own : __cassc_member_fallback {};
#define __CASSC_MEMBER_CALL(member)                                                                            \
  template <typename O, typename... A>                                                                         \
  __CASSC_MEMBER_FN auto __cassc_##member##_call(__cassc_member_own, O& o, A&&... a)                            \
      -> decltype(o.member(static_cast<A&&>(a)...)) {                                                          \
    return o.member(static_cast<A&&>(a)...);                                                                   \
  }                                                                                                            \
  template <typename O, typename... A>                                                                         \
  __CASSC_MEMBER_FN auto __cassc_##member##_call(__cassc_member_fallback, O& o, A&&... a)                       \
      -> decltype(__cassc_##member##_of(o, static_cast<A&&>(a)...)) {                                          \
    return __cassc_##member##_of(o, static_cast<A&&>(a)...);                                                   \
  }                                                                                                            \
  template <typename O, typename... A>                                                                         \
  __CASSC_MEMBER_FN auto __cassc_##member(O&& o, A&&... a)                                                     \
      -> decltype(__cassc_##member##_call(__cassc_member_own{}, o, static_cast<A&&>(a)...)) {                  \
    return __cassc_##member##_call(__cassc_member_own{}, o, static_cast<A&&>(a)...);                           \
  }
__CASSC_MEMBER_CALL(num_threads)
__CASSC_MEMBER_CALL(ballot)
__CASSC_MEMBER_CALL(any)
__CASSC_MEMBER_CALL(all)
__CASSC_MEMBER_CALL(match_any)
__CASSC_MEMBER_CALL(match_all)
#undef __CASSC_MEMBER_CALL
#undef __CASSC_MEMBER_FN
#endif
