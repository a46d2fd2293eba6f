"""AutoGraph: Python control flow on tensors inside tx.function becomes graph control flow
(tx.cond, tx.while_loop), with TensorFlow's rules (docs/autograph.md).

transformer.py (with analysis.py and lowering.py) rewrites a function's AST; operators.py and
loops.py are what the rewritten code calls at run time; conversion.py compiles and caches
converted functions; errors.py points errors at the user's source lines.
"""
