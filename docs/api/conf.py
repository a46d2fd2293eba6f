"""Sphinx configuration of the API reference (`nox -s docs`): autodoc pages from the docstrings of
tensorflux's public modules, built into core/build/docs/html/."""

project = "Tensorflux"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
default_role = "code"  # `name` in a docstring is code, as in Markdown
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autodoc_member_order = "alphabetical"
autodoc_typehints = "none"
napoleon_google_docstring = True
html_theme = "alabaster"
html_title = "Tensorflux API reference"
exclude_patterns = ["_build"]
# Docstrings write |x| for an absolute value: keep it literal instead of an rST substitution.
rst_prolog = "\n".join(".. |%s| replace:: \\|%s\\|" % (v, v) for v in ("x", "e"))
