#include "tensorflux/runtime/device.h"

#include <cctype>
#include <cstdlib>
#include <vector>

namespace tx {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool ParseId(const std::string& s, int* out) {
  if (s == "*") {
    *out = -1;
    return true;
  }
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  *out = std::atoi(s.c_str());
  return true;
}

}  // namespace

Status ParseDeviceSpec(const std::string& name, DeviceSpec* out) {
  *out = DeviceSpec();
  if (name.empty()) return Status::OK();
  auto bad = [&] { return InvalidArgument("malformed device specification '", name, "'"); };
  if (name[0] != '/') return bad();
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string::npos) slash = name.size();
    parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  for (const std::string& p : parts) {
    size_t colon = p.find(':');
    if (colon == std::string::npos) return bad();
    std::string key = p.substr(0, colon), value = p.substr(colon + 1);
    if (key == "job") {
      out->job = value;
    } else if (key == "replica") {
      if (!ParseId(value, &out->replica)) return bad();
    } else if (key == "task") {
      if (!ParseId(value, &out->task)) return bad();
    } else if (key == "device") {
      size_t c2 = value.find(':');
      out->type = Upper(value.substr(0, c2));
      if (c2 != std::string::npos && !ParseId(value.substr(c2 + 1), &out->id)) return bad();
    } else if (Upper(key) == "CPU" || Upper(key) == "GPU") {
      out->type = Upper(key);
      if (!ParseId(value, &out->id)) return bad();
    } else {
      return bad();
    }
  }
  return Status::OK();
}

Status PlaceNode(const std::string& node_name, const std::string& requested, bool allow_soft_placement,
                 std::string* device_type) {
  DeviceSpec spec;
  TX_RETURN_IF_ERROR(ParseDeviceSpec(requested, &spec).WithPrefix("[" + node_name + "] "));
  bool cpu_ok = spec.type.empty() || (spec.type == "CPU" && spec.id <= 0);
  bool job_ok = spec.job.empty() || spec.job == "localhost";
  if ((!cpu_ok || !job_ok || spec.replica > 0 || spec.task > 0) && !allow_soft_placement)
    return InvalidArgument("[", node_name, "] cannot place the node on device '", requested, "': the only device is ",
                           LocalCpuDeviceName());
  *device_type = "CPU";
  return Status::OK();
}

}  // namespace tx
