/* cassc: cuSOLVER's headers -> hipSOLVER, plus cuSOLVER's status codes hipSOLVER lacks, each under a number no
 * hipSOLVER status has (hipSOLVER never returns them; its enumerators end at 13, so 14 and 15 are in the type's
 * range): helper headers (NVIDIA's samples' helper_cuda.h) name every status in a switch. */
#pragma once
#include <hipsolver/hipsolver.h>
#define CUSOLVER_STATUS_INVALID_LICENSE ((hipsolverStatus_t)15)
