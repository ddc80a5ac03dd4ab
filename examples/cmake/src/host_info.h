#pragma once

// Host-only code: how many CUDA devices there are (0 and a message when there are none).
int count_devices();
// Whether cuRAND and cuSPARSE handles can be created (they need a device).
bool libraries_available();
