/* cassc: <curand.h> -> hipRAND, plus the cuRAND host API that hipRAND lacks. */
#pragma once
#include <hiprand/hiprand.h>

/* Generator ordering only chooses how cuRAND lays results out in memory; hipRAND has one layout,
 * which is what the pseudo-random defaults mean. Other orderings are reported as unsupported. */
typedef enum curandOrdering {
  CURAND_ORDERING_PSEUDO_BEST = 100,
  CURAND_ORDERING_PSEUDO_DEFAULT = 101,
  CURAND_ORDERING_PSEUDO_SEEDED = 102,
  CURAND_ORDERING_PSEUDO_LEGACY = 103,
  CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
  CURAND_ORDERING_QUASI_DEFAULT = 201
} curandOrdering_t;

static inline hiprandStatus_t curandSetGeneratorOrdering(hiprandGenerator_t, curandOrdering_t order) {
  switch (order) {
    case CURAND_ORDERING_PSEUDO_BEST:
    case CURAND_ORDERING_PSEUDO_DEFAULT:
    case CURAND_ORDERING_PSEUDO_LEGACY:
    case CURAND_ORDERING_QUASI_DEFAULT:
      return HIPRAND_STATUS_SUCCESS;
    default:
      return HIPRAND_STATUS_NOT_IMPLEMENTED;
  }
}
