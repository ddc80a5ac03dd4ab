#pragma once

// Defined in device_math.cu: callers need relocatable device code and a device link.
__device__ float scale_add(float a, float x, float y);
