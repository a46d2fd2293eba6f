/* Protobuf-aware mutations: the input is parsed as a tree of fields (a length-delimited field whose
 * bytes parse as a message is a message), one field is changed, and the lengths of the messages
 * enclosing the change are rewritten, so the mutant gets past the wire decoder into the importer.
 * Byte-level mutations alone almost always break an enclosing length. */
#include <string.h>

#include "fuzz/driver.h"

enum { kMaxNodes = 4096, kMaxDepth = 12 };

typedef struct Node {
  size_t tag_at; /* the field's first byte (its tag) */
  size_t len_at; /* length-delimited fields: the length varint (== the end of the tag) */
  size_t val_at; /* the value (after the length for length-delimited fields) */
  size_t end; /* one past the field's last byte */
  uint32_t field;
  uint8_t wire_type;
  uint8_t is_msg;
  int parent; /* the enclosing length-delimited field, -1 at the top level */
} Node;

typedef struct Tree {
  Node nodes[kMaxNodes];
  int n;
} Tree;

static int read_varint(const uint8_t* x, size_t end, size_t* at, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *at < end; shift += 7) {
    uint8_t b = x[(*at)++];
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return 1;
  }
  return 0;
}

static size_t put_varint(uint8_t* p, uint64_t v) {
  size_t k = 0;
  while (v >= 0x80) {
    p[k++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[k++] = (uint8_t)v;
  return k;
}

/* Parses x[start, end) as a message into t; 0 (with t unchanged) when it is not one. */
static int parse(Tree* t, const uint8_t* x, size_t start, size_t end, int parent, int depth) {
  int first = t->n;
  size_t at = start;
  while (at < end) {
    if (t->n >= kMaxNodes) goto fail;
    Node* nd = &t->nodes[t->n];
    uint64_t tag, v;
    nd->tag_at = at;
    if (!read_varint(x, end, &at, &tag) || (tag >> 3) == 0 || (tag >> 3) > 536870911u) goto fail;
    nd->field = (uint32_t)(tag >> 3);
    nd->wire_type = (uint8_t)(tag & 7);
    nd->len_at = at;
    nd->parent = parent;
    nd->is_msg = 0;
    switch (nd->wire_type) {
      case 0:
        nd->val_at = at;
        if (!read_varint(x, end, &at, &v)) goto fail;
        break;
      case 1:
      case 5:
        nd->val_at = at;
        at += nd->wire_type == 1 ? 8 : 4;
        if (at > end) goto fail;
        break;
      case 2:
        if (!read_varint(x, end, &at, &v) || v > end - at) goto fail;
        nd->val_at = at;
        at += v;
        break;
      default: goto fail;
    }
    nd->end = at;
    int self = t->n++;
    if (nd->wire_type == 2 && nd->end > nd->val_at && depth < kMaxDepth) {
      t->nodes[self].is_msg = (uint8_t)parse(t, x, t->nodes[self].val_at, t->nodes[self].end, self, depth + 1);
    }
  }
  return 1;
fail:
  t->n = first;
  return 0;
}

/* Replaces x[at, at+old) (inside the content of node `inner`, or at the top level for -1) with
 * `with` and rewrites the length of `inner` and of every message around it. */
static size_t edit(uint8_t* x, size_t n, size_t cap, const Tree* t, int inner, size_t at, size_t old,
                   const uint8_t* with, size_t len) {
  if (n - old + len + (size_t)kMaxDepth * 10 > cap) return n;
  memmove(x + at + len, x + at + old, n - at - old);
  if (len > 0) memcpy(x + at, with, len);
  n = n - old + len;
  int64_t delta = (int64_t)len - (int64_t)old;
  for (int j = inner; j >= 0; j = t->nodes[j].parent) {
    const Node* nd = &t->nodes[j];
    uint8_t v[10];
    size_t vn = put_varint(v, (uint64_t)((int64_t)(nd->end - nd->val_at) + delta));
    size_t old_vn = nd->val_at - nd->len_at;
    memmove(x + nd->len_at + vn, x + nd->len_at + old_vn, n - nd->len_at - old_vn);
    memcpy(x + nd->len_at, v, vn);
    n = n - old_vn + vn;
    delta += (int64_t)vn - (int64_t)old_vn;
  }
  return n;
}

static Tree g_tree, g_donor;

/* A new varint value: an interesting one, the old one nudged, a compared operand, or random. */
static uint64_t new_varint(uint64_t old, const MutationSources* m) {
  static const uint64_t kValues[] = {0,
                                     1,
                                     2,
                                     3,
                                     7,
                                     8,
                                     9,
                                     10,
                                     16,
                                     19,
                                     20,
                                     23,
                                     64,
                                     100,
                                     127,
                                     128,
                                     255,
                                     256,
                                     65535,
                                     65536,
                                     0x7fffffff,
                                     0x80000000ULL,
                                     0xffffffffULL,
                                     0x7fffffffffffffffULL,
                                     0xffffffffffffffffULL};
  switch (below(5)) {
    case 0: return kValues[below(sizeof(kValues) / sizeof(kValues[0]))];
    case 1: return old + below(5) - 2;
    case 2:
      if (m->ncmps) return m->cmps[below(m->ncmps)][below(2)];
      return old ^ (1ull << below(64));
    case 3: return (uint64_t)-(int64_t)(below(1000) + 1); /* a negative int, as int64 varint */
    default: return below(2) ? below(300) : rnd();
  }
}

size_t tx_fuzz_mutate_proto(uint8_t* x, size_t n, size_t cap, const MutationSources* m) {
  Tree* t = &g_tree;
  t->n = 0;
  if (n == 0 || !parse(t, x, 0, n, -1, 0) || t->n == 0) return 0;
  int i = (int)below((size_t)t->n);
  const Node nd = t->nodes[i];
  uint8_t buf[4096];
  switch (below(8)) {
    case 0: /* delete the field */ return edit(x, n, cap, t, nd.parent, nd.tag_at, nd.end - nd.tag_at, NULL, 0);
    case 1: { /* repeat the field */
      size_t len = nd.end - nd.tag_at;
      if (len > sizeof(buf)) return n;
      memcpy(buf, x + nd.tag_at, len);
      return edit(x, n, cap, t, nd.parent, nd.end, 0, buf, len);
    }
    case 2: { /* renumber the field, keeping its wire type */
      uint32_t field = below(2) ? 1 + (uint32_t)below(20) : t->nodes[below((size_t)t->n)].field;
      size_t k = put_varint(buf, (uint64_t)field << 3 | nd.wire_type);
      return edit(x, n, cap, t, nd.parent, nd.tag_at, nd.len_at - nd.tag_at, buf, k);
    }
    case 3: { /* a field of another input, inserted next to this one */
      if (m->ncorpus == 0) return n;
      const Bytes* o = &m->corpus[below(m->ncorpus)];
      g_donor.n = 0;
      if (!parse(&g_donor, o->d, 0, o->n, -1, 0) || g_donor.n == 0) return n;
      const Node* d = &g_donor.nodes[below((size_t)g_donor.n)];
      size_t len = d->end - d->tag_at;
      if (len > sizeof(buf)) return n;
      memcpy(buf, o->d + d->tag_at, len);
      return edit(x, n, cap, t, nd.parent, below(2) ? nd.tag_at : nd.end, 0, buf, len);
    }
    default: /* change the value */ break;
  }
  switch (nd.wire_type) {
    case 0: {
      uint64_t old;
      size_t at = nd.val_at;
      read_varint(x, nd.end, &at, &old);
      size_t k = put_varint(buf, new_varint(old, m));
      return edit(x, n, cap, t, nd.parent, nd.val_at, nd.end - nd.val_at, buf, k);
    }
    case 1:
    case 5: {
      uint64_t v = new_varint(0, m);
      memcpy(x + nd.val_at, &v, nd.end - nd.val_at);
      return n;
    }
    default: {
      if (nd.is_msg && below(2)) { /* a message's bytes as bytes (its own length kept right) */
        size_t len = nd.end - nd.val_at;
        if (len > sizeof(buf)) return n;
        memcpy(buf, x + nd.val_at, len);
        return edit(x, n, cap, t, i, nd.val_at, len, buf, tx_fuzz_mutate_bytes(buf, len, sizeof(buf), m));
      }
      size_t len = nd.end - nd.val_at;
      if (m->nwords > 0 && below(3) == 0) { /* a dictionary word */
        const Bytes* w = &m->words[below(m->nwords)];
        return edit(x, n, cap, t, i, nd.val_at, len, w->d, w->n);
      }
      if (len > sizeof(buf) / 2) return n;
      memcpy(buf, x + nd.val_at, len);
      return edit(x, n, cap, t, i, nd.val_at, len, buf, tx_fuzz_mutate_bytes(buf, len, sizeof(buf) / 2, m));
    }
  }
}
