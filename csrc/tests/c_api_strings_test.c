/* String tensors through the public C API only: the TX_TString functions, TX_AllocateTensor and
 * TX_NewTensor rules for TX_STRING (c_api.h, "String tensors"), feeds, fetches and attrs holding
 * strings, and malformed caller elements rejected. */
#include <stdint.h>

#include <tensorflux/c/c_api_eager.h>

#include "c_api_test_util.h"

static void test_tstring_functions(void) {
  TX_TString s;
  TX_StringInit(&s);
  CHECK(TX_StringGetSize(&s) == 0 && TX_StringGetType(&s) == TX_TSTR_SMALL);
  CHECK(TX_StringCopy(&s, "short", 5) == 1);
  CHECK(TX_StringGetSize(&s) == 5 && memcmp(TX_StringGetDataPointer(&s), "short", 5) == 0);
  CHECK(TX_StringGetType(&s) == TX_TSTR_SMALL && TX_StringGetCapacity(&s) == 22);
  const char* long_text = "a longer string that has to live on the heap";
  CHECK(TX_StringCopy(&s, long_text, strlen(long_text)) == 1);
  CHECK(TX_StringGetType(&s) == TX_TSTR_LARGE && TX_StringGetSize(&s) == strlen(long_text));
  CHECK(strcmp(TX_StringGetDataPointer(&s), long_text) == 0); /* owned strings are NUL-terminated */
  CHECK(TX_StringCopy(&s, "a\0b", 3) == 1 && TX_StringGetSize(&s) == 3); /* embedded NUL */
  CHECK(TX_StringCopy(&s, NULL, 0) == 1 && TX_StringGetSize(&s) == 0);
  CHECK(TX_StringCopy(&s, NULL, 3) == 0); /* bad argument, string unchanged */
  const char view_bytes[] = "viewed";
  TX_StringAssignView(&s, view_bytes, 4);
  CHECK(TX_StringGetType(&s) == TX_TSTR_VIEW && TX_StringGetDataPointer(&s) == view_bytes);
  CHECK(TX_StringGetSize(&s) == 4 && TX_StringGetCapacity(&s) == 4);
  TX_StringDealloc(&s);
  CHECK(TX_StringGetSize(&s) == 0);
  TX_StringDealloc(NULL);
  TX_TString zeroed;
  memset(&zeroed, 0, sizeof zeroed); /* zeroed memory is the empty string */
  CHECK(TX_StringGetSize(&zeroed) == 0 && TX_StringGetDataPointer(&zeroed)[0] == '\0');
}

/* A graph: words (string placeholder) -> StringUpper -> StringJoin with a Const suffix. */
static TX_Operation* build_shout(TX_Graph* g, TX_Operation** words, TX_Status* s) {
  int64_t dims[1] = {-1};
  *words = placeholder(g, "words", TX_STRING, dims, 1, s);
  TX_OperationDescription* d = TX_NewOperation(g, "StringUpper", "upper");
  TX_AddInput(d, out0(*words));
  TX_Operation* upper = TX_FinishOperation(d, s);
  TX_Tensor* bang = TX_AllocateTensor(TX_STRING, NULL, 0, sizeof(TX_TString));
  TX_StringCopy((TX_TString*)TX_TensorData(bang), "!", 1);
  d = TX_NewOperation(g, "Const", "bang");
  TX_SetAttrType(d, "dtype", TX_STRING);
  TX_SetAttrTensor(d, "value", bang, s);
  TX_Operation* c = TX_FinishOperation(d, s);
  TX_DeleteTensor(bang);
  d = TX_NewOperation(g, "StringJoin", "join");
  TX_Output parts[2] = {out0(upper), out0(c)};
  TX_AddInputList(d, parts, 2);
  return TX_FinishOperation(d, s);
}

/* build_shout in `g` and a session on it. */
static TX_Session* shout_session(TX_Graph* g, TX_Operation** words, TX_Operation** join, TX_Status* s) {
  *join = build_shout(g, words, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  return sess;
}

static int g_dealloc_calls;

/* The caller's deallocator for a TX_NewTensor string array: dealloc each element, then free. */
static void free_strings(void* data, size_t len, void* arg) {
  TX_TString* s = (TX_TString*)data;
  for (size_t i = 0; i < len / sizeof(TX_TString); ++i) TX_StringDealloc(&s[i]);
  free(data);
  ++g_dealloc_calls;
  (void)arg;
}

static void check_fetch(TX_Session* sess, TX_Operation* words, TX_Tensor* feed, TX_Operation* join,
                        const char* const* want, int n, TX_Status* s) {
  TX_Output in = out0(words), out = out0(join);
  TX_Tensor* got = NULL;
  TX_SessionRun(sess, NULL, &in, &feed, 1, &out, &got, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (got == NULL) return;
  CHECK(TX_TensorType(got) == TX_STRING && TX_TensorElementCount(got) == n);
  const TX_TString* v = (const TX_TString*)TX_TensorData(got);
  for (int i = 0; i < n; ++i)
    CHECK(TX_StringGetSize(&v[i]) == strlen(want[i]) &&
          memcmp(TX_StringGetDataPointer(&v[i]), want[i], strlen(want[i])) == 0);
  TX_DeleteTensor(got);
}

static void test_feeds_fetches_and_ownership(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Operation *words = NULL, *join = NULL;
  TX_Session* sess = shout_session(g, &words, &join, s);

  /* Engine memory: TX_AllocateTensor gives empty strings the caller fills. */
  int64_t dims[1] = {2};
  CHECK(TX_AllocateTensor(TX_STRING, dims, 1, 2 * sizeof(TX_TString) + 1) == NULL);
  TX_Tensor* feed = TX_AllocateTensor(TX_STRING, dims, 1, 2 * sizeof(TX_TString));
  TX_TString* e = (TX_TString*)TX_TensorData(feed);
  CHECK(TX_StringGetSize(&e[0]) == 0 && TX_StringGetSize(&e[1]) == 0);
  TX_StringCopy(&e[0], "hi", 2);
  TX_StringCopy(&e[1], "a string long enough for the heap", 33);
  const char* want1[2] = {"HI!", "A STRING LONG ENOUGH FOR THE HEAP!"};
  check_fetch(sess, words, feed, join, want1, 2, s);
  TX_DeleteTensor(feed);

  /* Caller memory: TX_NewTensor over initialized TX_TStrings; the deallocator frees them. */
  TX_TString* mine = (TX_TString*)malloc(2 * sizeof(TX_TString));
  TX_StringInit(&mine[0]);
  TX_StringInit(&mine[1]);
  TX_StringCopy(&mine[0], "yo", 2);
  char view_bytes[] = "viewed bytes";
  TX_StringAssignView(&mine[1], view_bytes, 6);
  g_dealloc_calls = 0;
  feed = TX_NewTensor(TX_STRING, dims, 1, mine, 2 * sizeof(TX_TString), free_strings, NULL);
  CHECK(feed != NULL);
  const char* want2[2] = {"YO!", "VIEWED!"};
  check_fetch(sess, words, feed, join, want2, 2, s);
  TX_DeleteTensor(feed);
  CHECK(g_dealloc_calls == 1);

  /* A length that is not n * sizeof(TX_TString) is refused (the deallocator runs). */
  TX_TString* odd = (TX_TString*)malloc(sizeof(TX_TString));
  TX_StringInit(odd);
  CHECK(TX_NewTensor(TX_STRING, dims, 1, odd, sizeof(TX_TString), free_strings, NULL) == NULL);
  CHECK(g_dealloc_calls == 2);

  /* A malformed element (the OFFSET form, or raw bytes that are no TX_TString) is an error
   * naming the fed node; the session stays usable. */
  feed = TX_AllocateTensor(TX_STRING, dims, 1, 2 * sizeof(TX_TString));
  unsigned char* raw = (unsigned char*)TX_TensorData(feed);
  raw[0] = 2; /* TX_TSTR_OFFSET */
  TX_Output in = out0(words), out = out0(join);
  TX_Tensor* got = NULL;
  TX_SessionRun(sess, NULL, &in, &feed, 1, &out, &got, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "OFFSET");
  raw[0] = 100; /* inline size 25 > 22 */
  TX_SessionRun(sess, NULL, &in, &feed, 1, &out, &got, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "not a valid TX_TString");
  raw[0] = 0;
  TX_DeleteTensor(feed);

  /* A float fed to the string placeholder is an error naming it and both types. */
  float f[2] = {1, 2};
  feed = float_tensor(dims, 1, f);
  TX_SessionRun(sess, NULL, &in, &feed, 1, &out, &got, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "words");
  CHECK(strstr(TX_Message(s), "float") != NULL && strstr(TX_Message(s), "string") != NULL);
  TX_DeleteTensor(feed);
  feed = TX_AllocateTensor(TX_STRING, dims, 1, 2 * sizeof(TX_TString));
  const char* want3[2] = {"!", "!"};
  check_fetch(sess, words, feed, join, want3, 2, s);
  TX_DeleteTensor(feed);

  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_attr_views_are_copied(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  char bytes[] = "original";
  TX_Tensor* value = TX_AllocateTensor(TX_STRING, NULL, 0, sizeof(TX_TString));
  TX_StringAssignView((TX_TString*)TX_TensorData(value), bytes, 8);
  TX_OperationDescription* d = TX_NewOperation(g, "Const", "c");
  TX_SetAttrType(d, "dtype", TX_STRING);
  TX_SetAttrTensor(d, "value", value, s);
  CHECK_OK(s);
  TX_Operation* c = TX_FinishOperation(d, s);
  CHECK_OK(s);
  memcpy(bytes, "CHANGED!", 8); /* the view's bytes only had to outlive the call */
  TX_DeleteTensor(value);
  TX_Tensor* copy = NULL;
  TX_OperationGetAttrTensor(c, "value", &copy, s);
  CHECK_OK(s);
  CHECK(copy != NULL && memcmp(TX_StringGetDataPointer((TX_TString*)TX_TensorData(copy)), "original", 8) == 0);
  TX_DeleteTensor(copy);
  /* The GraphDef carries the string as string_val: field 8 of the TensorProto, "original". */
  TX_Buffer* gd = TX_NewBuffer();
  TX_GraphToGraphDef(g, gd, s);
  CHECK_OK(s);
  int found = 0;
  for (size_t i = 0; i + 10 <= gd->length; ++i)
    if (memcmp((const char*)gd->data + i, "\x42\x08original", 10) == 0) found = 1;
  CHECK(found);
  TX_DeleteBuffer(gd);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* TX_AllocateStringTensor: views into the tensor's own storage are fed and adopted without a
 * copy; bad arguments give NULL. */
static void test_string_storage(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Operation *words = NULL, *join = NULL;
  TX_Session* sess = shout_session(g, &words, &join, s);
  int64_t dims[1] = {2};
  char* storage = NULL;
  TX_Tensor* feed = TX_AllocateStringTensor(dims, 1, 38, &storage);
  CHECK(feed != NULL && storage != NULL && TX_TensorByteSize(feed) == 2 * sizeof(TX_TString));
  memcpy(storage, "hia string long enough for the heap!", 36);
  TX_TString* e = (TX_TString*)TX_TensorData(feed);
  TX_StringAssignView(&e[0], storage, 2);
  TX_StringAssignView(&e[1], storage + 2, 33);
  const char* want[2] = {"HI!", "A STRING LONG ENOUGH FOR THE HEAP!"};
  check_fetch(sess, words, feed, join, want, 2, s);
  /* An eager handle adopts the views as they are: the resolved tensor still points at storage. */
  TXE_ContextOptions* opts = TXE_NewContextOptions();
  TXE_Context* ctx = TXE_NewContext(opts, s);
  CHECK_OK(s);
  TXE_TensorHandle* h = TXE_NewTensorHandle(feed, s);
  CHECK_OK(s);
  TX_Tensor* back = TXE_TensorHandleResolve(h, s);
  CHECK_OK(s);
  CHECK(back != NULL && TX_StringGetDataPointer((const TX_TString*)TX_TensorData(back) + 1) == storage + 2);
  TX_DeleteTensor(back);
  TXE_DeleteTensorHandle(h);
  TXE_DeleteContext(ctx);
  TXE_DeleteContextOptions(opts);
  TX_DeleteTensor(feed);
  /* No storage, a scalar, and the refusals. */
  feed = TX_AllocateStringTensor(NULL, 0, 0, &storage);
  CHECK(feed != NULL && storage == NULL && TX_TensorElementCount(feed) == 1);
  TX_DeleteTensor(feed);
  int64_t bad[1] = {-1};
  storage = (char*)1;
  CHECK(TX_AllocateStringTensor(bad, 1, 8, &storage) == NULL && storage == NULL);
  CHECK(TX_AllocateStringTensor(dims, 1, 8, NULL) == NULL);
  CHECK(TX_AllocateStringTensor(NULL, 1, 8, &storage) == NULL && storage == NULL);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"tstring_functions", test_tstring_functions},
      {"feeds_fetches_and_ownership", test_feeds_fetches_and_ownership},
      {"attr_views_are_copied", test_attr_views_are_copied},
      {"string_storage", test_string_storage},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
