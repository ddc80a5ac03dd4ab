/* cassc: libcu++'s standard library headers (<cuda/std/functional>, <cuda/std/type_traits>...) for HIP, which has
 * no libcu++: cuda::std names the host C++ library's std, whose header-only parts (type traits, function
 * objects, numeric limits, tuples, arrays...) clang's HIP compiles for the device as far as they are constexpr,
 * as libcu++'s are. What libcu++ has at every C++ standard and the host's std only from C++20 is defined here.
 * Names cassc defines in cuda::std itself (cuda_atomic.h's atomic) are found before the host's. */
#pragma once
#include <hip/hip_runtime.h>
#include <array>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <ratio>
#include <tuple>
#include <type_traits>
#include <utility>

namespace cuda {
namespace std {
using namespace ::std;
#if __cplusplus < 202002L
struct identity {
  template <class T>
  __host__ __device__ constexpr T&& operator()(T&& value) const noexcept {
    return static_cast<T&&>(value);
  }
  using is_transparent = void;
};
#endif
}  // namespace std
}  // namespace cuda
