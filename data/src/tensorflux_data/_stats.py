"""Observability: where a running pipeline spends its time (txd.experimental.stats)."""


def _walk(node, out, seen):
    if id(node) in seen:
        return
    seen.add(id(node))
    out.append(node)
    for d in node._inputs:
        _walk(d, out, seen)


def stats(iterator):
    """Per-node counters of a running iterator, root first: for each node its ``elements``,
    ``seconds`` spent producing them (inputs included), ``self_seconds`` (inputs excluded) and
    ``elements_per_second``; prefetch nodes add ``consumer_wait_seconds``, the time the consumer
    waited on an empty buffer. The first entry, ``iterator``, compares ``seconds_in_next`` (the
    pipeline) with ``seconds_outside`` (the consumer, e.g. the model's step between batches): the
    larger says which is the bottleneck. Datasets made inside interleave functions follow the graph.

    >>> import tensorflux_data as txd
    >>> it = iter(txd.Dataset.range(10).filter(lambda x: x > 3).batch(5))
    >>> _ = list(it)
    >>> [(s["node"], s["elements"]) for s in txd.experimental.stats(it)]
    [('iterator', 2), ('batch', 2), ('filter', 6), ('range', 10)]
    """
    records, (elements, inside, outside) = iterator._stats()
    nodes = []
    _walk(iterator._dataset, nodes, set())
    by_id = {id(n): n for n in nodes}
    extra = [r.node for k, r in records.items() if k not in by_id]
    rows = [{"node": "iterator", "elements": elements, "seconds_in_next": inside, "seconds_outside": outside}]
    for node in nodes + extra:
        rec = records.get(id(node))
        if rec is None:
            continue
        inputs = sum(records[id(d)].seconds for d in node._inputs if id(d) in records)
        row = {"node": node._kind, "elements": rec.elements, "seconds": rec.seconds,
               "self_seconds": max(0.0, rec.seconds - inputs),
               "elements_per_second": rec.elements / rec.seconds if rec.seconds > 0 else 0.0}
        if node._kind == "prefetch":
            row["consumer_wait_seconds"] = rec.wait_seconds
            row["self_seconds"] = rec.seconds  # its input runs on the producer thread
        rows.append(row)
    return rows
