/* cassc: the wrapper hipify's member-call rule (member_calls.py, member-calls.tsv) puts around the receiver
 * of a call of a member CUDA's cooperative groups have and HIP's may lack: `g.ballot(p)` ->
 * `__cassc_members(g).ballot(p)`. For an object of any class but HIP's groups it is the object itself, so
 * its own member is called where the user called it, with the user's access (a private `any` called inside
 * its class, std::bitset's any/all). For HIP's groups, argument-dependent lookup finds the overload of
 * `__cassc_members_of` beside the group's class (cassc/cooperative_groups.h), which returns cassc's view.
 * Pre-included into CUDA and C++ units. */
#pragma once
#if defined(__cplusplus)
#if defined(__HIP__)
#define __CASSC_MEMBER_FN __host__ __device__ inline
#else
#define __CASSC_MEMBER_FN inline
#endif
struct __cassc_member_fallback {};
struct __cassc_member_own : __cassc_member_fallback {};
template <typename O>
__CASSC_MEMBER_FN O& __cassc_members_of(O& o, __cassc_member_fallback) { return o; }
template <typename O>
__CASSC_MEMBER_FN auto __cassc_members(O&& o) -> decltype(__cassc_members_of(o, __cassc_member_own{})) {
  return __cassc_members_of(o, __cassc_member_own{});
}
#undef __CASSC_MEMBER_FN
#endif
