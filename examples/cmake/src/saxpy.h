#pragma once

// y = a * x + y on the GPU; returns the CUDA error code.
int saxpy_on_device(float a, const float* x, float* y, int n);
