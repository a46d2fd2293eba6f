// Tests of ImportGraphDef / ExportGraphDef: round trips, node order, errors, options, versions,
// all-or-nothing rollback and robustness against malformed bytes. Uses test-only ops.
#include <cstring>
#include <random>

#include "test_util.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/framework/graph_def_io.h"
#include "tensorflux/framework/proto_codec.h"
#include "tensorflux/framework/shape_inference.h"

using namespace tx;
using codec::NodeDefProto;

namespace {

Status TestConstShape(InferenceContext* c) {
  Tensor t;
  TX_RETURN_IF_ERROR(c->GetAttr("value", &t));
  c->set_output(0, PartialShape(t.shape()));
  return Status::OK();
}

Status TestShapeAttr(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->GetAttr("shape", &s));
  c->set_output(0, s);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("CodecTestConst")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(TestConstShape);
TX_REGISTER_OP("CodecTestInput")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(TestShapeAttr);
TX_REGISTER_OP("CodecTestAdd")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {float, double, int32}")
    .SetShapeFn(shape_fns::BroadcastBinaryOp);
TX_REGISTER_OP("CodecTestN").Input("values: N * T").Output("sum: T").Attr("N: int >= 1").Attr("T: type");
TX_REGISTER_OP("CodecTestList").Input("xs: Tlist").Output("ys: Tlist").Attr("Tlist: list(type) >= 0");
TX_REGISTER_OP("CodecTestSplit").Input("x: T").Output("parts: num * T").Attr("num: int >= 1").Attr("T: type");
TX_REGISTER_OP("CodecTestNoOp").SetShapeFn(shape_fns::NoOutputs);
TX_REGISTER_OP("CodecTestAttrs")
    .Attr("s: string = 'abc'")
    .Attr("i: int = 3")
    .Attr("f: float = 0.5")
    .Attr("b: bool = true")
    .Attr("t: type = DT_INT64")
    .Attr("sh: shape = [2, -1]")
    .Attr("ls: list(string) = []")
    .Attr("li: list(int) = [1, 2]")
    .Attr("lf: list(float) = []")
    .Attr("lb: list(bool) = []")
    .Attr("lt: list(type) = []")
    .Attr("lsh: list(shape) = []")
    .Attr("tens: tensor")
    .Attr("fn: func")
    .Attr("lfn: list(func)")
    .Attr("lten: list(tensor)");

namespace {

Tensor F32(std::vector<float> v, TensorShape shape) {
  Tensor t;
  if (!Tensor::Allocate(DT_FLOAT, shape, &t).ok()) return t;
  std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(float));
  return t;
}

Node* Add(Graph& g, NodeSpec spec) {
  Node* n = nullptr;
  Status s = g.AddNode(std::move(spec), &n);
  if (!s.ok()) std::printf("  AddNode failed: %s\n", s.message().c_str());
  return n;
}

Node* Const(Graph& g, const std::string& name, Tensor t) {
  NodeSpec s;
  s.name = name;
  s.op_type = "CodecTestConst";
  s.attrs["value"] = AttrValue::FromTensor(t);
  s.attrs["dtype"] = AttrValue::Type(t.dtype());
  return Add(g, std::move(s));
}

NodeSpec::InputArg In(std::vector<Endpoint> v, bool is_list = false) {
  return NodeSpec::InputArg{std::move(v), is_list};
}

// A graph exercising every input and attr form: lists, multiple outputs, control edges, devices.
void BuildSample(Graph& g) {
  Node* a = Const(g, "a", F32({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})));
  Node* b = Const(g, "scope/b", F32({10, 20, 30}, TensorShape({3})));
  NodeSpec in;
  in.name = "x";
  in.op_type = "CodecTestInput";
  in.attrs["dtype"] = AttrValue::Type(DT_FLOAT);
  in.attrs["shape"] = AttrValue::Shape(PartialShape({-1, 3}));
  in.attrs["_output_shapes"] = AttrValue::EmptyList();
  in.attrs["_output_shapes"].list.shape = {PartialShape({-1, 3})};
  Node* x = Add(g, std::move(in));
  NodeSpec add;
  add.name = "scope/add";
  add.op_type = "CodecTestAdd";
  add.device = "/device:CPU:0";
  add.inputs = {In({{a, 0}}), In({{b, 0}})};
  Node* sum = Add(g, std::move(add));
  NodeSpec split;
  split.name = "split";
  split.op_type = "CodecTestSplit";
  split.attrs["num"] = AttrValue::Int(3);
  split.inputs = {In({{sum, 0}})};
  Node* sp = Add(g, std::move(split));
  NodeSpec n;
  n.name = "n";
  n.op_type = "CodecTestN";
  n.inputs = {In({{sp, 2}, {sp, 0}, {x, 0}}, true)};
  n.control_inputs = {b};
  Node* nn = Add(g, std::move(n));
  NodeSpec list;
  list.name = "list";
  list.op_type = "CodecTestList";
  list.inputs = {In({{nn, 0}, {sp, 1}}, true)};
  Node* ln = Add(g, std::move(list));
  NodeSpec attrs;
  attrs.name = "attrs";
  attrs.op_type = "CodecTestAttrs";
  attrs.attrs["tens"] = AttrValue::FromTensor(F32({7}, TensorShape({})));
  attrs.attrs["fn"].kind = AttrValue::Kind::kFunc;
  attrs.attrs["fn"].func = std::make_shared<NameAttrList>();
  attrs.attrs["fn"].func->name = "f";
  attrs.attrs["fn"].func->attr["T"] = AttrValue::Type(DT_FLOAT);
  attrs.attrs["lfn"] = AttrValue::EmptyList();
  attrs.attrs["lten"] = AttrValue::EmptyList();
  attrs.attrs["lten"].list.tensor = {F32({1, 2}, TensorShape({2}))};
  attrs.attrs["_class"] = AttrValue::EmptyList();
  attrs.attrs["_class"].list.s = {"loc:@a"};
  attrs.control_inputs = {ln, a};
  Add(g, std::move(attrs));
}

// Checks that `b` holds `a`'s nodes under `prefix`, with the same ops, attrs and edges.
bool SameGraph(const Graph& a, const Graph& b, const std::string& prefix) {
  bool ok = a.num_nodes() == b.num_nodes();
  for (const Node* n : a.Nodes()) {
    const Node* m = b.FindNode(prefix + n->name());
    if (m == nullptr) {
      std::printf("  missing node %s\n", (prefix + n->name()).c_str());
      return false;
    }
    ok = ok && m->op_type() == n->op_type() && m->requested_device() == n->requested_device();
    ok = ok && m->attrs().size() == n->attrs().size() && m->num_inputs() == n->num_inputs();
    for (const auto& kv : n->attrs()) {
      const AttrValue* v = m->attr(kv.first);
      bool same = v != nullptr && (kv.first == "_class" ? v->kind == kv.second.kind : v->Equals(kv.second));
      if (!same) std::printf("  attr %s of %s differs\n", kv.first.c_str(), n->name().c_str());
      ok = ok && same;
    }
    for (int i = 0; ok && i < n->num_inputs(); ++i)
      ok = m->input(i).node->name() == prefix + n->input(i).node->name() && m->input(i).index == n->input(i).index;
    ok = ok && m->control_inputs().size() == n->control_inputs().size();
    for (size_t i = 0; ok && i < n->control_inputs().size(); ++i)
      ok = m->control_inputs()[i]->name() == prefix + n->control_inputs()[i]->name();
    for (int k = 0; ok && k < n->num_outputs(); ++k)
      ok = a.OutputShape({const_cast<Node*>(n), k}) == b.OutputShape({const_cast<Node*>(m), k});
  }
  return ok;
}

NodeDefProto ND(std::string name, std::string op, std::vector<std::string> inputs = {}, AttrMap attrs = {}) {
  NodeDefProto n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.input = std::move(inputs);
  n.attr = std::move(attrs);
  return n;
}

NodeDefProto ConstND(const std::string& name, float v) {
  return ND(name, "CodecTestConst", {},
            {{"value", AttrValue::FromTensor(F32({v}, TensorShape({1})))}, {"dtype", AttrValue::Type(DT_FLOAT)}});
}

NodeDefProto AddND(const std::string& name, const std::string& x, const std::string& y) {
  return ND(name, "CodecTestAdd", {x, y}, {{"T", AttrValue::Type(DT_FLOAT)}});
}

std::string GraphDefBytes(std::vector<NodeDefProto> nodes, int producer = kGraphDefVersion, std::string library = "") {
  codec::GraphDefProto g;
  g.node = std::move(nodes);
  g.versions.producer = producer;
  g.library = std::move(library);
  return codec::EncodeGraphDef(g);
}

Status Import(const std::string& bytes, Graph* g, ImportOptions opts = {}, ImportResults* r = nullptr) {
  return ImportGraphDef(bytes, opts, g, r);
}

std::string Export(const Graph& g) {
  std::string s;
  Status st = ExportGraphDef(g, &s);
  if (!st.ok()) std::printf("  export failed: %s\n", st.message().c_str());
  return s;
}

// A FunctionDefLibrary holding one function named `name`.
std::string Library(const std::string& name) {
  wire::Writer sig, fdef, lib;
  sig.WriteBytesField(1, name);
  fdef.WriteBytesField(1, sig.data());
  lib.WriteBytesField(1, fdef.data());
  return lib.Release();
}

}  // namespace

TEST(GraphDefRoundTripWithPrefix) {
  Graph g;
  BuildSample(g);
  EXPECT_EQ(g.num_nodes(), 8);
  const std::string bytes = Export(g);
  Graph h;
  ImportOptions opts;
  opts.prefix = "imported";
  EXPECT_OK(Import(bytes, &h, opts));
  EXPECT_TRUE(SameGraph(g, h, "imported/"));
  // Colocation constraints follow the prefix.
  const Node* attrs = h.FindNode("imported/attrs");
  EXPECT_TRUE(attrs && attrs->attr("_class")->list.s == std::vector<std::string>({"loc:@imported/a"}));
  // Without a prefix, export(import(bytes)) reproduces the bytes exactly.
  Graph k;
  EXPECT_OK(Import(bytes, &k));
  EXPECT_TRUE(SameGraph(g, k, ""));
  EXPECT_EQ(Export(k), bytes);
  // Inputs are written as "name", "name:k" and "^name" (control inputs last).
  codec::GraphDefProto gd;
  EXPECT_OK(codec::DecodeGraphDef(bytes, &gd));
  EXPECT_TRUE(gd.node.size() == 8 && gd.node[5].name == "n");
  if (gd.node.size() == 8) {
    EXPECT_TRUE(gd.node[5].input == std::vector<std::string>({"split:2", "split", "x", "^scope/b"}));
    EXPECT_TRUE(gd.node[3].device == "/device:CPU:0");
    EXPECT_TRUE(gd.node[7].attr.count("s") && gd.node[7].attr["s"].s == "abc");  // defaults are exported
  }
  EXPECT_TRUE(gd.has_versions && gd.versions.producer == kGraphDefVersion);
  // ExportNodeDef matches the node inside the GraphDef.
  std::string node_bytes;
  EXPECT_OK(ExportNodeDef(*g.FindNode("n"), &node_bytes));
  wire::Writer w;
  codec::EncodeNodeDef(gd.node[5], &w);
  EXPECT_EQ(node_bytes, w.data());
}

TEST(NodesMayComeInAnyOrder) {
  Graph g;
  EXPECT_OK(Import(GraphDefBytes({AddND("sum2", "sum", "c"), AddND("sum", "a", "b"), ConstND("c", 3), ConstND("b", 2),
                                  ConstND("a", 1)}),
                   &g));
  EXPECT_EQ(g.num_nodes(), 5);
  for (const Node* n : g.Nodes())
    for (const Endpoint& e : n->inputs()) EXPECT_TRUE(e.node->id() < n->id());
  EXPECT_TRUE(g.FindNode("sum2") && g.FindNode("sum2")->input(0).node->name() == "sum");
}

TEST(ImportErrorsNameTheNode) {
  Graph g;
  EXPECT_ERROR(Import(GraphDefBytes({AddND("p", "q", "c"), AddND("q", "p", "c"), ConstND("c", 1)}), &g),
               "graph contains a cycle involving node '");
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("c", 1), AddND("self", "self", "c")}), &g),
               "graph contains a cycle involving node 'self'");
  Status s = Import(GraphDefBytes({ND("f", "Foo")}), &g);
  EXPECT_TRUE(s.code() == Code::kNotFound);
  EXPECT_ERROR(s, "[f] op type not registered: 'Foo'");
  s = Import(GraphDefBytes({ND("call", "MyFunc")}, kGraphDefVersion, Library("MyFunc")), &g);
  EXPECT_TRUE(s.code() == Code::kUnimplemented);
  EXPECT_ERROR(s,
               "[call] op 'MyFunc' is a function of the library; a node calling a function directly by its name is "
               "not supported (call it through PartitionedCall or StatefulPartitionedCall)");
  EXPECT_TRUE(g.library().size() == 0);  // the failed import took its functions out again
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("c", 1), AddND("b", "foo:1", "c")}), &g),
               "[b] input 'foo:1' refers to unknown node 'foo'");
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("c", 1), ConstND("d", 1), AddND("b", "^d", "c")}), &g),
               "[b] data input 'c' follows a control input");
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("c", 1), AddND("b", "c:1", "c")}), &g),
               "[b] input 'x' refers to output 1 of 'c'");
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("c", 1), AddND("b", "c:x", "c")}), &g), "[b] has a malformed input 'c:x'");
  EXPECT_ERROR(
      Import(GraphDefBytes({ConstND("c", 1), ND("b", "CodecTestAdd", {"c"}, {{"T", AttrValue::Type(DT_FLOAT)}})}), &g),
      "[b] op CodecTestAdd expects 2 data inputs (x, y) but the NodeDef has 1");
  EXPECT_ERROR(
      Import(GraphDefBytes({ConstND("c", 1), ND("n", "CodecTestN", {"c", "c"}, {{"T", AttrValue::Type(DT_FLOAT)}})}),
             &g),
      "[n] int attr 'N' (the length of input 'values') is missing");
  EXPECT_ERROR(
      Import(GraphDefBytes({ConstND("c", 1), ND("n", "CodecTestN", {"c", "c"}, {{"N", AttrValue::Int(3)}})}), &g),
      "[n] op CodecTestN expects 3 data inputs (values[3]) but the NodeDef has 2");
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("c", 1), ConstND("c", 2)}), &g), "[c] duplicate node name 'c'");
  EXPECT_ERROR(
      Import(GraphDefBytes({ConstND("c", 1), ND("b", "CodecTestAdd", {"c", "c"}, {{"T", AttrValue::Type(DT_INT32)}})}),
             &g),
      "[b] input 'x' has type float but attr 'T' is DT_INT32");
  EXPECT_ERROR(Import(GraphDefBytes({ND("bad name", "CodecTestNoOp")}), &g), "is not a valid node name");
  // A huge output count is refused before anything is allocated for it.
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("c", 1),
                                     ND("s", "CodecTestSplit", {"c"},
                                        {{"num", AttrValue::Int(1ll << 40)}, {"T", AttrValue::Type(DT_FLOAT)}})}),
                      &g),
               "[s] attr 'num' asks for 1099511627776 outputs");
  EXPECT_ERROR(Import("\x0a\x05\x0a\x01", &g), "malformed GraphDef");
  EXPECT_EQ(g.num_nodes(), 0);
  std::string good = GraphDefBytes({ConstND("cst", 1)});
  EXPECT_ERROR(Import(good.substr(0, good.size() - 6), &g), "malformed GraphDef");
  // A wire error inside a NodeDef carries the node name.
  wire::Writer node, gd;
  node.WriteBytesField(1, "zz");
  node.WriteBytesField(5, std::string("\x12\x05", 2));
  gd.WriteBytesField(1, node.data());
  EXPECT_ERROR(Import(gd.data(), &g), "[zz] malformed NodeDef: attr '': length-delimited field of 5 bytes exceeds");
  EXPECT_EQ(g.num_nodes(), 0);
}

TEST(ListInputsAreGroupedByTheOpDef) {
  Graph g;
  NodeDefProto list = ND("l", "CodecTestList", {"a", "b:0", "a"});
  list.attr["Tlist"] = AttrValue::EmptyList();
  list.attr["Tlist"].list.type = {DT_FLOAT, DT_FLOAT, DT_FLOAT};
  EXPECT_OK(Import(GraphDefBytes({ConstND("a", 1), ConstND("b", 2), list,
                                  ND("n", "CodecTestN", {"l:2", "l:1"},
                                     {{"N", AttrValue::Int(2)}, {"T", AttrValue::Type(DT_FLOAT)}})}),
                   &g));
  const Node* l = g.FindNode("l");
  EXPECT_TRUE(l && l->num_inputs() == 3 && l->num_outputs() == 3);
  const Node* n = g.FindNode("n");
  EXPECT_TRUE(n && n->input(0).index == 2 && n->input(1).index == 1);
  // An empty type list takes no inputs.
  NodeDefProto empty = ND("e", "CodecTestList", {"^a"});
  empty.attr["Tlist"] = AttrValue::EmptyList();
  Graph h;
  EXPECT_OK(Import(GraphDefBytes({ConstND("a", 1), empty}), &h));
  EXPECT_TRUE(h.FindNode("e") && h.FindNode("e")->num_inputs() == 0 && h.FindNode("e")->control_inputs().size() == 1);
}

TEST(InputMapAndReturnOutputs) {
  Graph g;
  Node* existing = Const(g, "existing", F32({5}, TensorShape({1})));
  Node* other = Const(g, "other", F32({6}, TensorShape({1})));
  ImportOptions opts;
  opts.prefix = "p";
  opts.input_map[{"a", 0}] = Endpoint{existing, 0};
  opts.input_map[{"nope", 0}] = Endpoint{existing, 0};
  opts.control_map["b"] = other;
  opts.return_outputs = {{"sum", 0}, {"a", 0}, {"b", 0}};
  opts.return_operations = {"b"};
  ImportResults r;
  EXPECT_OK(Import(GraphDefBytes({ConstND("a", 1), ConstND("b", 2),
                                  ND("sum", "CodecTestAdd", {"a", "b", "^b"}, {{"T", AttrValue::Type(DT_FLOAT)}})}),
                   &g, opts, &r));
  const Node* sum = g.FindNode("p/sum");
  EXPECT_TRUE(sum && sum->input(0).node == existing && sum->input(1).node == g.FindNode("p/b"));
  EXPECT_TRUE(sum && sum->control_inputs().size() == 1 && sum->control_inputs()[0] == other);
  EXPECT_EQ(r.return_outputs.size(), 3u);
  if (r.return_outputs.size() == 3) {
    EXPECT_TRUE(r.return_outputs[0].node == sum);
    EXPECT_TRUE(r.return_outputs[1].node == existing);  // remapped
    EXPECT_TRUE(r.return_outputs[2].node == g.FindNode("p/b"));
  }
  EXPECT_TRUE(r.return_operations.size() == 1 && r.return_operations[0] == g.FindNode("p/b"));
  EXPECT_TRUE(r.missing_unused_input_mappings == (std::vector<std::pair<std::string, int>>{{"nope", 0}}));
  EXPECT_TRUE(g.FindNode("p/a") != nullptr);  // still imported, just unused
  const int before = g.num_nodes();
  ImportOptions bad;
  bad.prefix = "q";
  bad.return_outputs = {{"missing", 0}};
  Status s = Import(GraphDefBytes({ConstND("a", 1)}), &g, bad);
  EXPECT_TRUE(s.code() == Code::kNotFound);
  bad.return_outputs = {{"a", 1}};
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("a", 1)}), &g, bad),
               "[q/a] requested return output 1 but the node has 1 outputs");
  bad.return_outputs.clear();
  bad.return_operations = {"zzz"};
  s = Import(GraphDefBytes({ConstND("a", 1)}), &g, bad);
  EXPECT_TRUE(s.code() == Code::kNotFound);
  EXPECT_EQ(g.num_nodes(), before);
  EXPECT_TRUE(g.FindNode("q/a") == nullptr);
}

TEST(ControlDependenciesAndDevices) {
  Graph g;
  Node* dep = Const(g, "dep", F32({0}, TensorShape({1})));
  ImportOptions opts;
  opts.prefix = "i";
  opts.default_device = "/device:CPU:0";
  opts.control_dependencies = {dep};
  NodeDefProto b = ConstND("b", 2);
  b.device = "/device:GPU:0";
  EXPECT_OK(Import(GraphDefBytes({ConstND("a", 1), b, AddND("s", "a", "b")}), &g, opts));
  const Node* a = g.FindNode("i/a");
  const Node* s = g.FindNode("i/s");
  EXPECT_TRUE(a && a->control_inputs() == std::vector<Node*>({dep}) && a->requested_device() == "/device:CPU:0");
  EXPECT_TRUE(g.FindNode("i/b")->requested_device() == "/device:GPU:0");
  EXPECT_TRUE(s && s->control_inputs().empty());  // has inputs from within the import
  EXPECT_EQ(g.ControlOutputs(dep).size(), 2u);
}

TEST(UniquifyNamesAndPrefix) {
  Graph g;
  const std::string bytes = GraphDefBytes({ConstND("a", 1), ConstND("a_1", 2), AddND("s", "a", "a_1")});
  EXPECT_OK(Import(bytes, &g));
  EXPECT_ERROR(Import(bytes, &g), "already exists");
  ImportOptions opts;
  opts.uniquify_names = true;
  EXPECT_OK(Import(bytes, &g, opts));
  EXPECT_EQ(g.num_nodes(), 6);
  // "a" -> "a_2" (a_1 is taken in the graph and in the import), "a_1" -> "a_1_1", "s" -> "s_1".
  const Node* s1 = g.FindNode("s_1");
  EXPECT_TRUE(s1 && s1->input(0).node->name() == "a_2" && s1->input(1).node->name() == "a_1_1");
  ImportOptions pre;
  pre.prefix = "imp";
  pre.uniquify_prefix = true;
  EXPECT_OK(Import(bytes, &g, pre));
  EXPECT_OK(Import(bytes, &g, pre));
  EXPECT_TRUE(g.FindNode("imp/s") && g.FindNode("imp_1/s"));
}

TEST(VersionsAreChecked) {
  Graph g;
  codec::GraphDefProto gd;
  gd.node = {ConstND("a", 1)};
  gd.versions.producer = 1000;
  gd.versions.min_consumer = kGraphDefVersion + 1;
  EXPECT_ERROR(Import(codec::EncodeGraphDef(gd), &g), "min_consumer version");
  gd.versions.min_consumer = 5;
  gd.versions.bad_consumers = {7, kGraphDefVersion};
  EXPECT_ERROR(Import(codec::EncodeGraphDef(gd), &g), "bad_consumers");
  gd.versions.bad_consumers = {7};
  EXPECT_OK(Import(codec::EncodeGraphDef(gd), &g));  // an empty graph adopts the versions
  EXPECT_TRUE(g.producer_version() == 1000 && g.min_consumer_version() == 5);
  gd.versions.producer = 12;
  ImportOptions opts;
  opts.prefix = "two";
  EXPECT_OK(Import(codec::EncodeGraphDef(gd), &g, opts));  // a non-empty graph keeps its own
  EXPECT_EQ(g.producer_version(), 1000);
}

TEST(OldPlaceholderScalarShapeMeansUnknown) {
  if (OpRegistry::Global()->LookUp("Placeholder") == nullptr) {
    std::printf("  (Placeholder not registered in this build; skipped)\n");
    return;
  }
  NodeDefProto ph =
      ND("x", "Placeholder", {}, {{"dtype", AttrValue::Type(DT_FLOAT)}, {"shape", AttrValue::Shape(PartialShape({}))}});
  Graph old_graph, new_graph;
  EXPECT_OK(Import(GraphDefBytes({ph}, 21), &old_graph));
  EXPECT_OK(Import(GraphDefBytes({ph}, 22), &new_graph));
  EXPECT_TRUE(!old_graph.FindNode("x")->attr("shape")->shape.known_rank());
  EXPECT_TRUE(new_graph.FindNode("x")->attr("shape")->shape == PartialShape({}));
}

TEST(FunctionLibraryIsMergedAndExported) {
  Graph g;
  const std::string lib = Library("F");
  EXPECT_OK(Import(GraphDefBytes({ConstND("a", 1)}, kGraphDefVersion, lib), &g));
  EXPECT_TRUE(g.library().Names() == std::vector<std::string>{"F"});
  codec::GraphDefProto gd;
  EXPECT_OK(codec::DecodeGraphDef(Export(g), &gd));
  EXPECT_EQ(gd.library, lib);
  ImportOptions opts;
  opts.prefix = "again";
  EXPECT_OK(Import(GraphDefBytes({ConstND("a", 1)}, kGraphDefVersion, lib), &g, opts));  // same F: no-op
  opts.prefix = "third";
  EXPECT_OK(Import(GraphDefBytes({ConstND("a", 1)}, kGraphDefVersion, Library("G")), &g, opts));
  EXPECT_TRUE((g.library().Names() == std::vector<std::string>{"F", "G"}));
  // A different function under a taken name is refused, and the import changes nothing.
  wire::Writer arg, sig, fdef, other;
  arg.WriteBytesField(1, "x");
  arg.WriteInt32Field(3, DT_FLOAT);
  sig.WriteBytesField(1, "F");
  sig.WriteBytesField(2, arg.data());
  fdef.WriteBytesField(1, sig.data());
  other.WriteBytesField(1, fdef.data());
  const int before = g.num_nodes();
  opts.prefix = "fourth";
  EXPECT_ERROR(Import(GraphDefBytes({ConstND("a", 1)}, kGraphDefVersion, other.Release()), &g, opts),
               "GraphDef library: cannot add function 'F': the library already has a different function of that name");
  EXPECT_EQ(g.num_nodes(), before);
  EXPECT_ERROR(Import(GraphDefBytes({}, kGraphDefVersion, "\x0a\x05"), &g), "malformed GraphDef library");
}

TEST(FailedImportRollsBackEverything) {
  Graph g;
  Node* base = Const(g, "base", F32({1, 2}, TensorShape({2})));
  Node* dep = Const(g, "dep", F32({1}, TensorShape({1})));
  g.UniqueName("reserved");
  const std::string before = Export(g);
  ImportOptions opts;
  opts.input_map[{"ext", 0}] = Endpoint{base, 0};
  opts.control_dependencies = {dep};
  // The last node (in topological order) fails shape inference: [2] + [3] do not broadcast.
  const std::string bytes = GraphDefBytes(
      {ND("reserved", "CodecTestNoOp"), AddND("ok", "ext", "ext"), ConstND("three", 1), ConstND("Base_x", 1),
       AddND("bad", "ok", "three3"),
       ND("three3", "CodecTestConst", {},
          {{"value", AttrValue::FromTensor(F32({1, 2, 3}, TensorShape({3})))}, {"dtype", AttrValue::Type(DT_FLOAT)}})});
  Status s = Import(bytes, &g, opts);
  EXPECT_ERROR(s, "[bad]");
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(Export(g), before);
  EXPECT_TRUE(g.Consumers(base, 0).empty() && g.ControlOutputs(dep).empty());
  EXPECT_TRUE(g.FindNode("ok") == nullptr && !g.IsNameUsed("ok") && !g.IsNameUsed("base_x"));
  EXPECT_TRUE(g.IsNameUsed("reserved"));  // reserved before the import: still reserved
  EXPECT_EQ(g.UniqueName("ok"), std::string("ok"));
  EXPECT_EQ(g.UniqueName("three"), std::string("three"));
}

TEST(MalformedBytesNeverCrash) {
  Graph sample;
  BuildSample(sample);
  FunctionDef f;
  f.signature.name = "F";
  EXPECT_OK(sample.library().Add(f));
  const std::string valid = Export(sample);
  const uint64_t old_limit = codec::MaxExpandedTensorBytes();
  codec::SetMaxExpandedTensorBytes(1 << 20);  // keep mutated shapes cheap

  auto fresh = [] {
    auto graph = std::make_unique<Graph>();
    Const(*graph, "pre", F32({1}, TensorShape({1})));
    return graph;
  };
  std::unique_ptr<Graph> graph = fresh();
  const std::string before = Export(*graph);
  int ok = 0, failed = 0;
  auto check = [&](const std::string& bytes) {
    Graph& g = *graph;
    ImportOptions opts;
    opts.prefix = "m";
    Status s = ImportGraphDef(bytes, opts, &g, nullptr);
    if (s.ok()) {
      ++ok;
      // Whatever we accept we can export and read back.
      Graph again;
      EXPECT_OK(Import(Export(g), &again));
      graph = fresh();  // back to the starting point for the next input
    } else {
      ++failed;
      if (g.num_nodes() != 1 || Export(g) != before) {
        std::printf("  graph changed by a failed import: %s\n", s.message().c_str());
        EXPECT_TRUE(false);
      }
    }
  };
  for (size_t n = 0; n < valid.size(); ++n) check(valid.substr(0, n));
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string b = valid;
    const int mode = static_cast<int>(rng() % 5);
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !b.empty(); ++e) {
      size_t pos = rng() % b.size();
      if (mode == 0)
        b[pos] = static_cast<char>(b[pos] ^ (1 << (rng() % 8)));
      else if (mode == 1)
        b[pos] = static_cast<char>(rng());
      else if (mode == 2)
        b.resize(pos);
      else if (mode == 3)
        b.insert(pos, 1, static_cast<char>(rng()));
      else
        b.erase(pos, 1 + rng() % 8);
    }
    check(b);
  }
  for (int iter = 0; iter < 200; ++iter) {  // pure garbage
    std::string b(rng() % 64, '\0');
    for (char& c : b) c = static_cast<char>(rng());
    check(b);
  }
  codec::SetMaxExpandedTensorBytes(old_limit);
  std::printf("  fuzz: %d accepted, %d rejected\n", ok, failed);
  EXPECT_TRUE(ok > 0 && failed > 0);
}
