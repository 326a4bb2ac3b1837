"""The book and the course: what only the repository of the research book needs.

A user of the metrics never imports this package: :mod:`mtlib` scores, filters and
meta-evaluates from a wheel, with no repository. The tools here work on a checkout of the
book's repository, which they find explicitly (:mod:`mtlib.book.repository`), never from
where mtlib happens to be installed:

* :mod:`~mtlib.book.runner` — executes the notebooks with papermill and checks the executed
  copies in ``book/`` (``python -m mtlib.book run|check``);
* :mod:`~mtlib.book.provenance` — what an executed chapter ran with (code and libraries);
* :mod:`~mtlib.book.params` — checks of the notebooks' parameters;
* :mod:`~mtlib.book.paper_results` — the four papers' printed values the chapters compare with;
* :mod:`~mtlib.book.assignments` — graded assignments built and graded with otter-grader.
"""
