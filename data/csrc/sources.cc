// Sources of known size: slices of arrays and ranges, both cut a whole batch at once.
#include <cstring>

#include "nodes.h"

namespace txd {
namespace {

// The shared part of the random-access sources: the position and the stamp.
class IndexIterator : public Iterator {
 public:
  IndexIterator(int64_t size, int64_t index, Place p) : size_(size), index_(index), place_(p) {}

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    int64_t count = 0;
    Status s = Produce(1, /*stacked=*/false, out, &count);
    out->end = s.ok() && count == 0;
    return s;
  }

  bool CanBatch() const override { return true; }

  Status NextBatch(int64_t n, Element* out, int64_t* count) override {
    Timed timed(place_.counters);
    return Produce(n, /*stacked=*/true, out, count);
  }

 protected:
  // Row `i` (or rows [i, i + n) stacked) of component `c` as a tensor.
  virtual Status Rows(int64_t i, int64_t n, bool stacked, std::vector<Tensor>* out) = 0;

 private:
  Status Produce(int64_t n, bool stacked, Element* out, int64_t* count) {
    int64_t k = std::min(n, size_ - index_);
    if (k < 0) k = 0;
    out->components.clear();
    if (k > 0) {
      Status s = Rows(index_, k, stacked, &out->components);
      if (!s.ok()) return s;
    }
    index_ += k;
    *count = k;
    place_.counters->elements.fetch_add(k, std::memory_order_relaxed);
    out->stamp.assign(static_cast<size_t>(place_.stamp_size), 0);
    out->stamp[static_cast<size_t>(place_.slot)] = index_;
    return Status{};
  }

  int64_t size_, index_;
  Place place_;
};

class SlicesIterator : public IndexIterator {
 public:
  SlicesIterator(std::vector<ArrayComponent> components, int64_t size, int64_t index, Place p)
      : IndexIterator(size, index, p), components_(std::move(components)) {
    for (const auto& c : components_) row_bytes_.push_back(api.TX_DataTypeSize(c.dtype) * NumElements(c.dims));
  }

 protected:
  Status Rows(int64_t i, int64_t n, bool stacked, std::vector<Tensor>* out) override {
    for (size_t c = 0; c < components_.size(); ++c) {
      const ArrayComponent& comp = components_[c];
      std::vector<int64_t> dims = comp.dims;
      if (stacked) dims.insert(dims.begin(), n);
      size_t bytes = static_cast<size_t>(row_bytes_[c] * n);
      const char* src = comp.data + row_bytes_[c] * i;
      // A copy: elements outlive the pipeline, whose arrays the caller keeps only while it runs.
      TX_Tensor* t = api.TX_AllocateTensor(comp.dtype, dims.data(), static_cast<int>(dims.size()), bytes);
      if (t != nullptr && bytes > 0) std::memcpy(api.TX_TensorData(t), src, bytes);
      if (t == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, "from_tensor_slices: cannot make a tensor");
      out->emplace_back(t);
    }
    return Status{};
  }

 private:
  std::vector<ArrayComponent> components_;
  std::vector<int64_t> row_bytes_;
};

class RangeIterator : public IndexIterator {
 public:
  RangeIterator(int64_t start, int64_t step, int64_t size, TX_DataType dtype, int64_t index, Place p)
      : IndexIterator(size, index, p), start_(start), step_(step), dtype_(dtype) {}

 protected:
  Status Rows(int64_t i, int64_t n, bool stacked, std::vector<Tensor>* out) override {
    int64_t dim = n;
    size_t width = api.TX_DataTypeSize(dtype_);
    TX_Tensor* t = api.TX_AllocateTensor(dtype_, &dim, stacked ? 1 : 0, width * static_cast<size_t>(n));
    if (t == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, "range: cannot make a tensor");
    void* data = api.TX_TensorData(t);
    for (int64_t j = 0; j < n; ++j) {
      int64_t v = start_ + (i + j) * step_;
      if (dtype_ == TX_INT32) {
        static_cast<int32_t*>(data)[j] = static_cast<int32_t>(v);
      } else {
        static_cast<int64_t*>(data)[j] = v;
      }
    }
    out->emplace_back(t);
    return Status{};
  }

 private:
  int64_t start_, step_;
  TX_DataType dtype_;
};

}  // namespace

std::unique_ptr<Iterator> MakeSlices(std::vector<ArrayComponent> components, int64_t size, int64_t index, Place p) {
  return std::make_unique<SlicesIterator>(std::move(components), size, index, p);
}

std::unique_ptr<Iterator> MakeRange(int64_t start, int64_t step, int64_t size, TX_DataType dtype, int64_t index,
                                    Place p) {
  return std::make_unique<RangeIterator>(start, step, size, dtype, index, p);
}

}  // namespace txd
