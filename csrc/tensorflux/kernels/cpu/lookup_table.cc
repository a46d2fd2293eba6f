// CPU kernels of the lookup-table ops: HashTableV2 and MutableHashTableV2 make (or find) a table
// in the ResourceMgr and output a handle that refers to it; Find, Insert, Remove, Size, Export,
// Import and InitializeTableV2 work on the table behind their handle input (Note [Lookup tables]).
#include <mutex>
#include <string>
#include <type_traits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "tensorflux/core/tstring.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/resource_mgr.h"

// Note [Lookup tables]
// A table maps scalar keys (int32, int64 or string) to scalar values (int32, int64, float,
// double, string or bool). It lives in the ResourceMgr of the session or eager context under
// (container, shared_name) — the node's name when shared_name is empty, so each HashTableV2 node
// has one table per session as in TensorFlow — and the handle a table op outputs also holds a
// reference to it, so the other kernels need no lookup by name. As in TensorFlow:
//  - a HashTable is filled once, by LookupTableImportV2 or InitializeTableV2; filling it again
//    does nothing (TensorFlow's table initializers run on every init-op run), a key given twice
//    with two values is an error, Find before filling fails and Size is 0;
//  - a HashTable's Find uses the first element of default_value even when it holds one value
//    per key (TensorFlow's HashTable reads default_value(0)); a MutableHashTable's uses the
//    key's own default then;
//  - a MutableHashTable's Import replaces every entry; Insert and Remove change entries.
// Every access holds the table's mutex; Find reads under it on several threads.

namespace tx {
namespace cpu {
namespace {

class LookupTable : public RefCounted {
 public:
  LookupTable(DataType key_dtype, DataType value_dtype, bool is_mutable)
      : key_dtype(key_dtype), value_dtype(value_dtype), is_mutable(is_mutable) {}
  const DataType key_dtype;
  const DataType value_dtype;
  const bool is_mutable;
  std::mutex mu;
  bool initialized = false;  // hash tables: filled once (guarded by mu)

  // The methods below require mu. Keys (and values) are checked against the dtypes already.
  // out[i] = value of keys[i], else defaults[per_key_default ? i : 0].
  virtual void Find(const Tensor& keys, const Tensor& defaults, bool per_key_default, ThreadPool* pool,
                    Tensor* out) const = 0;
  // Adds the entries; a hash table refuses a key already present with another value.
  virtual Status Insert(const Tensor& keys, const Tensor& values) = 0;
  virtual void Remove(const Tensor& keys) = 0;
  virtual void Clear() = 0;
  virtual int64_t size() const = 0;
  // Writes every entry into `keys` and `values` (allocated with size() elements).
  virtual Status Export(Tensor* keys, Tensor* values) const = 0;

  std::string Describe() const {
    return StrCat(is_mutable ? "MutableHashTable" : "HashTable", " of ", DataTypeString(key_dtype), " to ",
                  DataTypeString(value_dtype));
  }
};

// How elements of type V sit in a tensor: strings as TString, everything else as itself.
template <typename V>
struct Elem {
  using Stored = V;
  static V Get(const V& e) { return e; }
  static bool Put(const V& v, V* e) {
    *e = v;
    return true;
  }
};
template <>
struct Elem<std::string> {
  using Stored = TString;
  static std::string Get(const TString& e) { return e.str(); }
  static bool Put(const std::string& v, TString* e) { return e->Assign(v); }
};

// Integer keys are kept as int64 whatever their tensor's width (int32 or int64); string keys are
// looked up as views of the tensor's strings (no copy) and stored once, in the table's key set.
template <typename K>
using KeyView = std::conditional_t<std::is_same_v<K, std::string>, std::string_view, K>;

template <typename K>
KeyView<K> KeyAt(const Tensor& t, int64_t i) {
  if constexpr (std::is_same_v<K, std::string>) {
    return t.data<TString>()[i].view();
  } else {
    return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
}
template <typename K>
bool PutKey(KeyView<K> k, Tensor* t, int64_t i) {
  if constexpr (std::is_same_v<K, std::string>) {
    return t->data<TString>()[i].Assign(k);
  } else {
    if (t->dtype() == DT_INT32)
      t->data<int32_t>()[i] = static_cast<int32_t>(k);
    else
      t->data<int64_t>()[i] = k;
    return true;
  }
}

template <typename K, typename V>
class TypedTable : public LookupTable {
  using E = Elem<V>;
  using S = typename E::Stored;
  static constexpr bool kStrings = std::is_same_v<K, std::string>;

 public:
  using LookupTable::LookupTable;

  void Find(const Tensor& keys, const Tensor& defaults, bool per_key_default, ThreadPool* pool,
            Tensor* out) const override {
    const S* def = defaults.data<S>();
    S* o = out->data<S>();
    ParallelRange(pool, keys.num_elements(), 64, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        auto it = map_.find(KeyAt<K>(keys, i));
        if (it != map_.end())
          E::Put(it->second, &o[i]);
        else
          o[i] = def[per_key_default ? i : 0];
      }
    });
  }

  Status Insert(const Tensor& keys, const Tensor& values) override {
    const S* v = values.data<S>();
    for (int64_t i = 0, n = keys.num_elements(); i < n; ++i) {
      KeyView<K> key = KeyAt<K>(keys, i);
      V value = E::Get(v[i]);
      auto it = map_.find(key);
      if (it != map_.end()) {
        if (is_mutable) {
          it->second = std::move(value);
        } else if (!(it->second == value)) {
          return FailedPrecondition("HashTable has different value for same key. Key ", key, " has ", it->second,
                                    " and trying to add value ", value);
        }
        continue;
      }
      if constexpr (kStrings) key = *key_store_.emplace(key).first;  // the map's key views the stored copy
      map_.emplace(key, std::move(value));
    }
    return Status::OK();
  }

  void Remove(const Tensor& keys) override {
    for (int64_t i = 0, n = keys.num_elements(); i < n; ++i) {
      auto it = map_.find(KeyAt<K>(keys, i));
      if (it == map_.end()) continue;
      const KeyView<K> key = it->first;
      map_.erase(it);
      if constexpr (kStrings) key_store_.erase(std::string(key));
    }
  }
  void Clear() override {
    map_.clear();
    key_store_.clear();
  }
  int64_t size() const override { return static_cast<int64_t>(map_.size()); }

  Status Export(Tensor* keys, Tensor* values) const override {
    S* v = values->data<S>();
    int64_t i = 0;
    for (const auto& [key, value] : map_) {
      if (!PutKey<K>(key, keys, i) || !E::Put(value, &v[i]))
        return ResourceExhausted("out of memory exporting a table");
      ++i;
    }
    return Status::OK();
  }

 private:
  std::unordered_map<KeyView<K>, V> map_;
  std::unordered_set<std::string> key_store_;  // string tables: the keys map_ views (node-stable)
};

template <typename K>
LookupTable* NewTableWithKey(DataType kd, DataType vd, bool is_mutable) {
  switch (vd) {
    case DT_INT32: return new TypedTable<K, int32_t>(kd, vd, is_mutable);
    case DT_INT64: return new TypedTable<K, int64_t>(kd, vd, is_mutable);
    case DT_FLOAT: return new TypedTable<K, float>(kd, vd, is_mutable);
    case DT_DOUBLE: return new TypedTable<K, double>(kd, vd, is_mutable);
    case DT_STRING: return new TypedTable<K, std::string>(kd, vd, is_mutable);
    case DT_BOOL: return new TypedTable<K, bool>(kd, vd, is_mutable);
    default: return nullptr;
  }
}

// A new empty table, or nullptr for an unsupported pair of dtypes.
LookupTable* NewTable(DataType kd, DataType vd, bool is_mutable) {
  switch (kd) {
    case DT_INT32:
    case DT_INT64: return NewTableWithKey<int64_t>(kd, vd, is_mutable);
    case DT_STRING: return NewTableWithKey<std::string>(kd, vd, is_mutable);
    default: return nullptr;
  }
}

// HashTableV2 / MutableHashTableV2: the table named by the attrs, made when absent.
class TableOp : public OpKernel {
 public:
  explicit TableOp(OpKernelConstruction* c) : OpKernel(c), is_mutable_(c->op_type() == "MutableHashTableV2") {
    std::string shared_name;
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &shared_name));
    c->SetStatus(c->GetAttr("key_dtype", &key_dtype_));
    c->SetStatus(c->GetAttr("value_dtype", &value_dtype_));
    name_ = shared_name.empty() ? c->name() : shared_name;
    if (c->status().ok()) {
      RefPtr<LookupTable> probe = RefPtr<LookupTable>::Adopt(NewTable(key_dtype_, value_dtype_, is_mutable_));
      if (!probe)
        c->SetStatus(InvalidArgument(c->op_type(), " cannot map ", DataTypeString(key_dtype_), " keys to ",
                                     DataTypeString(value_dtype_),
                                     " values: keys must be int32, int64 or string and values int32, int64, "
                                     "float, double, string or bool"));
    }
  }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override {
    if (ctx->resource_manager() == nullptr)
      return ctx->SetStatus(FailedPrecondition("lookup tables need a session or eager context (no resource manager)"));
    RefPtr<RefCounted> obj;
    TX_CTX_RETURN_IF_ERROR(ctx,
                           ctx->resource_manager()->LookupOrCreateResource(
                               container_, name_,
                               [&](RefPtr<RefCounted>* out) {
                                 *out = RefPtr<RefCounted>::Adopt(NewTable(key_dtype_, value_dtype_, is_mutable_));
                                 return Status::OK();
                               },
                               &obj));
    const auto* table = dynamic_cast<const LookupTable*>(obj.get());
    if (table == nullptr || table->key_dtype != key_dtype_ || table->value_dtype != value_dtype_ ||
        table->is_mutable != is_mutable_)
      return ctx->SetStatus(InvalidArgument("the resource ", name_, " already exists as ",
                                            table ? table->Describe() : "another kind of resource", ", not a ",
                                            is_mutable_ ? "MutableHashTable" : "HashTable", " of ",
                                            DataTypeString(key_dtype_), " to ", DataTypeString(value_dtype_)));
    ResourceHandle h;
    h.container = container_;
    h.name = name_;
    h.owned = std::move(obj);
    ctx->set_output(0, MakeResourceHandleTensor(std::move(h)));
  }

 private:
  const bool is_mutable_;
  std::string container_, name_;
  DataType key_dtype_ = DT_INVALID, value_dtype_ = DT_INVALID;
};

// Base of the kernels reading a table: the table behind input 0, checked against the dtypes the
// node declares for its keys (input `key_input`) and values.
class TableKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

 protected:
  Status GetTable(OpKernelContext* ctx, DataType keys, DataType values, LookupTable** out) const {
    const ResourceHandle* h = HandleFromTensor(ctx->input(0));
    *out = h == nullptr ? nullptr : dynamic_cast<LookupTable*>(h->owned.get());
    if (*out == nullptr)
      return InvalidArgument("input 0 is not a lookup table handle (made by HashTableV2 or MutableHashTableV2)");
    if ((keys != DT_INVALID && keys != (*out)->key_dtype) || (values != DT_INVALID && values != (*out)->value_dtype))
      return InvalidArgument("the table is a ", (*out)->Describe(), ", but this op has ",
                             keys == DT_INVALID ? "" : StrCat(DataTypeString(keys), " keys"),
                             keys != DT_INVALID && values != DT_INVALID ? " and " : "",
                             values == DT_INVALID ? "" : StrCat(DataTypeString(values), " values"));
    return Status::OK();
  }
};

class FindOp : public TableKernel {
 public:
  using TableKernel::TableKernel;
  void Compute(OpKernelContext* ctx) override {
    LookupTable* table;
    const Tensor& keys = ctx->input(1);
    const Tensor& defaults = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, GetTable(ctx, keys.dtype(), defaults.dtype(), &table));
    const bool per_key = defaults.rank() != 0;
    if (per_key && defaults.shape() != keys.shape())
      return ctx->SetStatus(InvalidArgument("Expected shape [] or ", keys.shape().ToString(),
                                            " for default value, got ", defaults.shape().ToString()));
    Tensor* out;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, keys.shape(), &out));
    std::lock_guard<std::mutex> l(table->mu);
    if (!table->is_mutable && !table->initialized)
      return ctx->SetStatus(FailedPrecondition("Table not initialized (run its initializer first)."));
    if (keys.num_elements() == 0) return;
    table->Find(keys, defaults, per_key && table->is_mutable, ctx->intra_op_pool(), out);
  }
};

// Checks a hash table's filling: a vector of keys and as many values.
Status CheckFill(const Tensor& keys, const Tensor& values) {
  if (keys.rank() != 1) return InvalidArgument("Keys must be a vector, but received shape ", keys.shape().ToString());
  if (keys.num_elements() != values.num_elements())
    return InvalidArgument("Keys and values must have the same size ", keys.num_elements(), " vs ",
                           values.num_elements());
  return Status::OK();
}

// Checks a mutable table's entries: one value per key.
Status CheckEntries(const Tensor& keys, const Tensor& values) {
  if (keys.shape() != values.shape())
    return InvalidArgument("Expected shape ", keys.shape().ToString(), " for value, got ", values.shape().ToString());
  return Status::OK();
}

// LookupTableImportV2 and InitializeTableV2 (hash tables only).
class FillOp : public TableKernel {
 public:
  explicit FillOp(OpKernelConstruction* c) : TableKernel(c), initialize_(c->op_type() == "InitializeTableV2") {}
  void Compute(OpKernelContext* ctx) override {
    LookupTable* table;
    const Tensor& keys = ctx->input(1);
    const Tensor& values = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, GetTable(ctx, keys.dtype(), values.dtype(), &table));
    if (table->is_mutable) {
      if (initialize_)
        return ctx->SetStatus(InvalidArgument("InitializeTableV2 fills a HashTable; the table is a ", table->Describe(),
                                              " (use LookupTableImportV2)"));
      TX_CTX_RETURN_IF_ERROR(ctx, CheckEntries(keys, values));
      std::lock_guard<std::mutex> l(table->mu);
      table->Clear();
      TX_CTX_RETURN_IF_ERROR(ctx, table->Insert(keys, values));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckFill(keys, values));
    std::lock_guard<std::mutex> l(table->mu);
    if (table->initialized) return;  // filled once (Note [Lookup tables])
    Status s = table->Insert(keys, values);
    if (!s.ok()) {
      table->Clear();
      return ctx->SetStatus(s);
    }
    table->initialized = true;
  }

 private:
  const bool initialize_;
};

// LookupTableInsertV2 and LookupTableRemoveV2 (mutable tables only).
class ChangeOp : public TableKernel {
 public:
  explicit ChangeOp(OpKernelConstruction* c) : TableKernel(c), insert_(c->op_type() == "LookupTableInsertV2") {}
  void Compute(OpKernelContext* ctx) override {
    LookupTable* table;
    const Tensor& keys = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, GetTable(ctx, keys.dtype(), insert_ ? ctx->input(2).dtype() : DT_INVALID, &table));
    if (!table->is_mutable)
      return ctx->SetStatus(Unimplemented(insert_ ? "Insert" : "Remove", " is not supported by a HashTable, which ",
                                          "is read-only once filled (use a MutableHashTable)"));
    if (insert_) TX_CTX_RETURN_IF_ERROR(ctx, CheckEntries(keys, ctx->input(2)));
    std::lock_guard<std::mutex> l(table->mu);
    if (insert_)
      TX_CTX_RETURN_IF_ERROR(ctx, table->Insert(keys, ctx->input(2)));
    else
      table->Remove(keys);
  }

 private:
  const bool insert_;
};

class SizeOp : public TableKernel {
 public:
  using TableKernel::TableKernel;
  void Compute(OpKernelContext* ctx) override {
    LookupTable* table;
    TX_CTX_RETURN_IF_ERROR(ctx, GetTable(ctx, DT_INVALID, DT_INVALID, &table));
    Tensor* out;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    std::lock_guard<std::mutex> l(table->mu);
    *out->data<int64_t>() = table->size();
  }
};

class ExportOp : public TableKernel {
 public:
  explicit ExportOp(OpKernelConstruction* c) : TableKernel(c) {
    c->SetStatus(c->GetAttr("Tkeys", &keys_));
    c->SetStatus(c->GetAttr("Tvalues", &values_));
  }
  void Compute(OpKernelContext* ctx) override {
    LookupTable* table;
    TX_CTX_RETURN_IF_ERROR(ctx, GetTable(ctx, keys_, values_, &table));
    std::lock_guard<std::mutex> l(table->mu);
    const TensorShape shape({table->size()});
    Tensor *keys, *values;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &keys));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, shape, &values));
    TX_CTX_RETURN_IF_ERROR(ctx, table->Export(keys, values));
  }

 private:
  DataType keys_ = DT_INVALID, values_ = DT_INVALID;
};

}  // namespace

TX_REGISTER_KERNEL(KernelDefBuilder("HashTableV2"), TableOp);
TX_REGISTER_KERNEL(KernelDefBuilder("MutableHashTableV2"), TableOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LookupTableFindV2"), FindOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LookupTableImportV2"), FillOp);
TX_REGISTER_KERNEL(KernelDefBuilder("InitializeTableV2"), FillOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LookupTableInsertV2"), ChangeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LookupTableRemoveV2"), ChangeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LookupTableSizeV2"), SizeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("LookupTableExportV2"), ExportOp);

}  // namespace cpu
}  // namespace tx
