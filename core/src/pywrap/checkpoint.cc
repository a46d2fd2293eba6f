// Bindings for checkpoint files in the safetensors format: TX_SaveSafetensors and the
// TX_LoadSafetensors reader, with the GIL released during file I/O.
//
// Saved arrays are wrapped without copying (TX_NewTensor with a no-op deallocator): the arrays are
// kept alive in this call's frame and TX_SaveSafetensors reads them before returning. Loaded
// tensors become NumPy arrays that own them (TensorToNumpy without a copy).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common.h"

namespace txpy {
namespace {

using SafetensorsPtr = std::unique_ptr<TX_Safetensors, void (*)(TX_Safetensors*)>;

void KeepArrayMemory(void*, size_t, void*) {}

// Rejects strings the C API cannot carry (it takes NUL-terminated strings).
void CheckNoNul(const std::string& s, const char* what) {
  if (s.find('\0') != std::string::npos) ThrowValueError(std::string(what) + " must not contain NUL characters");
}

py::str Utf8(const char* s, size_t len) { return py::str(s, len); }

SafetensorsPtr Open(const std::string& path) {
  CheckNoNul(path, "the path");
  Status status;
  TX_Safetensors* st;
  {
    py::gil_scoped_release release;
    st = TX_LoadSafetensors(path.c_str(), status.get());
  }
  status.Check();
  return SafetensorsPtr(st, TX_DeleteSafetensors);
}

py::dict Metadata(const TX_Safetensors* st) {
  py::dict out;
  for (int i = 0; i < TX_SafetensorsNumMetadata(st); ++i) {
    size_t klen = 0, vlen = 0;
    const char* k = TX_SafetensorsMetadataKey(st, i, &klen);
    const char* v = TX_SafetensorsMetadataValue(st, i, &vlen);
    out[Utf8(k, klen)] = Utf8(v, vlen);
  }
  return out;
}

// `tensors`: a sequence of (TX_DataType, C-contiguous array of that dtype's item size);
// `metadata`: a sequence of (key, value) str pairs.
void Save(const py::bytes& path_bytes, const py::sequence& name_list, const py::sequence& tensors,
          const py::sequence& metadata_pairs) {
  const std::string path = path_bytes;
  CheckNoNul(path, "the path");
  std::vector<std::string> names;
  for (py::handle n : name_list) names.push_back(n.cast<std::string>());
  std::vector<std::pair<std::string, std::string>> metadata;
  for (py::handle kv : metadata_pairs) {
    py::tuple pair = kv.cast<py::tuple>();
    metadata.emplace_back(pair[0].cast<std::string>(), pair[1].cast<std::string>());
  }
  if (names.size() != static_cast<size_t>(py::len(tensors))) ThrowValueError("names and tensors differ in length");
  std::vector<py::array> arrays;  // keeps the wrapped memory alive until the save returns
  std::vector<std::unique_ptr<TX_Tensor, void (*)(TX_Tensor*)>> owned;
  std::vector<TX_Tensor*> ts;
  std::vector<const char*> name_ptrs, keys, values;
  for (size_t i = 0; i < names.size(); ++i) {
    CheckNoNul(names[i], "tensor names");
    py::tuple pair = tensors[i].cast<py::tuple>();
    auto dt = static_cast<TX_DataType>(pair[0].cast<int>());
    py::array a = py::array::ensure(pair[1], py::array::c_style);
    if (!a) throw py::error_already_set();
    if (TX_DataTypeSize(dt) == 0 || static_cast<size_t>(a.itemsize()) != TX_DataTypeSize(dt))
      ThrowTypeError("tensor '" + names[i] + "': array item size does not match its data type");
    std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
    TX_Tensor* t = TX_NewTensor(dt, dims.data(), static_cast<int>(dims.size()), const_cast<void*>(a.data()),
                                static_cast<size_t>(a.nbytes()), KeepArrayMemory, nullptr);
    if (t == nullptr) ThrowValueError("tensor '" + names[i] + "' could not be wrapped for saving");
    arrays.push_back(std::move(a));
    owned.emplace_back(t, TX_DeleteTensor);
    ts.push_back(t);
    name_ptrs.push_back(names[i].c_str());
  }
  for (const auto& [k, v] : metadata) {
    CheckNoNul(k, "metadata keys");
    CheckNoNul(v, "metadata values");
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  Status status;
  {
    py::gil_scoped_release release;
    TX_SaveSafetensors(path.c_str(), name_ptrs.data(), ts.data(), static_cast<int>(ts.size()), keys.data(),
                       values.data(), static_cast<int>(keys.size()), status.get());
  }
  status.Check();
}

// Returns ([(name, array), ...] in header order, {key: value}).
py::tuple Load(const py::bytes& path) {
  SafetensorsPtr st = Open(path);
  py::list tensors;
  for (int i = 0; i < TX_SafetensorsNumTensors(st.get()); ++i) {
    size_t len = 0;
    const char* name = TX_SafetensorsName(st.get(), i, &len);
    Status status;
    TX_Tensor* t;
    {
      py::gil_scoped_release release;
      t = TX_SafetensorsTensor(st.get(), i, status.get());
    }
    status.Check();
    tensors.append(py::make_tuple(Utf8(name, len), TensorToNumpy(t, /*copy=*/false)));
  }
  return py::make_tuple(tensors, Metadata(st.get()));
}

}  // namespace

void InitCheckpoint(py::module_& m) {
  m.def("save_safetensors", &Save, py::arg("path"), py::arg("names"), py::arg("tensors"), py::arg("metadata"),
        "Writes [(dtype enum, array)] under `names` and the metadata pairs to `path` (bytes) atomically.");
  m.def("load_safetensors", &Load, py::arg("path"),
        "Reads `path` (bytes): ([(name, array)] in header order, {key: value} metadata).");
  m.def(
      "load_safetensors_metadata", [](const py::bytes& path) { return Metadata(Open(path).get()); }, py::arg("path"),
      "Reads only the header of `path` (bytes) and returns its metadata.");
}

}  // namespace txpy
