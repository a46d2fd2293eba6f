// C API: graphs (static shapes, lookup, iteration, unique names), GraphDef/OpDef/VersionDef
// export and the op registry listing.
#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/framework/proto_wire.h"

namespace tx {
namespace capi {

Status CheckOutput(const Graph* graph, TX_Output out, const char* what) {
  if (out.oper == nullptr) return InvalidArgument(what, " has a NULL operation");
  const Node* n = ToNode(out.oper);
  if (graph != nullptr && n->graph() != graph) return InvalidArgument(Where(n), what, " belongs to another graph");
  if (out.index < 0 || out.index >= n->num_outputs())
    return OutOfRange(Where(n), what, " refers to output ", out.index, ", but the operation has ", n->num_outputs(),
                      " output", n->num_outputs() == 1 ? "" : "s");
  return Status::OK();
}

Status MakePartialShape(const int64_t* dims, int num_dims, PartialShape* out) {
  if (num_dims == -1) {
    *out = PartialShape::Unknown();
    return Status::OK();
  }
  if (num_dims < -1) return InvalidArgument("num_dims must be >= -1, got ", num_dims);
  if (num_dims > 0 && dims == nullptr) return InvalidArgument("dims is NULL but num_dims is ", num_dims);
  std::vector<int64_t> d(dims, dims + num_dims);
  for (int i = 0; i < num_dims; ++i)
    if (d[i] < -1) return InvalidArgument("dimension ", i, " must be >= -1 (-1 = unknown), got ", d[i]);
  *out = PartialShape(std::move(d));
  return Status::OK();
}

}  // namespace capi
}  // namespace tx

using namespace tx::capi;

namespace {

tx::Status NullGraph() { return tx::InvalidArgument("graph is NULL"); }

}  // namespace

extern "C" {

TX_Graph* TX_NewGraph(void) {
  return GuardValue<TX_Graph*>(nullptr, [] {
    auto g = std::make_unique<TX_Graph>();
    g->graph = std::make_shared<tx::Graph>();
    return g.release();
  });
}

void TX_DeleteGraph(TX_Graph* g) { delete g; }

void TX_GraphSetTensorShape(TX_Graph* graph, TX_Output output, const int64_t* dims, const int num_dims,
                            TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return NullGraph();
    TX_RETURN_IF_ERROR(CheckOutput(graph->graph.get(), output, "TX_Output"));
    tx::PartialShape shape;
    TX_RETURN_IF_ERROR(MakePartialShape(dims, num_dims, &shape).WithPrefix(Where(ToNode(output.oper))));
    return graph->graph->MergeOutputShape(tx::Endpoint{ToNode(output.oper), output.index}, shape);
  });
}

int TX_GraphGetTensorNumDims(TX_Graph* graph, TX_Output output, TX_Status* status) {
  int rank = -1;
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return NullGraph();
    TX_RETURN_IF_ERROR(CheckOutput(graph->graph.get(), output, "TX_Output"));
    rank = graph->graph->OutputShape(tx::Endpoint{ToNode(output.oper), output.index}).rank();
    return tx::Status::OK();
  });
  return rank;
}

void TX_GraphGetTensorShape(TX_Graph* graph, TX_Output output, int64_t* dims, int num_dims, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return NullGraph();
    TX_RETURN_IF_ERROR(CheckOutput(graph->graph.get(), output, "TX_Output"));
    tx::Node* n = ToNode(output.oper);
    tx::PartialShape shape = graph->graph->OutputShape(tx::Endpoint{n, output.index});
    if (num_dims != shape.rank())
      return tx::InvalidArgument(Where(n), "output ", output.index, " has rank ", shape.rank(), " (shape ",
                                 shape.ToString(), ") but num_dims is ", num_dims);
    if (num_dims > 0 && dims == nullptr) return tx::InvalidArgument(Where(n), "dims is NULL");
    for (int i = 0; i < num_dims; ++i) dims[i] = shape.dim(i);
    return tx::Status::OK();
  });
}

TX_Operation* TX_GraphOperationByName(TX_Graph* graph, const char* oper_name) {
  if (graph == nullptr || oper_name == nullptr) return nullptr;
  return GuardValue<TX_Operation*>(nullptr, [&] { return ToOper(graph->graph->FindNode(oper_name)); });
}

TX_Operation* TX_GraphNextOperation(TX_Graph* graph, size_t* pos) {
  if (graph == nullptr || pos == nullptr || *pos > static_cast<size_t>(INT32_MAX)) return nullptr;
  tx::Node* n = graph->graph->node(static_cast<int>(*pos));
  if (n == nullptr) return nullptr;
  ++*pos;
  return ToOper(n);
}

int TX_GraphNumOperations(TX_Graph* graph) { return graph == nullptr ? 0 : graph->graph->num_nodes(); }

const char* TX_GraphUniqueName(TX_Graph* graph, const char* base) {
  if (graph == nullptr || base == nullptr) return nullptr;
  return GuardValue<const char*>(nullptr, [&] {
    std::string name = graph->graph->UniqueName(base);
    std::lock_guard<std::mutex> l(graph->names_mu);
    graph->unique_names.push_back(std::move(name));
    return graph->unique_names.back().c_str();
  });
}

void TX_GraphToGraphDef(TX_Graph* graph, TX_Buffer* output_graph_def, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return NullGraph();
    std::string bytes;
    TX_RETURN_IF_ERROR(tx::ExportGraphDef(*graph->graph, &bytes));
    return FillBuffer(output_graph_def, bytes);
  });
}

void TX_GraphGetOpDef(TX_Graph* graph, const char* op_name, TX_Buffer* output_op_def, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return NullGraph();
    if (op_name == nullptr) return tx::InvalidArgument("op name is NULL");
    const tx::OpRegistration* reg = tx::OpRegistry::Global()->LookUp(op_name);
    if (reg == nullptr) return tx::NotFound("op type not registered: '", op_name, "'");
    return FillBuffer(output_op_def, tx::SerializeOpDef(reg->def));
  });
}

void TX_GraphVersions(TX_Graph* graph, TX_Buffer* output_version_def, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return NullGraph();
    // VersionDef: producer = 1, min_consumer = 2 (proto3: zero values are omitted).
    tx::wire::Writer w;
    if (graph->graph->producer_version() != 0) w.WriteInt32Field(1, graph->graph->producer_version());
    if (graph->graph->min_consumer_version() != 0) w.WriteInt32Field(2, graph->graph->min_consumer_version());
    return FillBuffer(output_version_def, w.data());
  });
}

TX_Buffer* TX_GetAllOpList(void) {
  return GuardValue<TX_Buffer*>(nullptr, [] {
    std::string bytes = tx::SerializeOpList(tx::OpRegistry::Global()->All());
    return TX_NewBufferFromString(bytes.data(), bytes.size());
  });
}

}  // extern "C"
