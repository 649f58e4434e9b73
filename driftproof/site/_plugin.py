"""The mkdocs plugin ``driftproof`` (entry point ``mkdocs.plugins``), registered by the package.

``plugins: [driftproof]`` in mkdocs.yml adds the generated pages to a build; nothing is
looked up by a path into the source tree, so an installed package builds the site in any
directory (issue 19). The events are those of :mod:`driftproof.site._hook`, which keeps
the build's state. Options (both optional; default ``extra.driftproof`` in mkdocs.yml,
else ``receipts`` and ``reports`` beside the config)::

    plugins:
      - driftproof:
          receipts: receipts
          reports: reports

``driftproof reports build`` hands the plugin inputs it has already checked; a plain
``mkdocs build`` makes the plugin load and check them itself, failing closed the same way.
"""

from __future__ import annotations

from typing import Any

from mkdocs.config import config_options
from mkdocs.plugins import BasePlugin

from driftproof.site import _hook

__all__ = ["DriftproofPlugin"]


class DriftproofPlugin(BasePlugin):
    """Adds every generated page and file of the site (:func:`driftproof.site.build_site_files`)."""

    config_scheme = (
        ("receipts", config_options.Optional(config_options.Type(str))),
        ("reports", config_options.Optional(config_options.Type(str))),
    )

    def on_files(self, files: Any, *, config: Any) -> Any:
        return _hook.on_files(
            files, config, receipts=self.config.get("receipts"), reports=self.config.get("reports")
        )

    def on_env(self, env: Any, *, config: Any, files: Any) -> Any:
        return _hook.on_env(env, config, files)

    def on_page_content(self, html: str, *, page: Any, config: Any, files: Any) -> str:
        return _hook.on_page_content(html, page, config, files)

    def on_page_context(self, context: Any, *, page: Any, config: Any, nav: Any) -> Any:
        return _hook.on_page_context(context, page, config, nav)

    def on_post_build(self, *, config: Any) -> None:
        _hook.on_post_build(config)

    def on_build_error(self, *, error: Exception) -> None:
        _hook.on_build_error(error)
