// batch: elements stacked along a new first dimension.
#include "nodes.h"

namespace txd {

Status ReadBatch(Iterator* input, int64_t n, const char* what, Element* out, int64_t* count) {
  if (input->CanBatch()) return input->NextBatch(n, out, count);
  std::vector<Element> parts;
  Element e;
  while (static_cast<int64_t>(parts.size()) < n) {
    Status s = input->Next(&e);
    if (!s.ok()) return s;
    if (e.end) break;
    parts.push_back(std::move(e));
    e = Element{};
  }
  *count = static_cast<int64_t>(parts.size());
  out->components.clear();
  if (parts.empty()) {
    out->stamp = std::move(e.stamp);
    return Status{};
  }
  out->stamp = parts.back().stamp;
  for (size_t c = 0; c < parts[0].components.size(); ++c) {
    std::vector<const TX_Tensor*> column;
    column.reserve(parts.size());
    for (const Element& p : parts) column.push_back(p.components[c].get());
    Tensor stacked;
    Status s = Stack(column, what, &stacked);
    if (!s.ok()) return s;
    out->components.push_back(std::move(stacked));
  }
  return Status{};
}

namespace {

class BatchIterator : public Iterator {
 public:
  BatchIterator(std::unique_ptr<Iterator> input, int64_t size, bool drop, Place p)
      : input_(std::move(input)), size_(size), drop_(drop), place_(p) {}

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    int64_t count = 0;
    Status s = ReadBatch(input_.get(), size_, "batch", out, &count);
    if (!s.ok()) return s;
    out->end = count == 0 || (drop_ && count < size_);
    if (out->end) {
      out->components.clear();
    } else {
      place_.counters->elements.fetch_add(1, std::memory_order_relaxed);
    }
    return s;
  }

 private:
  std::unique_ptr<Iterator> input_;
  int64_t size_;
  bool drop_;
  Place place_;
};

}  // namespace

std::unique_ptr<Iterator> MakeBatch(std::unique_ptr<Iterator> input, int64_t size, bool drop, Place p) {
  return std::make_unique<BatchIterator>(std::move(input), size, drop, p);
}

}  // namespace txd
