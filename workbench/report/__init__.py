"""The HTML report: a folder that opens from a CI artifact in any browser, with no server and no network.

A summary of every scenario (status, mode, agent, duration, first failure;
filters; the scenario x agent matrix) and, per scenario, a trace viewer: the
steps on a timeline, each with its line in the source, the terminal screen in
colour, the checks, the files it changed with diffs, and the model requests or
ACP messages; screenshot failures as golden and actual with the changed cells
marked; the terminal recording played inline. Headless: no Textual here.

* :mod:`.inputs` finds the scenarios and run folders a command is given;
* :mod:`.collect` gathers one scenario's page from its run folder;
* :mod:`.screens` renders screens to HTML and stores each once;
* :mod:`.write` writes the folder (``index.html`` and ``data/``) and reads it back;
* :mod:`.merge` merges the reports of sharded runs.
"""
