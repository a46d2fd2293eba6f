// Tests of the op registry's spec parser, attr validation, graph construction and names.
#include "test_util.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

using namespace tx;

TEST(SpecParserHandlesDefaultsAndConstraints) {
  OpRegistration r;
  EXPECT_OK(OpDefBuilder("TestOp")
                .Input("a: T")
                .Input("xs: N * T")
                .Output("z: float")
                .Attr("T: {float, double}")
                .Attr("N: int >= 1")
                .Attr("fmt: {'NHWC', 'NCHW'} = 'NHWC'")
                .Attr("shape: shape = { unknown_rank: true }")
                .Attr("flag: bool = false")
                .Attr("idx: {int32, int64} = DT_INT32")
                .Attr("ks: list(int) = [1, 2]")
                .Finalize(&r));
  const OpDef& d = r.def;
  EXPECT_EQ(d.attr.size(), 7u);
  EXPECT_EQ(d.attr[0].type, std::string("type"));
  EXPECT_EQ(d.attr[0].allowed_values.list.type.size(), 2u);
  EXPECT_TRUE(d.attr[1].has_minimum && d.attr[1].minimum == 1);
  EXPECT_EQ(d.attr[2].type, std::string("string"));
  EXPECT_EQ(d.attr[2].default_value.s, std::string("NHWC"));
  EXPECT_TRUE(!d.attr[3].default_value.shape.known_rank());
  EXPECT_EQ(d.attr[5].default_value.type, DT_INT32);
  EXPECT_EQ(d.attr[6].default_value.list.i.size(), 2u);
  EXPECT_EQ(d.input_arg[1].number_attr, std::string("N"));
  EXPECT_EQ(d.output_arg[0].type, DT_FLOAT);
}

TEST(SpecParserRejectsUnknownTypes) {
  OpRegistration r;
  EXPECT_ERROR(OpDefBuilder("Bad").Input("a: Q").Finalize(&r), "unknown type or attr");
  EXPECT_ERROR(OpDefBuilder("Bad").Attr("x: widget").Finalize(&r), "unknown attr type");
}

TEST(UniqueNames) {
  Graph g;
  EXPECT_EQ(g.UniqueName("add"), std::string("add"));
  EXPECT_EQ(g.UniqueName("add"), std::string("add_1"));
  EXPECT_EQ(g.UniqueName("Add"), std::string("Add_2"));
  EXPECT_EQ(g.UniqueName("add_1"), std::string("add_1_1"));
}

TEST(NodeNames) {
  EXPECT_TRUE(IsValidNodeName("layer1/dense/MatMul"));
  EXPECT_TRUE(!IsValidNodeName(""));
  EXPECT_TRUE(!IsValidNodeName("_x"));
  EXPECT_TRUE(!IsValidNodeName("a b"));
}

TEST(BroadcastShapes) {
  PartialShape out;
  EXPECT_OK(BroadcastShapes(PartialShape({2, 1, 3}), PartialShape({4, 3}), &out));
  EXPECT_TRUE(out == PartialShape({2, 4, 3}));
  EXPECT_OK(BroadcastShapes(PartialShape({-1, 3}), PartialShape({5, 1}), &out));
  EXPECT_TRUE(out == PartialShape({5, 3}));
  EXPECT_ERROR(BroadcastShapes(PartialShape({2, 3}), PartialShape({4}), &out), "incompatible shapes");
}
