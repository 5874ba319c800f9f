"""Reports for papers: the intelligibility table by run, experiment or expert, the curves, machine
performance, as Markdown, CSV and a PNG figure."""
