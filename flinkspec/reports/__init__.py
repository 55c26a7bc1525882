"""What a check produces, for people and machines: report.json, report.md and JUnit XML
(:mod:`flinkspec.reports.report`), report.html (:mod:`flinkspec.reports.html_report`, templates/) and the
console's lines (:mod:`flinkspec.reports.console`)."""
