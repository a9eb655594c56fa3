"""An executed notebook as one self-contained HTML page: its outputs and prose, no code, nothing fetched.

nbconvert's ``lab`` template with the code cells' inputs and prompts left out and the scripts it
would load from a CDN (require.js, MathJax, mermaid) dropped, so the page renders offline; images
are the notebook's own PNG outputs, inlined, with the ``alt`` text of their output metadata
(``IPython.display.Image(..., metadata={"alt": ...})``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["notebook_html"]

_TEMPLATE = "colony_report.html.j2"
_OFFLINE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block data_png scoped -%}
{%- set alt = output | get_metadata('alt', 'image/png') -%}
{{ super() | replace('<img src=', '<img alt="' ~ (alt | escape_html) ~ '" src=') if alt else super() }}
{%- endblock data_png -%}
"""


def notebook_html(notebook: str | Path, *, title: str) -> str:
    """The HTML page of the executed notebook at ``notebook``, titled ``title``, without its code."""
    import nbformat
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(notebook), as_version=4)
    nb.metadata["title"] = title
    exporter = HTMLExporter(
        template_name="lab",
        template_file=_TEMPLATE,
        extra_loaders=[DictLoader({_TEMPLATE: _OFFLINE})],
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(nb)
    return str(body)
