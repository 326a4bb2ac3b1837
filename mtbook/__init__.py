"""The book and the course: what only the repository of the research book needs.

A user of the metrics never imports this package, and mtlib never imports it (the contracts of
``.importlinter``): :mod:`mtlib` scores, filters and meta-evaluates from a wheel, with no
repository. This package is installed from the repository (``pip install -e ./mtbook``) and its
tools work on a checkout of it, found explicitly (:mod:`mtbook.repository`):

* :mod:`~mtbook.studies` — each chapter's analyses, as tables and findings;
* :mod:`~mtbook.findings` and :mod:`~mtbook.words` — findings published as data, and each
  chapter's Markdown rendered as templates over them;
* :mod:`~mtbook.runner` — executes the notebooks with papermill, renders their words and checks
  the executed copies in ``book/`` (``python -m mtbook run|render|check``);
* :mod:`~mtbook.provenance` — what an executed chapter ran with (code and libraries);
* :mod:`~mtbook.params` — checks of the notebooks' parameters;
* :mod:`~mtbook.paper_results` — the four papers' printed values the chapters compare with;
* :mod:`~mtbook.assignments` — graded assignments built and graded with otter-grader.
"""
