"""Asset descriptions: Markdown (CommonMark) rendered to HTML that is safe to show.

markdown-it-py with raw HTML off (``<script>`` and every other tag in the text is shown as text), and
its link check on (``javascript:``, ``vbscript:``, ``file:`` and non-image ``data:`` URLs are not made
links). The UI shows the returned HTML as is.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})


def render(text: str) -> str:
    return str(_MD.render(text))
