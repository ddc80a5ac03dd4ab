/* cassc: NVIDIA's management library (nvml.h) over AMD's ROCm SMI (rocm_smi/rocm_smi.h, -lrocm_smi64).
 *
 * The queries programs make around a benchmark: init/shutdown, device count and handles, name, memory,
 * temperature, power, utilization, clocks, fan, driver version. Units are converted to NVML's (ROCm SMI
 * reports bytes, microwatts, millidegrees and Hz; NVML bytes, milliwatts, degrees and MHz). An NVML
 * function not here is not declared: cassc names it as a CUDA API without an AMD counterpart. Without
 * ROCm SMI installed, cassc stops at the #include with one line naming the package (packages.tsv). */
#pragma once
#include <rocm_smi/rocm_smi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef enum nvmlReturn_enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;  /* the ROCm SMI device index + 1 */
typedef struct nvmlMemory_st { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct nvmlUtilization_st { unsigned int gpu, memory; } nvmlUtilization_t;
typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef enum nvmlClockType_enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 } nvmlClockType_t;

#define NVML_DEVICE_NAME_BUFFER_SIZE 64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80

static inline nvmlReturn_t __cassc_nvml(rsmi_status_t status) {
  switch (status) {
    case RSMI_STATUS_SUCCESS: return NVML_SUCCESS;
    case RSMI_STATUS_INVALID_ARGS: return NVML_ERROR_INVALID_ARGUMENT;
    case RSMI_STATUS_NOT_SUPPORTED: case RSMI_STATUS_NOT_YET_IMPLEMENTED: return NVML_ERROR_NOT_SUPPORTED;
    case RSMI_STATUS_PERMISSION: return NVML_ERROR_NO_PERMISSION;
    case RSMI_STATUS_NOT_FOUND: return NVML_ERROR_NOT_FOUND;
    case RSMI_STATUS_INSUFFICIENT_SIZE: return NVML_ERROR_INSUFFICIENT_SIZE;
    case RSMI_STATUS_INIT_ERROR: return NVML_ERROR_DRIVER_NOT_LOADED;  /* no amdgpu driver (or GPU) */
    default: return NVML_ERROR_UNKNOWN;
  }
}
static inline uint32_t __cassc_nvml_index(nvmlDevice_t device) { return (uint32_t)((uintptr_t)device - 1); }

static inline nvmlReturn_t nvmlInit(void) { return __cassc_nvml(rsmi_init(0)); }
static inline nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; return nvmlInit(); }
static inline nvmlReturn_t nvmlShutdown(void) { return __cassc_nvml(rsmi_shut_down()); }
static inline const char *nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}
static inline nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) {
  uint32_t n = 0;
  rsmi_status_t status = rsmi_num_monitor_devices(&n);
  if (count) *count = n;
  return __cassc_nvml(status);
}
static inline nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
  unsigned int count = 0;
  nvmlReturn_t result = nvmlDeviceGetCount(&count);
  if (result != NVML_SUCCESS) return result;
  if (!device || index >= count) return NVML_ERROR_INVALID_ARGUMENT;
  *device = (nvmlDevice_t)(uintptr_t)(index + 1);
  return NVML_SUCCESS;
}
static inline nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
  if (!index) return NVML_ERROR_INVALID_ARGUMENT;
  *index = __cassc_nvml_index(device);
  return NVML_SUCCESS;
}
static inline nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
  return __cassc_nvml(rsmi_dev_name_get(__cassc_nvml_index(device), name, length));
}
static inline nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
  uint64_t total = 0, used = 0;
  uint32_t index = __cassc_nvml_index(device);
  rsmi_status_t status = rsmi_dev_memory_total_get(index, RSMI_MEM_TYPE_VRAM, &total);
  if (status == RSMI_STATUS_SUCCESS) status = rsmi_dev_memory_usage_get(index, RSMI_MEM_TYPE_VRAM, &used);
  if (status == RSMI_STATUS_SUCCESS && memory) {
    memory->total = total;
    memory->used = used;
    memory->free = total - used;
  }
  return memory ? __cassc_nvml(status) : NVML_ERROR_INVALID_ARGUMENT;
}
static inline nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                                    unsigned int *temperature) {
  int64_t millidegrees = 0;
  if (sensor != NVML_TEMPERATURE_GPU || !temperature) return NVML_ERROR_INVALID_ARGUMENT;
  rsmi_status_t status = rsmi_dev_temp_metric_get(__cassc_nvml_index(device), RSMI_TEMP_TYPE_EDGE,
                                                  RSMI_TEMP_CURRENT, &millidegrees);
  *temperature = (unsigned int)(millidegrees / 1000);
  return __cassc_nvml(status);
}
static inline nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *milliwatts) {
  uint64_t microwatts = 0;
  if (!milliwatts) return NVML_ERROR_INVALID_ARGUMENT;
  rsmi_status_t status = rsmi_dev_power_ave_get(__cassc_nvml_index(device), 0, &microwatts);
  *milliwatts = (unsigned int)(microwatts / 1000);
  return __cassc_nvml(status);
}
static inline nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *milliwatts) {
  uint64_t microwatts = 0;
  if (!milliwatts) return NVML_ERROR_INVALID_ARGUMENT;
  rsmi_status_t status = rsmi_dev_power_cap_get(__cassc_nvml_index(device), 0, &microwatts);
  *milliwatts = (unsigned int)(microwatts / 1000);
  return __cassc_nvml(status);
}
static inline nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *milliwatts) {
  return nvmlDeviceGetEnforcedPowerLimit(device, milliwatts);
}
static inline nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
  uint32_t gpu = 0, memory = 0;
  uint32_t index = __cassc_nvml_index(device);
  if (!utilization) return NVML_ERROR_INVALID_ARGUMENT;
  rsmi_status_t status = rsmi_dev_busy_percent_get(index, &gpu);
  if (status == RSMI_STATUS_SUCCESS) status = rsmi_dev_memory_busy_percent_get(index, &memory);
  utilization->gpu = gpu;
  utilization->memory = memory;
  return __cassc_nvml(status);
}
/* The clock's supported frequencies (Hz) and the current one's index, as ROCm SMI reports them. */
static inline rsmi_status_t __cassc_nvml_frequencies(nvmlDevice_t device, nvmlClockType_t type,
                                                     rsmi_frequencies_t *frequencies) {
  memset(frequencies, 0, sizeof *frequencies);
  return rsmi_dev_gpu_clk_freq_get(__cassc_nvml_index(device),
                                   type == NVML_CLOCK_MEM ? RSMI_CLK_TYPE_MEM : RSMI_CLK_TYPE_SYS, frequencies);
}
static inline nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *mhz) {
  rsmi_frequencies_t frequencies;
  if (!mhz) return NVML_ERROR_INVALID_ARGUMENT;
  rsmi_status_t status = __cassc_nvml_frequencies(device, type, &frequencies);
  if (status == RSMI_STATUS_SUCCESS && frequencies.current >= frequencies.num_supported) status = RSMI_STATUS_UNEXPECTED_DATA;
  *mhz = status == RSMI_STATUS_SUCCESS ? (unsigned int)(frequencies.frequency[frequencies.current] / 1000000) : 0;
  return __cassc_nvml(status);
}
static inline nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *mhz) {
  rsmi_frequencies_t frequencies;
  if (!mhz) return NVML_ERROR_INVALID_ARGUMENT;
  rsmi_status_t status = __cassc_nvml_frequencies(device, type, &frequencies);
  uint64_t highest = 0;
  for (uint32_t i = 0; i < frequencies.num_supported && i < RSMI_MAX_NUM_FREQUENCIES; ++i)
    highest = frequencies.frequency[i] > highest ? frequencies.frequency[i] : highest;
  *mhz = (unsigned int)(highest / 1000000);
  return __cassc_nvml(status);
}
static inline nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *percent) {
  int64_t speed = 0;
  if (!percent) return NVML_ERROR_INVALID_ARGUMENT;
  rsmi_status_t status = rsmi_dev_fan_speed_get(__cassc_nvml_index(device), 0, &speed);
  *percent = (unsigned int)(speed * 100 / RSMI_MAX_FAN_SPEED);
  return __cassc_nvml(status);
}
static inline nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  return __cassc_nvml(rsmi_version_str_get(RSMI_SW_COMP_DRIVER, version, length));
}

/* nvml.h's versioned names */
#define nvmlInit_v2 nvmlInit
#define nvmlDeviceGetCount_v2 nvmlDeviceGetCount
#define nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetHandleByIndex
