/* Fuzz targets for the protobuf decoders: GraphDef import (with its FunctionDef library and
 * TensorProto attrs), FunctionDef import, and TensorProtos as the value of a Const. */
#include <stdlib.h>
#include <string.h>

#include <tensorflux/c/c_api.h>

#include "fuzz/targets.h"

/* Reads every attr of `op` back through the typed getters, as a client inspecting an imported
 * graph does; the values themselves are whatever the input said. */
static void read_attrs(TX_Operation* op, TX_Status* s) {
  int n = TX_OperationGetNumAttrs(op);
  for (int i = 0; i < n; ++i) {
    const char* name = TX_OperationGetAttrName(op, i, s);
    if (name == NULL) continue;
    TX_AttrMetadata m = TX_OperationGetAttrMetadata(op, name, s);
    if (TX_GetCode(s) != TX_OK) continue;
    if (m.type == TX_ATTR_TENSOR && !m.is_list) {
      TX_Tensor* t = NULL;
      TX_OperationGetAttrTensor(op, name, &t, s);
      TX_DeleteTensor(t);
    } else if (m.type == TX_ATTR_SHAPE && !m.is_list && m.total_size >= 0 && m.total_size <= 64) {
      int64_t dims[64];
      TX_OperationGetAttrShape(op, name, dims, (int)m.total_size, s);
    } else if (m.type == TX_ATTR_INT && m.is_list && m.list_size <= 64) {
      int64_t values[64];
      TX_OperationGetAttrIntList(op, name, values, 64, s);
    }
    TX_Buffer* b = TX_NewBuffer();
    TX_OperationGetAttrValueProto(op, name, b, s);
    TX_DeleteBuffer(b);
  }
}

int tx_fuzz_graphdef(const uint8_t* data, size_t size) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Buffer* b = TX_NewBufferFromString(data, size);
  TX_ImportGraphDefOptions* o = TX_NewImportGraphDefOptions();
  TX_GraphImportGraphDef(g, b, o, s);
  int ok = TX_GetCode(s) == TX_OK;
  if (ok) { /* round-trip what was accepted and read it back */
    TX_Buffer* out = TX_NewBuffer();
    TX_GraphToGraphDef(g, out, s);
    TX_DeleteBuffer(out);
    size_t pos = 0;
    TX_Operation* op;
    while ((op = TX_GraphNextOperation(g, &pos)) != NULL) {
      read_attrs(op, s);
      TX_Buffer* nd = TX_NewBuffer();
      TX_OperationToNodeDef(op, nd, s);
      TX_DeleteBuffer(nd);
    }
    TX_Function* funcs[16];
    int nf = TX_GraphGetFunctions(g, funcs, 16, s);
    for (int i = 0; i < nf; ++i) {
      TX_Buffer* fd = TX_NewBuffer();
      TX_FunctionToFunctionDef(funcs[i], fd, s);
      TX_DeleteBuffer(fd);
      TX_DeleteFunction(funcs[i]);
    }
  }
  TX_DeleteImportGraphDefOptions(o);
  TX_DeleteBuffer(b);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
  return ok;
}

int tx_fuzz_functiondef(const uint8_t* data, size_t size) {
  TX_Status* s = TX_NewStatus();
  TX_Function* f = TX_FunctionImportFunctionDef(data, size, s);
  int ok = f != NULL;
  if (f != NULL) {
    TX_Graph* g = TX_NewGraph();
    TX_GraphCopyFunction(g, f, NULL, s);
    TX_Buffer* out = TX_NewBuffer();
    TX_FunctionToFunctionDef(f, out, s);
    TX_DeleteBuffer(out);
    TX_DeleteGraph(g);
  }
  TX_DeleteFunction(f);
  TX_DeleteStatus(s);
  return ok;
}

/* ---- TensorProto: wrapped as GraphDef{node{name:"c" op:"Const" attr{"value": AttrValue{tensor:
 * <input>}} attr{"dtype": AttrValue{type: <the input's second byte>}}}} ---- */

static size_t put_varint(uint8_t* p, uint64_t v) {
  size_t k = 0;
  while (v >= 0x80) {
    p[k++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[k++] = (uint8_t)v;
  return k;
}

static size_t put_len(uint8_t* p, int field, size_t len) {
  size_t k = put_varint(p, (uint64_t)field << 3 | 2);
  return k + put_varint(p + k, len);
}

static size_t put_bytes(uint8_t* p, int field, const void* d, size_t n) {
  size_t k = put_len(p, field, n);
  memcpy(p + k, d, n);
  return k + n;
}

int tx_fuzz_tensorproto(const uint8_t* data, size_t size) {
  uint8_t scratch[32];
  /* AttrValue{tensor (field 8)}; map entry {key 1: "value", value 2: AttrValue} */
  size_t value_len = put_len(scratch, 8, size) + size;
  size_t entry_len = put_len(scratch, 1, 5) + 5 + put_len(scratch, 2, value_len) + value_len;
  uint8_t dtype_entry[16];
  size_t de = put_bytes(dtype_entry, 1, "dtype", 5);
  de += put_len(dtype_entry + de, 2, 2);
  dtype_entry[de++] = 6 << 3; /* AttrValue.type */
  dtype_entry[de++] = (uint8_t)(size > 1 ? data[1] & 0x7f : 1);
  size_t node_len = put_len(scratch, 1, 1) + 1 + put_len(scratch, 2, 5) + 5 + put_len(scratch, 5, entry_len) +
      entry_len + put_len(scratch, 5, de) + de;
  size_t total = put_len(scratch, 1, node_len) + node_len;
  uint8_t* buf = (uint8_t*)malloc(total);
  size_t k = put_len(buf, 1, node_len);
  k += put_bytes(buf + k, 1, "c", 1);
  k += put_bytes(buf + k, 2, "Const", 5);
  k += put_len(buf + k, 5, entry_len);
  k += put_bytes(buf + k, 1, "value", 5);
  k += put_len(buf + k, 2, value_len);
  k += put_bytes(buf + k, 8, data, size);
  k += put_bytes(buf + k, 5, dtype_entry, de);
  int ok = tx_fuzz_graphdef(buf, k);
  free(buf);
  return ok;
}
