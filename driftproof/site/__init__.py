"""The static site: numbered reports, receipt sheets, schemas and feed, built from receipts.

Public API::

    build_site(receipts_dir, reports_dir, out)   the one build: check, render, swap out whole
    load_inputs(receipts_dir, reports_dir)       every receipt and report, checked
    build_site_files(receipts, reports, nav=…)   {site path: bytes} of every generated file
    load_reports(paths, known_receipts)          parse and check reports/NNN-slug.md
    section_types(), register_section            the report section registry (see sections/)
"""

from driftproof.site.generate import build_site_files
from driftproof.site.inputs import SiteInputs, load_inputs
from driftproof.site.publish import Published, build_site
from driftproof.site.report_pages import home_listing
from driftproof.site.report_source import Report, SectionSpec, load_reports, parse_report
from driftproof.site.sections import register_section, section_types

__all__ = [
    "Published",
    "Report",
    "SectionSpec",
    "SiteInputs",
    "build_site",
    "build_site_files",
    "home_listing",
    "load_inputs",
    "load_reports",
    "parse_report",
    "register_section",
    "section_types",
]
