// Lookup tables (TensorFlow's OpDefs): HashTableV2 (filled once by LookupTableImportV2 or
// InitializeTableV2, then read-only) and MutableHashTableV2 (Insert/Remove/Import at any time),
// both scalar-valued, with Find, Size and Export. A table lives in the session's (or eager
// context's) ResourceMgr under its shared_name; its handle also refers to it directly.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Input 0 must be a scalar table handle.
Status CheckHandle(InferenceContext* c) {
  PartialShape h;
  return c->WithRank(c->input(0), 0, "table_handle", &h);
}

Status HandleOnly(InferenceContext* c) {
  TX_RETURN_IF_ERROR(CheckHandle(c));
  return shape_fns::NoOutputs(c);
}

// Find: one value per key, so the keys' shape.
Status FindShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(CheckHandle(c));
  c->set_output(0, c->input(1));
  return Status::OK();
}

// InitializeTableV2: vectors of keys and values of one length.
Status InitializeShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(CheckHandle(c));
  PartialShape keys, values, merged;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "keys", &keys));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "values", &values));
  TX_RETURN_IF_ERROR(keys.Merge(values, &merged).WithPrefix("keys and values must have the same size: "));
  return shape_fns::NoOutputs(c);
}

Status SizeShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(CheckHandle(c));
  c->set_output(0, PartialShape::Scalar());
  return Status::OK();
}

// Export: the keys and the values as vectors of the table's size.
Status ExportShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(CheckHandle(c));
  c->set_output(0, PartialShape({-1}));
  c->set_output(1, PartialShape({-1}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("HashTableV2")
    .Output("table_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Summary("A hash table, empty until LookupTableImportV2 or InitializeTableV2 fills it once; then read-only.");

TX_REGISTER_OP("MutableHashTableV2")
    .Output("table_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("use_node_name_sharing: bool = false")
    .Attr("key_dtype: type")
    .Attr("value_dtype: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Summary("An empty hash table whose entries LookupTableInsertV2/RemoveV2/ImportV2 change at any time.");

TX_REGISTER_OP("LookupTableFindV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Input("default_value: Tout")
    .Output("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(FindShape)
    .Summary("The value of each key, or default_value (a scalar, or one per key) where the key is absent.");

TX_REGISTER_OP("LookupTableInsertV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Input("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(HandleOnly)
    .Summary("Sets the value of each key (a mutable table's; values has the keys' shape).");

TX_REGISTER_OP("LookupTableRemoveV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Attr("Tin: type")
    .SetIsStateful()
    .SetShapeFn(HandleOnly)
    .Summary("Removes the keys from a mutable table (absent keys are ignored).");

TX_REGISTER_OP("LookupTableSizeV2")
    .Input("table_handle: resource")
    .Output("size: int64")
    .SetIsStateful()
    .SetShapeFn(SizeShape)
    .Summary("The number of entries in the table (0 for a hash table not yet filled).");

TX_REGISTER_OP("LookupTableExportV2")
    .Input("table_handle: resource")
    .Output("keys: Tkeys")
    .Output("values: Tvalues")
    .Attr("Tkeys: type")
    .Attr("Tvalues: type")
    .SetIsStateful()
    .SetShapeFn(ExportShape)
    .Summary("Every key of the table and its value, in an unspecified order.");

TX_REGISTER_OP("LookupTableImportV2")
    .Input("table_handle: resource")
    .Input("keys: Tin")
    .Input("values: Tout")
    .Attr("Tin: type")
    .Attr("Tout: type")
    .SetIsStateful()
    .SetShapeFn(HandleOnly)
    .Summary("Replaces a mutable table's entries, or fills a hash table (once; later imports do nothing).");

TX_REGISTER_OP("InitializeTableV2")
    .Input("table_handle: resource")
    .Input("keys: Tkey")
    .Input("values: Tval")
    .Attr("Tkey: type")
    .Attr("Tval: type")
    .SetIsStateful()
    .SetShapeFn(InitializeShape)
    .Summary("Fills a hash table from vectors of keys and values (once; later initializations do nothing).");

}  // namespace tx
