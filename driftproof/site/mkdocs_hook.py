"""mkdocs loads this file by path (``hooks:`` in mkdocs.yml); the hook lives in
:mod:`driftproof.site._hook`, so its state has one home whoever imports it."""

from driftproof.site._hook import on_env, on_files, on_page_content, on_page_context, on_post_build

__all__ = ["on_env", "on_files", "on_page_content", "on_page_context", "on_post_build"]
