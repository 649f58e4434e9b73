"""The static site: numbered reports, receipt sheets, schemas and feed, built from receipts.

:func:`build_site` is the one build (check, render, swap ``out`` whole); the report section
registry is in :mod:`driftproof.site.sections`.
"""

from driftproof.site.generate import build_site_files
from driftproof.site.html import home_listing
from driftproof.site.publish import build_site
from driftproof.site.sections import register_section, section_types

__all__ = [
    "build_site",
    "build_site_files",
    "home_listing",
    "register_section",
    "section_types",
]
