// Device names: parsing TensorFlow-style device requests and placing nodes.
#pragma once

#include <string>

#include "tensorflux/core/status.h"

namespace tx {

// A parsed device request such as "/job:localhost/replica:0/task:0/device:CPU:0", "/cpu:0" or
// "/device:GPU:1". Empty fields mean "any".
struct DeviceSpec {
  std::string job;
  int replica = -1;
  int task = -1;
  std::string type;  // "CPU", "GPU" or "" (any)
  int id = -1;  // -1: any
};

// Parses a device string; "" yields an all-empty spec. InvalidArgument on malformed input.
Status ParseDeviceSpec(const std::string& name, DeviceSpec* out);

// The full name of the local CPU device.
inline const char* LocalCpuDeviceName() { return "/job:localhost/replica:0/task:0/device:CPU:0"; }

// Chooses the device type for a node's request: "CPU" in this build. A request for an absent
// device type is an error unless soft placement is allowed.
Status PlaceNode(const std::string& node_name, const std::string& requested, bool allow_soft_placement,
                 std::string* device_type);

}  // namespace tx
