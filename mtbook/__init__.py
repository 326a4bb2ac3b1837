"""The book and the course: what only the repository of the research book needs.

A user of the metrics never imports this package: :mod:`mtlib` scores, filters and
meta-evaluates from a wheel, with no repository. The tools here work on a checkout of the
book's repository, which they find explicitly (:mod:`mtbook.repository`), never from
where mtlib happens to be installed:

* :mod:`~mtbook.runner` — executes the notebooks with papermill and checks the executed
  copies in ``book/`` (``python -m mtbook run|check``);
* :mod:`~mtbook.provenance` — what an executed chapter ran with (code and libraries);
* :mod:`~mtbook.params` — checks of the notebooks' parameters;
* :mod:`~mtbook.paper_results` — the four papers' printed values the chapters compare with;
* :mod:`~mtbook.assignments` — graded assignments built and graded with otter-grader.
"""
