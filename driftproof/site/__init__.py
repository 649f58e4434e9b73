"""The static site: numbered reports, receipt sheets, schemas and feed, built from receipts.

Public API::

    build_site(receipts_dir, reports_dir, out)   the one build: check, render, swap out whole
    load_inputs(receipts_dir, reports_dir)       every receipt and report, checked
    build_site_files(receipts, reports, nav=…)   {site path: bytes} of every generated file
    home_listing(reports, env)                   the home page's list of the numbered reports
    section_types(), register_section            the report section registry (see sections/)
"""

from driftproof.site.generate import build_site_files
from driftproof.site.html import home_listing
from driftproof.site.inputs import load_inputs
from driftproof.site.publish import build_site
from driftproof.site.sections import register_section, section_types

__all__ = [
    "build_site",
    "build_site_files",
    "home_listing",
    "load_inputs",
    "register_section",
    "section_types",
]
